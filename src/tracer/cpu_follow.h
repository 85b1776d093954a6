// The tracer beside its tracee. Each stop hands the CPU from tracee to tracer and back; on one
// CPU that is a switch, on two it is a wake-up of another CPU, which costs many times more
// (on a nested VM each cross-CPU wake-up is an exit to the host). The scheduler places the
// program freely and moves it now and then, so the tracer, never the program, moves after
// it: the program keeps the affinity it would have untraced. Off when the tracer is pinned.
#pragma once

#include <sched.h>
#include <sys/types.h>

namespace iobench::tracing {

class CpuFollow {
 public:
  /// Saves the tracer thread's mask; does nothing when it allows fewer than two CPUs.
  explicit CpuFollow(bool enable) noexcept;
  /// Restores the mask: the next run starts unpinned.
  ~CpuFollow();
  CpuFollow(const CpuFollow&) = delete;
  CpuFollow& operator=(const CpuFollow&) = delete;

  /// After a stop of `tid`: every kEvery-th stop, moves the tracer to the CPU `tid` last ran
  /// on, if the saved mask allows it.
  void after_stop(pid_t tid) noexcept;
  /// Times the tracer moved.
  int moves() const noexcept { return moves_; }
  bool enabled() const noexcept { return enabled_; }

  /// One /proc read: cheap next to a stop, but not free, and a program stays put for many.
  static constexpr unsigned kEvery = 128;

 private:
  cpu_set_t original_{};
  bool enabled_ = false;
  bool moved_ = false;
  unsigned stops_ = 0;
  int moves_ = 0;
};

}  // namespace iobench::tracing
