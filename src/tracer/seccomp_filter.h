// The seccomp-BPF program that makes the kernel stop the tracee only where we look.
#pragma once

#include <linux/filter.h>

#include <vector>

namespace iobench::tracing {

/// Built (with libseccomp, which allocates) in the parent before fork, so that the child
/// only has to hand a ready BPF program to the kernel: two async-signal-safe syscalls.
class SeccompFilter {
 public:
  /// SECCOMP_RET_TRACE for `traced` (or for everything when trace_all), ALLOW otherwise,
  /// so calls we do not count cost the tracee nothing. Calibration alone passes an
  /// `untraced_write_fd`: write(2) on that fd is let through, so the same call can be timed
  /// traced and untraced side by side. ptrace(2) naming the calling process (the tracer)
  /// fails with EPERM: no tracee can trap its tracer. Throws Error.
  SeccompFilter(const std::vector<int>& traced, bool trace_all, int untraced_write_fd = -1);

  /// Child side, async-signal-safe. Returns 0 or the errno of the refusal. Sets
  /// PR_SET_NO_NEW_PRIVS only when the kernel demands it (no CAP_SYS_ADMIN), and then says
  /// so in `set_no_new_privs`: it makes a later exec ignore setuid, setgid and file
  /// capabilities, which the untraced program would have had.
  int load(bool& set_no_new_privs) const noexcept;

 private:
  int install() const noexcept;

  std::vector<sock_filter> program_;
  sock_fprog fprog_{};
};

}  // namespace iobench::tracing
