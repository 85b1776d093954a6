#include "tracer/wait_status.h"

#include <fmt/format.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <csignal>
#include <cstring>

namespace iobench::tracing {

namespace {

bool is_stopping_signal(int sig) {
  return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

}  // namespace

WaitStatus::WaitStatus(int raw) noexcept : raw_(raw), kind_(Kind::kOther) {
  if (WIFEXITED(raw)) {
    kind_ = Kind::kExited;
  } else if (WIFSIGNALED(raw)) {
    kind_ = Kind::kFatalSignal;
  } else if (WIFSTOPPED(raw)) {
    const int sig = WSTOPSIG(raw);
    const int event = (raw >> 16) & 0xff;
    if (sig == (SIGTRAP | 0x80)) {
      kind_ = Kind::kSyscallStop;  // only TRACESYSGOOD sets bit 7
    } else if (event == PTRACE_EVENT_SECCOMP) {
      kind_ = Kind::kSeccompStop;
    } else if (event == PTRACE_EVENT_STOP && is_stopping_signal(sig)) {
      // Under PTRACE_SEIZE a group stop reports as PTRACE_EVENT_STOP with the stopping
      // signal; the initial stop of an auto-attached child and PTRACE_INTERRUPT report
      // SIGTRAP instead (kernel's do_jobctl_trap).
      kind_ = Kind::kGroupStop;
    } else if (event != 0) {
      kind_ = Kind::kPtraceEventStop;
    } else {
      kind_ = Kind::kSignalDeliveryStop;
    }
  }
}

int WaitStatus::exit_code() const noexcept { return WEXITSTATUS(raw_); }
int WaitStatus::fatal_signal() const noexcept { return WTERMSIG(raw_); }
int WaitStatus::stop_signal() const noexcept { return WSTOPSIG(raw_); }
int WaitStatus::ptrace_event() const noexcept { return (raw_ >> 16) & 0xff; }

std::string WaitStatus::describe() const {
  switch (kind_) {
    case Kind::kExited:
      return "exited " + std::to_string(exit_code());
    case Kind::kFatalSignal:
      return std::string("killed by ") + ::strsignal(fatal_signal());
    case Kind::kSignalDeliveryStop:
      return std::string("signal stop ") + ::strsignal(stop_signal());
    case Kind::kGroupStop:
      return std::string("group stop ") + ::strsignal(stop_signal());
    case Kind::kSyscallStop:
      return "syscall stop";
    case Kind::kSeccompStop:
      return "seccomp stop";
    case Kind::kPtraceEventStop:
      return "ptrace event " + std::to_string(ptrace_event());
    case Kind::kOther:
      break;
  }
  return fmt::format("wait status {:#x}", raw_);
}

}  // namespace iobench::tracing
