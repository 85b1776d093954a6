// Ctrl-C as strace does it: the first SIGINT goes to the traced command, whose handler may
// still write (and be counted); iobench reports once the command is gone. A terminal sends
// SIGINT to the whole foreground process group, so the command may already have its own
// (a signal-delivery stop, injected like any other): it must then not get a second one.
#include <signal.h>
#include <sys/ptrace.h>

#include "tracer/session.h"

namespace iobench::tracing {

void TraceSession::take_first_interrupt() noexcept {
  if (!first_interrupt_) return;
  if (auto sender = first_interrupt_->take()) to_pass_on_ = sender;
}

void TraceSession::note_main_signal(const WaitStatus& status) {
  if (status.kind() != WaitStatus::Kind::kSignalDeliveryStop || status.stop_signal() != SIGINT)
    return;
  siginfo_t info{};
  if (::ptrace(PTRACE_GETSIGINFO, main_pid_, nullptr, &info) != 0) return;
  main_sigint_ = SignalSender{info.si_code, info.si_pid};
}

void TraceSession::pass_on_interrupt(pid_t tid) {
  // The main child is stopped (the handler's PTRACE_INTERRUPT makes sure it stops soon), so
  // every SIGINT it has taken has shown as a delivery stop by now, and none is taken while
  // we decide. One from the same sender as ours is the same Ctrl-C: the group's. Otherwise
  // it gets ours; one still pending (the group's, not yet taken) absorbs it, since a
  // standard signal is queued once.
  const bool reached = main_sigint_.has_value() && *main_sigint_ == *to_pass_on_;
  main_sigint_.reset();
  to_pass_on_.reset();
  if (!reached) ::kill(tid, SIGINT);  // our own unreaped child: its pid is still its own
}

}  // namespace iobench::tracing
