#include "tracer/watchdog.h"

#include <system_error>

#include "base/interrupt.h"
#include "base/process.h"

namespace iobench::tracing {

Watchdog::Watchdog(std::optional<std::chrono::nanoseconds> timeout, std::function<void()> on_expire)
    : on_expire_(std::move(on_expire)) {
  if (!timeout) return;
  const auto deadline = std::chrono::steady_clock::now() + *timeout;
  try {
    const InterruptsOffForNewThreads off;
    thread_ = std::thread([this, deadline] {
      std::unique_lock lock(mutex_);
      if (cv_.wait_until(lock, deadline, [this] { return cancelled_; })) return;
      expired_ = true;
      on_expire_();
    });
  } catch (const std::system_error& e) {
    // Without it the timeout would never fire: a run that cannot be bounded does not start.
    throw_spawn_error("a thread for the timeout", e.code().value());
  }
}

Watchdog::~Watchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

}  // namespace iobench::tracing
