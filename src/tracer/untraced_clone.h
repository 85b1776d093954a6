// CLONE_UNTRACED under our filter: a child with the filter and no tracer would fail every
// write-family call with ENOSYS (SECCOMP_RET_TRACE with nobody attached). The tracer
// clears the flag at the clone's stop, so the child is followed like any other.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace iobench::tracing {

/// Where a clone-family call keeps its flags.
enum class CloneFlagsAt {
  kNone,
  kRegister,      // clone(flags, ...): the first argument
  kRegisterI386,  // the same from the i386 ABI, whose first argument is in ebx
  kMemory,        // clone3(struct clone_args*, size): the struct's first field
};

/// Whether this architecture's first syscall argument can be rewritten here (x86_64 and
/// arm64). Elsewhere the filter does not stop on clone, and an untraced child's
/// write-family calls fail with ENOSYS.
#if defined(__x86_64__) || defined(__aarch64__)
inline constexpr bool kCanKeepClonesTraced = true;
#else
inline constexpr bool kCanKeepClonesTraced = false;
#endif

/// At the clone's entry (or seccomp) stop: clears CLONE_UNTRACED where the call keeps its
/// flags. The kernel reads the arguments (and copies clone_args) only after the stop. A
/// failure can only mean the tracee is gone (killed), so there is nothing to report.
void keep_clone_traced(pid_t tid, CloneFlagsAt where, const std::uint64_t* args) noexcept;

}  // namespace iobench::tracing
