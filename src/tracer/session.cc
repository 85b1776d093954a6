// The waitpid loop: each stop told apart and handled, a syscall's entry decoded, the tracee
// resumed; and the tree's end, killed and reaped. Who is in the tree: session_tree.cc.
#include "tracer/session.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>

#include "base/error.h"
#include "base/interrupt.h"
#include "base/monotonic_clock.h"

namespace iobench::tracing {

namespace {

// __WALL: threads report like processes. __WNOTHREAD: only our own children and tracees,
// never a child another thread of the caller is waiting for.
constexpr int kWaitFlags = __WALL | __WNOTHREAD;

/// A seccomp filter of the program's own could answer our probe before our filter stops it
/// (an ERRNO outranks a TRACE): such a process is never probed.
bool loads_filter(const SyscallInfo& sc, const std::uint64_t* args) {
  return sc.loads_filter_a0 >= 0 && args[0] == static_cast<std::uint64_t>(sc.loads_filter_a0);
}

}  // namespace

void TraceSession::ptrace_or_throw(int request, pid_t tid, void* addr, void* data,
                                   const char* what) {
  if (::ptrace(static_cast<__ptrace_request>(request), tid, addr, data) < 0 && errno != ESRCH) {
    throw_errno(fmt::format("{} (pid {})", what, tid), errno, kExitRunFailed);
  }
}

TraceSession::TraceSession(const SessionConfig& config, pid_t main_pid)
    : config_(config), main_pid_(main_pid), tally_(config.time_all) {
  adopt(main_pid);
  // Its stdout and stderr are ours, forked: fd 1 and 2 stay them until it closes them.
  std::set<int> stream_fds;
  for (int fd : {1, 2})
    if (::fcntl(fd, F_GETFD) >= 0) stream_fds.insert(fd);
  processes_[main_pid].fds.inherit_stream_fds(stream_fds);
  // Held from before the command is released, not from run(): a Ctrl-C between the two is
  // the command's too.
  if (config_.command_gets_first_interrupt) first_interrupt_.emplace(main_pid_);
}

TraceSession::~TraceSession() {
  if (threads_.empty()) return;
  kill_all();
  // Reap until every known tracee has reported its death. A tracee we never heard of
  // (forked just before the kill) shows up here with its first stop and is killed too.
  while (!threads_.empty()) {
    int raw = 0;
    const pid_t tid = ::waitpid(-1, &raw, kWaitFlags);
    if (tid < 0) {
      if (errno == EINTR) continue;
      break;  // ECHILD: nothing left to wait for
    }
    const WaitStatus status(raw);
    if (status.kind() == WaitStatus::Kind::kExited ||
        status.kind() == WaitStatus::Kind::kFatalSignal) {
      forget(tid);
    } else if (threads_.count(tid) == 0) {
      try {
        adopt(tid);  // after kill_all, adopting kills
      } catch (...) {
        ::kill(tid, SIGKILL);  // no memory to track it: at least it dies
      }
    }
  }
  reap_orphaned_zombies();
}

void TraceSession::kill_all() noexcept {
  std::lock_guard lock(kill_mutex_);
  killing_ = true;
  for (const auto& [tgid, pidfd] : pidfds_) {
    if (pidfd) {
      ::syscall(SYS_pidfd_send_signal, pidfd.get(), SIGKILL, nullptr, 0);
    } else {
      ::kill(tgid, SIGKILL);  // no pidfd (pre-5.3 kernel): still unreaped, so still ours
    }
  }
}

void TraceSession::reap_orphaned_zombies() noexcept {
  // A tracee whose parent died is reparented to init, or to a child subreaper, which may be
  // us. If it died before its parent, our ptrace wait released it to that parent, and the
  // parent's death then handed the zombie to us: nobody else will reap it. By now every
  // reparenting has happened (it precedes the parent's own death report). WNOHANG, by pid:
  // only our own zombies, never a child that is still running.
  for (pid_t pid : descendants_) {
    int raw = 0;
    while (::waitpid(pid, &raw, WNOHANG | __WALL) < 0 && errno == EINTR) {
    }
  }
}

void TraceSession::run() {
  while (!threads_.empty()) {
    int raw = 0;
    struct rusage usage {};
    // wait4, not waitpid: the main child's CPU time is the share of time's denominator.
    const pid_t tid = ::wait4(-1, &raw, kWaitFlags, &usage);
    // Read the clock first: for an exit stop this closes the timed interval.
    const std::int64_t now = monotonic_ns();
    if (config_.spinners != nullptr) config_.spinners->touch();
    // Before the stop is handled: the stop may be the one the held SIGINT's handler asked for.
    take_first_interrupt();
    if (tid < 0) {
      if (errno == EINTR) {
        throw_if_interrupted();  // SIGINT/SIGTERM: the destructor kills the tree
        if (to_pass_on_) interrupt_main_process();
        continue;
      }
      if (errno == ECHILD) break;  // every tracee is gone, reported or not
      throw_errno("waitpid", errno, kExitRunFailed);
    }
    handle(tid, WaitStatus(raw), now, usage);
    if (config_.follow != nullptr && tid > 0) config_.follow->after_stop(tid);
    // A busy tracee keeps waitpid from ever blocking, so a signal may land between calls and
    // never show as EINTR: look at the flag on every stop too (one load of a sig_atomic_t).
    throw_if_interrupted();
  }
  reap_orphaned_zombies();
}

void TraceSession::handle(pid_t tid, const WaitStatus& status, std::int64_t now_ns,
                          const struct rusage& usage) {
  using Kind = WaitStatus::Kind;
  if (status.kind() == Kind::kExited || status.kind() == Kind::kFatalSignal) {
    if (tid == main_pid_) {
      main_status_ = status;
      main_exit_ns_ = now_ns;
      main_cpu_ns_ = to_ns(usage.ru_utime) + to_ns(usage.ru_stime);
      // What it left behind is not the command: a Ctrl-C now stops the run at once.
      if (first_interrupt_) first_interrupt_->command_ended();
      to_pass_on_.reset();
    }
    forget(tid);
    return;
  }
  auto it = threads_.find(tid);
  // A new tracee's first stop can come before its creator's fork/clone event.
  Thread& t = it != threads_.end() ? it->second : adopt(tid);
  // Any thread of the main child: a process-directed SIGINT goes to another thread when
  // the main one is stopped or has one pending, and the main one may have exited.
  if (t.tgid == main_pid_ && first_interrupt_) {
    note_main_signal(tid, status);
    if (to_pass_on_) pass_on_interrupt();
  }

  switch (status.kind()) {
    case Kind::kSeccompStop:
    case Kind::kSyscallStop:
      on_syscall_stop(tid, t, now_ns);
      return;
    case Kind::kPtraceEventStop:
      on_event(tid, t, status.ptrace_event());
      return;
    case Kind::kGroupStop:
      // LISTEN, not CONT: the tracee stays stopped, as job control asked, yet we still hear
      // of the SIGCONT that ends the stop.
      ptrace_or_throw(PTRACE_LISTEN, tid, nullptr, nullptr, "PTRACE_LISTEN");
      return;
    case Kind::kSignalDeliveryStop:
      on_signal_stop(tid, t, status.stop_signal());
      return;
    default:
      resume(tid, t);
      return;
  }
}

void TraceSession::on_syscall_stop(pid_t tid, Thread& t, std::int64_t now_ns) {
  __ptrace_syscall_info info{};
  if (::ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(info), &info) < 0) {
    if (errno == ESRCH) return;
    throw_errno("PTRACE_GET_SYSCALL_INFO", errno, kExitRunFailed);
  }
  if (t.refusing && info.op == PTRACE_SYSCALL_INFO_EXIT) {
    finish_refusal(tid, t);
    resume(tid, t);
    return;
  }
  // The exit stop carries no number: it belongs to the entry the thread holds.
  if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
    on_exit(tid, t, info, now_ns);
  } else if (info.op == PTRACE_SYSCALL_INFO_ENTRY || info.op == PTRACE_SYSCALL_INFO_SECCOMP) {
    on_entry(tid, t, info);
  } else {
    resume(tid, t);
  }
}

