// Which file a call writes to, and what each call does to the fd-path cache (fd_paths.h).
#include <linux/close_range.h>
#include <linux/io_uring.h>
#include <sched.h>

#include "tracer/session.h"
#include "tracer/task_info.h"

namespace iobench::tracing {

namespace {

const std::string kNoFd = kNoFdPath;
const std::string kBadFd = kBadFdPath;
const std::string kRing = "anon_inode:[io_uring]";

}  // namespace

const std::string* TraceSession::file_of(pid_t tid, Process& p, const SyscallInfo& sc,
                                         const std::uint64_t* args) {
  if (sc.fd_arg < 0) return &kNoFd;
  // With IORING_ENTER_REGISTERED_RING the "fd" is an index into the ring's own table:
  // nothing to read in /proc, but it is a ring by definition.
  if (sc.fd_effect == FdEffect::kRingEnter && (args[3] & IORING_ENTER_REGISTERED_RING) != 0) {
    return &kRing;
  }
  const std::string& fd_path = p.fds.path(tid, static_cast<int>(args[sc.fd_arg]));
  return fd_path.empty() ? &kBadFd : &fd_path;
}

void TraceSession::apply_fd_effect(pid_t tid, Process& p, FdEffect effect,
                                   const std::uint64_t* args) {
  switch (effect) {
    case FdEffect::kNone:
      return;
    case FdEffect::kClose:
      p.fds.forget(static_cast<int>(args[0]));
      return;
    case FdEffect::kCloseRange:
      if (args[2] & CLOSE_RANGE_UNSHARE) {
        p.fds.set_uncached();
      } else {
        p.fds.forget_range(static_cast<unsigned>(args[0]), static_cast<unsigned>(args[1]));
      }
      return;
    case FdEffect::kDupOnto:
      p.fds.forget(static_cast<int>(args[1]));
      return;
    case FdEffect::kUnshare:
      if (args[0] & CLONE_FILES) p.fds.set_uncached();
      return;
    case FdEffect::kRingSetup:
      // An SQPOLL ring's own thread runs IORING_OP_CLOSE with no syscall to stop at: no
      // cached path of this table can be trusted from here on.
      if (ring_setup_has_sqpoll(tid, args[1])) p.fds.set_uncached();
      return;
    case FdEffect::kRingEnter: {
      // The ring may close any fd but itself (io_uring refuses to close a ring).
      const int ring = static_cast<int>(args[0]);
      if (args[3] & IORING_ENTER_REGISTERED_RING) {
        p.fds.clear();
        return;
      }
      std::string ring_path = p.fds.path(tid, ring);
      p.fds.clear();
      if (!ring_path.empty()) p.fds.remember(ring, std::move(ring_path));
      return;
    }
  }
}

}  // namespace iobench::tracing
