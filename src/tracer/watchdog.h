// Runs an action once a deadline passes, from a thread of its own, because the tracer's
// thread spends its time blocked in waitpid and cannot watch a clock.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace iobench::tracing {

class Watchdog {
 public:
  /// No timeout: no thread. `on_expire` runs on the watchdog's thread.
  Watchdog(std::optional<std::chrono::nanoseconds> timeout, std::function<void()> on_expire);
  ~Watchdog();  // cancels and joins
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  bool expired() const noexcept { return expired_.load(); }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool cancelled_ = false;
  std::atomic<bool> expired_{false};
  std::function<void()> on_expire_;
  std::thread thread_;
};

}  // namespace iobench::tracing
