// fd -> what it is (fd_kind.h), as /proc/TID/fd shows it, read while the tracee is stopped
// and cached.
#pragma once

#include <sys/types.h>

#include <set>
#include <unordered_map>
#include <vector>

#include "tracer/fd_kind.h"

namespace iobench::tracing {

/// One process's cache. Why a cache can be right without stopping on open, dup, fcntl or
/// accept: a call that creates an fd takes a number that is free, and a number only
/// becomes free through close, close_range, dup2/dup3 onto it, exec (CLOEXEC) or an
/// io_uring IORING_OP_CLOSE. The tracer stops on all of those (exec as its ptrace event,
/// the ring at io_uring_enter) and forgets the number there; a cached number is thus still
/// the file it was read from (its inode: a rename or unlink since changes nothing). The
/// ways around it: an fd table shared with, or copied away from, another task
/// (clone(CLONE_FILES) without CLONE_THREAD, unshare(CLONE_FILES),
/// close_range(CLOSE_RANGE_UNSHARE)), where a close in one is not a close in the other's
/// cache; and an SQPOLL ring (seen at io_uring_setup), whose kernel thread closes fds with
/// no syscall at all. Such a process stops caching (set_uncached) and reads the link every
/// time. Left out: a thread that writes to an fd while another closes it can cache the old
/// file (a race in the program itself).
class FdPaths {
 public:
  /// What `fd` in `tid`'s table is. A bad fd is kNone, an fd /proc refuses to show
  /// kUnknown, unless the fd is still the standard stream it was (below).
  const FdFacts& lookup(pid_t tid, int fd, const std::vector<FileId>& streams);

  void remember(int fd, FdFacts facts) {
    if (cached_) facts_.insert_or_assign(fd, std::move(facts));
  }
  void forget(int fd) {
    facts_.erase(fd);
    stream_fds_.erase(fd);
  }
  void forget_range(unsigned first, unsigned last);
  /// Forgets every fd but the standard streams' numbers: an io_uring_enter can close any
  /// (left out: a ring that closes fd 1 or 2).
  void clear() noexcept { facts_.clear(); }
  void set_uncached() noexcept {
    cached_ = false;
    facts_.clear();
  }
  /// exec: a table of the process's own, the CLOEXEC fds gone.
  void after_exec() noexcept {
    facts_.clear();
    cached_ = true;
  }
  /// The numbers known to be a standard stream, however /proc may answer later: a
  /// non-dumpable program's fds cannot be read without root, but its stdout is still the
  /// fd 1 it inherited until it closes it or dup2s onto it, which the tracer sees.
  const std::set<int>& stream_fds() const noexcept { return stream_fds_; }
  void inherit_stream_fds(const std::set<int>& fds) { stream_fds_ = fds; }

 private:
  std::unordered_map<int, FdFacts> facts_;
  std::set<int> stream_fds_;
  FdFacts scratch_;  // the uncached answer
  bool cached_ = true;
};

}  // namespace iobench::tracing
