// The forked child's side of a traced run, and the parent's word that releases it.
#pragma once

#include <functional>

#include "tracer/seccomp_filter.h"
#include "tracer/session.h"

namespace iobench::tracing {

/// The parent's verdict, one byte on the release socket.
enum class Verdict : char {
  kTraced = 'T',    // attached: load the filter, then run
  kUntraced = 'U',  // ptrace refused: run as is
};

/// Exit status of a child whose parent vanished before releasing it.
inline constexpr int kExitOrphaned = 125;
/// Exit status of a child whose main function threw (it must not).
inline constexpr int kExitThrew = 126;

struct ChildPlan {
  int child_end = -1;   // the child's end of the release socket
  int parent_end = -1;  // the parent's end, closed in the child so EOF means "parent gone"
  const SeccompFilter* filter = nullptr;
  ChildReport* report = nullptr;
  const std::function<void()>* before_filter = nullptr;  // calibration's untraced half
  const std::function<int()>* main = nullptr;
};

/// Runs in the child after fork and never returns. Async-signal-safe up to main():
/// blocks until released, loads the filter when told it is traced, runs main, _exits.
[[noreturn]] void run_child(const ChildPlan& plan) noexcept;

/// Parent side: sends the verdict. False if the child is already gone.
bool release_child(int parent_end, Verdict verdict) noexcept;

}  // namespace iobench::tracing
