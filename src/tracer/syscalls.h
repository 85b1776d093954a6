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
  std::string name;
  bool write_family = false;
  bool moves_data = false;  // success returns a byte count
  int fd_arg = -1;          // index of the written-to fd among the args, -1 when none, kFdsInIocbs
  FdEffect fd_effect = FdEffect::kNone;
  CloneFlagsAt clone_flags = CloneFlagsAt::kNone;  // clone, clone3: CLONE_UNTRACED is cleared
};

/// Names and roles of every syscall number of the native architecture.
class SyscallTable {
 public:
  SyscallTable();

  const SyscallInfo& info(long nr) const;
  /// AUDIT_ARCH_* of the native ABI: calls of another ABI (i386 int 0x80) use other
  /// numbers, so the tracer ignores them rather than miscount them.
  std::uint32_t native_arch() const noexcept { return native_arch_; }
  /// Numbers the filter must stop on when not tracing everything: the write family plus
  /// the fd bookkeeping calls.
  const std::vector<int>& stop_set() const noexcept { return stop_set_; }

 private:
  std::vector<SyscallInfo> by_nr_;
  std::vector<int> stop_set_;
  SyscallInfo unknown_;
  std::uint32_t native_arch_ = 0;
};

}  // namespace iobench::tracing
