// Which file a call writes to, what that file is (fd_kind.h), and what each call does to
// the fd cache (fd_paths.h).
#include <linux/close_range.h>
#include <linux/io_uring.h>
#include <sched.h>

#include <algorithm>

#include "tracer/async_writes.h"
#include "tracer/session.h"
#include "tracer/task_info.h"

namespace iobench::tracing {

namespace {

const std::string kNoFd = file_key(kNoFdPath, FdKind::kNone);
const std::string kRegisteredRing = file_key("anon_inode:[io_uring]", FdKind::kWritingRing);

bool is_counted_file(FdKind kind) { return kind == FdKind::kFile || kind == FdKind::kUnknown; }

}  // namespace

const std::string* TraceSession::file_of(pid_t tid, Process& p, const SyscallInfo& sc,
                                         const std::uint64_t* args) {
  if (sc.fd_arg == kFdsInIocbs) return aio_file(tid, p, args[2], args[1], !sc.native);
  if (sc.fd_arg < 0) return &kNoFd;
  if (sc.fd_effect == FdEffect::kRingEnter) return ring_file(tid, p, args);
  return &p.fds.lookup(tid, static_cast<int>(args[sc.fd_arg]), streams_).key;
}

const std::string* TraceSession::ring_file(pid_t tid, Process& p, const std::uint64_t* args) {
  // With IORING_ENTER_REGISTERED_RING the "fd" is an index into the ring's own table:
  // nothing to read in /proc. Its SQEs cannot be looked at: it counts, as it may write.
  if ((args[3] & IORING_ENTER_REGISTERED_RING) != 0) return &kRegisteredRing;
  const int fd = static_cast<int>(args[0]);
  const FdFacts ring = p.fds.lookup(tid, fd, streams_);  // a copy: lookups below reuse it
  if (ring.kind != FdKind::kRing) return &(key_ = ring.key);
  // A ring that has written counts from then on, its waits for those writes included; one
  // that only reads, polls or sends never does.
  bool writes = writing_rings_.count(ring.id) != 0;
  if (!writes) {
    for (const AsyncRequest& sqe : pending_sqes(tid, fd)) {
      // A registered file cannot be looked at from here: as if it were a file.
      if (sqe.write && (sqe.fixed || is_counted_file(p.fds.lookup(tid, sqe.fd, streams_).kind))) {
        writes = true;
        writing_rings_.insert(ring.id);
        break;
      }
    }
  }
  return &(key_ = file_key(key_path(ring.key), writes ? FdKind::kWritingRing : FdKind::kRing));
}

const std::string* TraceSession::aio_file(pid_t tid, Process& p, std::uint64_t iocbpp,
                                          std::uint64_t nr, bool compat) {
  const auto iocbs = submitted_iocbs(tid, iocbpp, nr, compat);
  if (!iocbs) {
    // EFAULT: the call fails the same way; EPERM: a non-dumpable program's memory.
    if (errno == EPERM || errno == EACCES)
      return &(key_ = file_key(kUnreadableFdPath, FdKind::kUnknown));
    return &(key_ = file_key(kBadFdPath, FdKind::kNone));
  }
  // Filed under the file it writes: the first write to a counted file, else the first
  // write, else (no write at all) the first request's file, as kNoWrite.
  const AsyncRequest* chosen = nullptr;
  for (const AsyncRequest& cb : *iocbs) {
    if (!cb.write) continue;
    const FdFacts& f = p.fds.lookup(tid, cb.fd, streams_);
    if (is_counted_file(f.kind)) return &(key_ = f.key);
    if (chosen == nullptr) chosen = &cb;
  }
  if (chosen != nullptr) return &(key_ = p.fds.lookup(tid, chosen->fd, streams_).key);
  if (iocbs->empty()) return &kNoFd;
  const FdFacts& f = p.fds.lookup(tid, iocbs->front().fd, streams_);
  return &(key_ = file_key(key_path(f.key), FdKind::kNoWrite));
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
      FdFacts ring_facts = p.fds.lookup(tid, ring, streams_);
      p.fds.clear();
      if (ring_facts.kind == FdKind::kRing) p.fds.remember(ring, std::move(ring_facts));
      return;
    }
  }
}

}  // namespace iobench::tracing
