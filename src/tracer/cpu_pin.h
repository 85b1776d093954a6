// Pins the calling thread (the tracer) to the CPU it is running on.
#pragma once

#include <sched.h>

namespace iobench::tracing {

/// A ptrace stop is a wake-up of the other side; a tracer that stays on one CPU keeps its
/// cache warm and lets the scheduler wake the tracee beside it. Only the tracer is pinned
/// (taken after fork): the traced program must see and use the affinity it would have had
/// untraced, and so must its threads and io_uring workers. The original mask comes back
/// when this goes out of scope.
class CpuPin {
 public:
  explicit CpuPin(bool enable) noexcept;
  ~CpuPin();
  CpuPin(const CpuPin&) = delete;
  CpuPin& operator=(const CpuPin&) = delete;

  bool pinned() const noexcept { return pinned_; }
  int cpu() const noexcept { return cpu_; }

 private:
  cpu_set_t original_{};
  bool pinned_ = false;
  int cpu_ = -1;
};

}  // namespace iobench::tracing
