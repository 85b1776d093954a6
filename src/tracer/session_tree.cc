// The traced tree: a tracee adopted at its first stop or at its creator's fork, vfork or
// clone event, forgotten at its exit, renamed at its exec; and which fd tables its
// processes share (fd_paths.h).
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "base/unique_fd.h"
#include "tracer/exec_privileges.h"
#include "tracer/session.h"
#include "tracer/task_info.h"

namespace iobench::tracing {

TraceSession::Thread& TraceSession::adopt(pid_t tid) {
  TaskIds ids = read_task_ids(tid);
  if (ids.tgid == 0) ids.tgid = tid;  // already gone: its exit follows
  Thread& t = threads_[tid];
  t.tgid = ids.tgid;
  auto [it, is_new_process] = processes_.try_emplace(ids.tgid);
  ++it->second.threads;
  if (is_new_process) {
    // Filters are inherited: so is "never probe here".
    if (auto parent = processes_.find(ids.ppid); parent != processes_.end()) {
      it->second.own_filter = parent->second.own_filter;
      it->second.fds.inherit_stream_fds(parent->second.fds.stream_fds());  // a copy of its table
    }
    if (ids.tgid != main_pid_) descendants_.push_back(ids.tgid);
    // A fork's copy of its parent's name, until it execs (on_exec); ps names it alike.
    tally_.name_process(ids.tgid, read_comm(ids.tgid));
    // A new process normally has a copy of its parent's table; a shared one (clone with
    // CLONE_FILES) breaks the cache's reasoning for both (fd_paths.h).
    if (processes_.count(ids.ppid) != 0) share_check(tid, ids.ppid);
    UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, ids.tgid, 0)));
    std::lock_guard lock(kill_mutex_);
    if (killing_) {
      if (pidfd) {
        ::syscall(SYS_pidfd_send_signal, pidfd.get(), SIGKILL, nullptr, 0);
      } else {
        ::kill(ids.tgid, SIGKILL);
      }
    }
    pidfds_.emplace(ids.tgid, std::move(pidfd));
  } else if (tid != ids.tgid && separate_fd_tables(tid, ids.tgid)) {
    // A thread without CLONE_FILES: one process, two tables, one cache cannot serve both.
    it->second.fds.set_uncached();
  }
  return t;
}

void TraceSession::share_check(pid_t a, pid_t b) {
  if (separate_fd_tables(a, b)) return;
  for (pid_t tid : {a, b}) {
    auto t = threads_.find(tid);
    const pid_t tgid = t != threads_.end() ? t->second.tgid : tid;
    auto p = processes_.find(tgid);
    if (p != processes_.end()) p->second.fds.set_uncached();
  }
}

void TraceSession::forget(pid_t tid) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) return;
  const pid_t tgid = it->second.tgid;
  threads_.erase(it);
  auto p = processes_.find(tgid);
  if (p == processes_.end() || --p->second.threads > 0) return;
  processes_.erase(p);
  std::lock_guard lock(kill_mutex_);
  pidfds_.erase(tgid);
}

void TraceSession::on_event(pid_t tid, Thread& t, int event) {
  switch (event) {
    case PTRACE_EVENT_FORK:
    case PTRACE_EVENT_VFORK:
    case PTRACE_EVENT_CLONE: {
      unsigned long child = 0;
      ptrace_or_throw(PTRACE_GETEVENTMSG, tid, nullptr, &child, "PTRACE_GETEVENTMSG");
      const auto child_tid = static_cast<pid_t>(child);
      if (child_tid > 0 && threads_.count(child_tid) == 0) {
        const Thread& c = adopt(child_tid);
        // adopt() compared with the PPid; CLONE_PARENT makes that not the creator.
        if (c.tgid != t.tgid) share_check(child_tid, tid);
      }
      break;
    }
    case PTRACE_EVENT_EXEC:
      on_exec(tid);
      break;
    default:
      break;  // PTRACE_EVENT_STOP with SIGTRAP: a new tracee's first stop
  }
  auto it = threads_.find(tid);
  if (it != threads_.end()) resume(tid, it->second);
}

void TraceSession::on_exec(pid_t tid) {
  unsigned long former = 0;
  ptrace_or_throw(PTRACE_GETEVENTMSG, tid, nullptr, &former, "PTRACE_GETEVENTMSG");
  const auto former_tid = static_cast<pid_t>(former);
  if (former_tid != tid && threads_.count(former_tid) != 0) {
    // A non-leader thread exec'd and took the leader's tid; the old leader vanishes
    // without an exit report (ptrace(2), "execve under ptrace").
    Thread moved = std::move(threads_[former_tid]);
    moved.run_delay = RunDelay();  // named the old tid; reopened on the next timed call
    forget(former_tid);
    if (threads_.count(tid) == 0) adopt(tid);
    threads_[tid] = std::move(moved);
  }
  auto it = threads_.find(tid);
  if (it == threads_.end()) return;
  // exec closed the CLOEXEC fds and gave the process a table of its own.
  Process& p = processes_[it->second.tgid];
  p.fds.after_exec();
  // The kernel renamed it after the new program's file: tid is its leader now.
  tally_.name_process(it->second.tgid, read_comm(tid));
  note_lost_privileges(tid);
}

void TraceSession::note_lost_privileges(pid_t tid) {
  // File capabilities are ignored under the no_new_privs the filter needed, or under a
  // tracer without CAP_SYS_PTRACE (not root); setuid/setgid show in the ids either way.
  const bool caps_ignored = config_.report->no_new_privs.load() || ::geteuid() != 0;
  std::optional<std::string> program = exec_lost_privileges(tid, caps_ignored);
  if (!program) return;
  for (const auto& seen : lost_privileges_) {
    if (seen == *program) return;
  }
  lost_privileges_.push_back(std::move(*program));
}

}  // namespace iobench::tracing
