// Pins the calling thread (the tracer) to the CPU it is running on.
#pragma once

#include <sched.h>

namespace iobench::tracing {

/// Pins the calling thread to `cpu` alone. False (mask unchanged) when the kernel refuses,
/// e.g. a cpuset without that CPU.
bool pin_thread_to(int cpu) noexcept;

/// Opt-in (TracerOptions::pin). Only the tracer is pinned (taken after fork): the traced
/// program must see and use the affinity it would have had untraced, and so must its
/// threads and io_uring workers. With the tracee free, a pinned tracer is often dearer
/// than a free one (it waits for its one CPU at every stop; README "Pinning"), hence off
/// by default. The original mask comes back when this goes out of scope.
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