void TraceSession::on_signal_stop(pid_t tid, Thread& t, int sig) {
  if (tid == main_pid_ && !handshake_seen_ && sig == SIGSTOP &&
      config_.report->filter_errno.load() != 0) {
    // The child's "no filter" SIGSTOP (see child_launch.cc): ours, not the program's.
    handshake_seen_ = true;
    seccomp_ = false;
    resume(tid, t);
    return;
  }
  cancel_probe(tid, t);
  settle_restart(tid, t, sig);
  resume(tid, t, sig);  // the program's signal: deliver it
}

void TraceSession::on_entry(pid_t tid, Thread& t, const __ptrace_syscall_info& info) {
  // Entry and seccomp stops lay out nr and args identically, for every ABI: the kernel
  // reads i386's ebx, ecx... into args in call order. Each ABI numbers its calls its own
  // way, so the number is read with the stop's arch (README "What counts as a write").
  const auto nr = static_cast<long>(info.entry.nr);
  const std::uint64_t* args = info.entry.args;
  if (refuse_ptrace_of_us(tid, t, info)) {
    resume(tid, t);
    return;
  }
  const long key = config_.table->key(info.arch, nr);
  if (key < 0) {  // an ABI we do not decode: the filter lets those through, so no filter here
    resume(tid, t);
    return;
  }
  const SyscallInfo& sc = config_.table->info(key);
  // An i386 call reads 32-bit registers: from a 64-bit program (int $0x80) the upper halves
  // of ours may hold anything the kernel never looks at.
  std::array<std::uint64_t, 6> compat_args{};
  if (!sc.native) {
    for (std::size_t i = 0; i < compat_args.size(); ++i)
      compat_args[i] = static_cast<std::uint32_t>(info.entry.args[i]);
    args = compat_args.data();
  }
  if (t.probe == Probe::kArmed && on_probe_entry(tid, t, sc.native && nr == SYS_write, args))
    return;
  if (loads_filter(sc, args)) processes_[t.tgid].own_filter = true;
  Process& p = processes_[t.tgid];
  if (sc.clone_flags != CloneFlagsAt::kNone) keep_clone_traced(tid, sc.clone_flags, args);
  if (resume_restarted(tid, t, info)) return;
  if (!config_.trace_all && !sc.write_family) {
    apply_fd_effect(tid, p, sc.fd_effect, args);  // bookkeeping only: not a result
    resume(tid, t);
    return;
  }
  const std::string* path = sc.write_family ? file_of(tid, p, sc, args) : nullptr;
  const TraceTally::Slot slot = tally_.record_call(t.tgid, static_cast<int>(key), path);
  apply_fd_effect(tid, p, sc.fd_effect, args);  // after the lookup: it names this call's file
  // Count mode, or a call the sample passes over: one stop, nothing more to learn.
  const std::uint32_t weight =
      config_.mode == TraceMode::kCount ? 0 : tally_.sample(static_cast<int>(key));
  if (weight == 0) {
    resume(tid, t);
    return;
  }
  t.nr = nr;
  t.arch = info.arch;
  start_timing(tid, t, sc, weight, slot, args);
}

