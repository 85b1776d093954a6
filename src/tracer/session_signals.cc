// Ctrl-C as strace does it: the first SIGINT goes to the traced command, whose handler may
// still write (and be counted); iobench reports once the command is gone. A terminal sends
// SIGINT to the whole foreground process group, so the command may already have its own
// (a signal-delivery stop, injected like any other): it must then not get a second one.
// And where the seccomp filter cannot refuse a tracee's ptrace of iobench, the tracer does;
// a ptrace the kernel refuses a process for being ours already is noted for a warning.
#include <linux/audit.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

#include "base/error.h"
#include "tracer/session.h"
#include "tracer/task_info.h"

namespace iobench::tracing {

void TraceSession::take_first_interrupt() noexcept {
  if (!first_interrupt_) return;
  if (auto sender = first_interrupt_->take()) to_pass_on_ = sender;
}

void TraceSession::note_main_signal(pid_t tid, const WaitStatus& status) {
  if (status.kind() != WaitStatus::Kind::kSignalDeliveryStop || status.stop_signal() != SIGINT)
    return;
  siginfo_t info{};
  if (::ptrace(PTRACE_GETSIGINFO, tid, nullptr, &info) != 0) return;
  main_sigint_ = SignalSender{info.si_code, info.si_pid};
}

void TraceSession::interrupt_main_process() noexcept {
  // The handler's PTRACE_INTERRUPT named the main thread, which never stops once it has
  // exited (a zombie leader while other threads run; the request may still succeed): the
  // tracer's wait returned EINTR instead, and a live thread must stop for the held SIGINT
  // to be passed on. Every thread is asked: an extra stop is only resumed.
  for (const auto& [tid, t] : threads_) {
    if (t.tgid == main_pid_) (void)::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
  }
}

void TraceSession::pass_on_interrupt() {
  // The main child is stopped (the handler's PTRACE_INTERRUPT makes sure it stops soon), so
  // every SIGINT it has taken has shown as a delivery stop by now, and none is taken while
  // we decide. One from the same sender as ours is the same Ctrl-C: the group's. Otherwise
  // it gets ours; one still pending (the group's, not yet taken) absorbs it, since a
  // standard signal is queued once.
  const bool reached = main_sigint_.has_value() && *main_sigint_ == *to_pass_on_;
  main_sigint_.reset();
  to_pass_on_.reset();
  // Our own unreaped child: its pid is still its own, and names the process, whichever
  // thread is alive.
  if (!reached) ::kill(main_pid_, SIGINT);
}

bool TraceSession::refuse_ptrace_of_us(pid_t tid, Thread& t, const __ptrace_syscall_info& info) {
#if defined(__x86_64__)
  // ptrace naming iobench's pid never gets here with a filter: the filter answers EPERM
  // (seccomp_filter.cc). What does: an attach to one of iobench's other threads (a watchdog,
  // a spinner; their ids are not known when the filter is built), or, without a filter,
  // every call. The kernel reads the pid as its low 32 bits.
  // An i386 call (a 32-bit binary, int $0x80) numbers ptrace 26 and reads request and pid
  // as 32-bit values, the upper halves unseen. GETREGS/SETREGS below use the 64-bit layout
  // for a compat tracee too, so orig_rax and rax mean the same there.
  constexpr long kI386Ptrace = 26;  // arch/x86/entry/syscalls/syscall_32.tbl
  const std::uint64_t* args = info.entry.args;
  const bool native = info.arch == AUDIT_ARCH_X86_64;
  if (!native && info.arch != AUDIT_ARCH_I386) return false;
  if (static_cast<long>(info.entry.nr) != (native ? SYS_ptrace : kI386Ptrace)) return false;
  const std::uint64_t request = native ? args[0] : static_cast<std::uint32_t>(args[0]);
  // Already traced by us, its process cannot be traced again: the kernel answers EPERM, and
  // the run says why (a debugger under iobench fails as under strace).
  if (request == PTRACE_TRACEME) {
    note_refused_ptrace(tid, "PTRACE_TRACEME");
    return false;
  }
  const auto target = static_cast<pid_t>(static_cast<std::uint32_t>(args[1]));
  const bool attach = request == PTRACE_ATTACH || request == PTRACE_SEIZE;
  if (attach && threads_.count(target) != 0)
    note_refused_ptrace(tid, request == PTRACE_ATTACH ? "PTRACE_ATTACH" : "PTRACE_SEIZE");
  if (target != ::getpid() && !(attach && read_task_ids(target).tgid == ::getpid())) return false;
  user_regs_struct regs{};
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) {
    if (errno == ESRCH) return false;
    throw_errno("PTRACE_GETREGS", errno, kExitRunFailed);
  }
  // orig_rax -1: the kernel skips the call. At a seccomp stop the result is then what rax
  // holds; at a syscall-entry stop (no filter) the exit stop sets it (finish_refusal).
  regs.orig_rax = static_cast<unsigned long long>(-1);
  regs.rax = static_cast<unsigned long long>(-static_cast<long long>(EPERM));
  if (::ptrace(PTRACE_SETREGS, tid, nullptr, &regs) != 0) {
    if (errno == ESRCH) return false;
    throw_errno("PTRACE_SETREGS", errno, kExitRunFailed);
  }
  t.refusing = info.op == PTRACE_SYSCALL_INFO_ENTRY;
  return true;
#else
  (void)tid, (void)t, (void)info;
  return false;
#endif
}

void TraceSession::note_refused_ptrace(pid_t tid, const char* request) {
  // The program by its file, as the warning for lost privileges names it; else its name.
  std::string program = read_exe(tid);
  if (program.empty()) program = read_comm(tid);
  for (const auto& [seen, what] : refused_ptrace_)
    if (seen == program && what == request) return;
  refused_ptrace_.emplace_back(std::move(program), request);
}

void TraceSession::finish_refusal(pid_t tid, Thread& t) {
  t.refusing = false;
#if defined(__x86_64__)
  if (::ptrace(PTRACE_POKEUSER, tid, offsetof(struct user, regs.rax), -static_cast<long>(EPERM)) !=
          0 &&
      errno != ESRCH)
    throw_errno("PTRACE_POKEUSER", errno, kExitRunFailed);
#else
  (void)tid;
#endif
}

}  // namespace iobench::tracing
