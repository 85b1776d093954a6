// Syscall numbers, names and the roles the tracer gives them. Built in the parent only:
// libseccomp's resolver allocates.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tracer/untraced_clone.h"

namespace iobench::tracing {

/// Fd bookkeeping: calls that can free an fd number (so the fd -> path cache must forget
/// it) or make the fd table diverge from the one the cache describes.
enum class FdEffect {
  kNone,
  kClose,       // close(fd)
  kCloseRange,  // close_range(first, last, flags)
  kDupOnto,     // dup2/dup3(old, new): new is closed first
  kUnshare,     // unshare(flags): CLONE_FILES copies the table
  kRingEnter,   // io_uring_enter: IORING_OP_CLOSE frees fds with no close(2)
  kRingSetup,   // io_uring_setup: an SQPOLL ring frees fds with no syscall at all
};

/// SyscallInfo::fd_arg of io_submit: the fds are in the iocbs its third argument points to.
inline constexpr int kFdsInIocbs = -2;

struct SyscallInfo {
  std::string name;    // libseccomp's, with the ABI after it when not native: "write (i386)"
  bool native = true;  // of the native ABI: the probe's registers (probe.h) fit it
  bool write_family = false;
  bool moves_data = false;  // success returns a byte count
  int fd_arg = -1;          // index of the written-to fd among the args, -1 when none, kFdsInIocbs
  FdEffect fd_effect = FdEffect::kNone;
  CloneFlagsAt clone_flags = CloneFlagsAt::kNone;  // clone, clone3: CLONE_UNTRACED is cleared
  /// seccomp, prctl: the first argument that loads a seccomp filter (session.cc), else -1.
  long loads_filter_a0 = -1;
};

/// A syscall ABI the tracer decodes: the native one first, then those the kernel may also
/// offer a program (x86-64: i386, through `int $0x80` or a 32-bit binary). Each numbers its
/// calls its own way, so a call is known by its ABI and number together (SyscallTable::key).
struct SyscallAbi {
  std::uint32_t arch;      // SCMP_ARCH_* (= AUDIT_ARCH_*, what PTRACE_GET_SYSCALL_INFO reports)
  std::string_view label;  // "" for the native ABI, else what its rows are suffixed with
};

/// The ABIs of this build, native first. x32 is not among them (README "What counts as a
/// write"): the filter lets its calls through untraced.
const std::vector<SyscallAbi>& syscall_abis();

/// A write-family call of a non-native ABI, for the perf backend: the kernel's per-syscall
/// tracepoints fire for native calls only, so it counts these by number (perf_counter.cc).
struct ForeignWriteCall {
  std::string name;    // its row: "write (i386)"
  int nr = 0;          // its number in its ABI: what raw_syscalls reports as the id
  std::string native;  // the native call with the same number ("stat"), empty when none
};
std::vector<ForeignWriteCall> foreign_write_calls();

/// Names and roles of every syscall number of every ABI in syscall_abis().
class SyscallTable {
 public:
  SyscallTable();

  /// The call `nr` of the ABI whose AUDIT_ARCH_* is `arch`, as one number for info() and
  /// the tally; -1 for an ABI the tracer does not decode (x32 shares x86-64's arch).
  long key(std::uint32_t arch, long nr) const noexcept;
  const SyscallInfo& info(long key) const;
  /// Numbers the filter must stop on when not tracing everything: the write family plus
  /// the fd bookkeeping calls, as libseccomp numbers them for the native ABI (a negative
  /// pseudo-number for a call only another ABI has, e.g. i386's sendfile64): the filter
  /// translates each to every ABI it covers.
  const std::vector<int>& stop_set() const noexcept { return stop_set_; }

 private:
  void add_roles(std::size_t abi);

  std::vector<SyscallInfo> by_key_;
  std::vector<int> stop_set_;
  SyscallInfo unknown_;
};

}  // namespace iobench::tracing
