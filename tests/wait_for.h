// Tests wait for events (a file appearing, a line written, a state in /proc), never for a
// time: a busy CI machine makes everything later, and an event is still an event. The bound
// is for a broken product that never produces the event; it is far above any real wait and
// below ctest's timeout, so the failure names what never happened instead of a bare timeout.
#pragma once

#include <unistd.h>

#include <chrono>
#include <functional>

namespace iobench::testing {

inline constexpr std::chrono::seconds kEventBound{60};

/// Polls `happened` until it is true; false if it is still false after kEventBound.
inline bool wait_until(const std::function<bool()>& happened) {
  const auto give_up = std::chrono::steady_clock::now() + kEventBound;
  while (!happened()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    ::usleep(2000);  // a poll interval, not a deadline
  }
  return true;
}

}  // namespace iobench::testing