bool TraceSession::on_probe_entry(pid_t tid, Thread& t, bool native_write,
                                  const std::uint64_t* args) {
  if (native_write && static_cast<int>(args[0]) == kProbeFd) {
    begin_timed_interval(t);
    // From the call's exit stop to here: a resume, a return to user mode and a new entry
    // through the filter to a stop; the other half of what a stop costs the tracee.
    reentry_sum_ns_ += t.cpu0 - t.held.exit_cpu;
    t.probe = Probe::kTiming;
    resume(tid, t);
    return true;
  }
  // Not our probe (cannot happen with our filter first in line): never probe here again.
  t.probe = Probe::kNone;
  processes_[t.tgid].own_filter = true;
  record(t, t.held, false);
  return false;
}

void TraceSession::start_timing(pid_t tid, Thread& t, const SyscallInfo& sc, std::uint32_t weight,
                                const TraceTally::Slot& slot, const std::uint64_t* args) {
  t.pending = true;
  t.weight = weight;
  t.slot = slot;
  t.moves_data = sc.moves_data;
  // --trace-all times execve, rt_sigreturn and clone too, whose exit stops resume elsewhere.
  // The probe's registers are a native write: in an i386 call they would name another call.
  t.probe_ok = sc.write_family && sc.native;
  t.sample = config_.samples != nullptr && sc.write_family &&
             (sc.fd_arg < 0 || static_cast<int>(args[sc.fd_arg]) != config_.unsampled_fd);
  if (!t.run_delay) t.run_delay = RunDelay(tid);
  begin_timed_interval(t);
  resume(tid, t);
}

void TraceSession::resume(pid_t tid, const Thread& t, int sig) {
  // PTRACE_SYSCALL only when an exit stop is wanted: a timed call in flight, or no filter
  // (then every syscall stops at entry and exit).
  const int request =
      (!seccomp_ || t.pending || t.probe == Probe::kTiming) ? PTRACE_SYSCALL : PTRACE_CONT;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): ptrace takes the signal in its data pointer.
  void* data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(sig));
  ptrace_or_throw(request, tid, nullptr, data, "ptrace resume");
}

}  // namespace iobench::tracing
