// Pins the calling thread (and so the child it forks) to the CPU it is running on.
#pragma once

#include <sched.h>

namespace iobench::tracing {

/// A ptrace stop is a wake-up of the other side; on one CPU that is a plain context switch,
/// across CPUs an IPI and a cold cache, about three times dearer and far noisier. Pinning
/// before fork puts tracer and tracee on one CPU (the child inherits the mask); the
/// original mask comes back when this goes out of scope.
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
