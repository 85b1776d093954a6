// rr's WaitStatus idea: decode waitpid's int once, into named cases, so the tracer's loop
// is a switch over what happened rather than scattered WIFSTOPPED/WSTOPSIG arithmetic.
#pragma once

#include <string>

namespace iobench::tracing {

class WaitStatus {
 public:
  enum class Kind {
    kExited,              // exit_code()
    kFatalSignal,         // fatal_signal()
    kSignalDeliveryStop,  // stop_signal(): a signal is about to be delivered
    kGroupStop,           // stop_signal(): SIGSTOP/SIGTSTP/SIGTTIN/SIGTTOU stopped the group
    kSyscallStop,         // syscall entry or exit, after PTRACE_SYSCALL (TRACESYSGOOD)
    kSeccompStop,         // the filter returned SECCOMP_RET_TRACE
    kPtraceEventStop,  // ptrace_event(): fork, clone, exec, or PTRACE_EVENT_STOP (not a group stop)
    kOther,            // a plain WIFCONTINUED or something we did not ask for
  };

  explicit WaitStatus(int raw) noexcept;

  Kind kind() const noexcept { return kind_; }
  int raw() const noexcept { return raw_; }
  int exit_code() const noexcept;     // kExited
  int fatal_signal() const noexcept;  // kFatalSignal
  int stop_signal() const noexcept;   // kSignalDeliveryStop, kGroupStop
  int ptrace_event() const noexcept;  // kPtraceEventStop (PTRACE_EVENT_*), kSeccompStop
  std::string describe() const;       // for error messages

 private:
  int raw_;
  Kind kind_;
};

}  // namespace iobench::tracing
