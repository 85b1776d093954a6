// fd -> path, as /proc/TID/fd shows it, read while the tracee is stopped and cached.
#pragma once

#include <sys/types.h>

#include <string>
#include <unordered_map>

namespace iobench::tracing {

/// One process's cache. Why a cache can be right without stopping on open, dup, fcntl or
/// accept: a call that creates an fd takes a number that is free, and a number only
/// becomes free through close, close_range, dup2/dup3 onto it, exec (CLOEXEC) or an
/// io_uring IORING_OP_CLOSE. The tracer stops on all of those (exec as its ptrace event,
/// the ring at io_uring_enter) and forgets the number there; a cached number is thus still
/// the file it was read from. The ways around it: an fd table shared with, or copied away
/// from, another task (clone(CLONE_FILES) without CLONE_THREAD, unshare(CLONE_FILES),
/// close_range(CLOSE_RANGE_UNSHARE)), where a close in one is not a close in the other's
/// cache; and an SQPOLL ring (seen at io_uring_setup), whose kernel thread closes fds with
/// no syscall at all. Such a process stops caching (set_uncached) and reads the link every
/// time. Left out: a thread that writes to an fd while another closes it can cache the old
/// file (a race in the program itself).
class FdPaths {
 public:
  /// The path of `fd` in `tid`'s table; empty for a bad fd, kUnreadableFdPath when /proc
  /// refuses to show it.
  const std::string& path(pid_t tid, int fd);

  void remember(int fd, std::string path) {
    if (cached_) paths_.insert_or_assign(fd, std::move(path));
  }
  void forget(int fd) { paths_.erase(fd); }
  void forget_range(unsigned first, unsigned last);
  void clear() noexcept { paths_.clear(); }
  void set_uncached() noexcept {
    cached_ = false;
    paths_.clear();
  }

 private:
  std::unordered_map<int, std::string> paths_;
  std::string scratch_;  // the uncached answer
  bool cached_ = true;
};

}  // namespace iobench::tracing
