#include "tracer/watchdog.h"

#include "base/interrupt.h"

namespace iobench::tracing {

Watchdog::Watchdog(std::optional<std::chrono::nanoseconds> timeout, std::function<void()> on_expire)
    : on_expire_(std::move(on_expire)) {
  if (!timeout) return;
  const auto deadline = std::chrono::steady_clock::now() + *timeout;
  thread_ = std::thread([this, deadline] {
    keep_interrupts_off_this_thread();
    std::unique_lock lock(mutex_);
    if (cv_.wait_until(lock, deadline, [this] { return cancelled_; })) return;
    expired_ = true;
    on_expire_();
  });
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
