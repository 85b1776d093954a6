// SIGINT/SIGTERM handling. The handler only records the signal (all it may safely do); the
// blocking waits in the runner and the tracer see EINTR, kill their children, and throw
// Interrupted, so destructors remove the private directory on the way out to main.
// The one exception is Ctrl-C under `iobench trace` (FirstInterruptToCommand, below).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <optional>

#include "base/error.h"

namespace iobench {

/// Installs the handlers (without SA_RESTART, so blocking waits return EINTR) and ignores
/// SIGPIPE (a closed stdout is an EPIPE write error, not a death by signal) and SIGXFSZ.
void install_interrupt_handlers();

/// Undoes the SIG_IGN dispositions above, before a user's command is run.
void restore_default_signals();

/// Around the construction of a helper thread (a watchdog, a spinner): SIGINT, SIGTERM and
/// SIGHUP are blocked on the creating thread while the scope lives, so the new thread starts
/// with them blocked (it inherits the mask) and they are always handled on the thread whose
/// blocking wait they must interrupt. Blocking them first thing in the new thread would
/// leave a window in which the handler runs there: its PTRACE_INTERRUPT would fail (only
/// the tracer thread may) and the tracer's wait would see no EINTR.
class InterruptsOffForNewThreads {
 public:
  InterruptsOffForNewThreads() noexcept;
  ~InterruptsOffForNewThreads();  // the creating thread's mask as it was
  InterruptsOffForNewThreads(const InterruptsOffForNewThreads&) = delete;
  InterruptsOffForNewThreads& operator=(const InterruptsOffForNewThreads&) = delete;

 private:
  sigset_t saved_{};
};

/// The signal that asked us to stop, or 0.
int interrupt_signal() noexcept;

/// Who sent a signal (siginfo's si_code and si_pid): a terminal's Ctrl-C is SI_KERNEL from
/// pid 0, a kill(2) is SI_USER from its caller. One Ctrl-C to a process group reaches every
/// member with the same sender.
struct SignalSender {
  int code = 0;
  pid_t pid = 0;
  bool operator==(const SignalSender&) const = default;
};

/// Ctrl-C as strace does it (README "Ctrl-C"): while a scope lives, the first SIGINT belongs
/// to the traced command. It is held for the tracer to pass on (take()), and does not ask
/// iobench to stop; a second SIGINT does, as ever. SIGTERM and SIGHUP are unchanged.
/// One scope at a time, made and used on the thread that traces `command`.
class FirstInterruptToCommand {
 public:
  /// `command` is the traced command's main process. The handler PTRACE_INTERRUPTs it: the
  /// tracer, blocked in waitpid, hears of the held SIGINT at the command's next stop, even
  /// when the signal landed just before it blocked and the command sleeps. A command no
  /// tracer stops (the kernel clock's) refuses the request; its waiter's ppoll hears EINTR.
  explicit FirstInterruptToCommand(pid_t command) noexcept;
  ~FirstInterruptToCommand();
  FirstInterruptToCommand(const FirstInterruptToCommand&) = delete;
  FirstInterruptToCommand& operator=(const FirstInterruptToCommand&) = delete;

  /// The held SIGINT's sender, once; nullopt when none is held (or it was taken).
  std::optional<SignalSender> take() noexcept;
  /// The command is gone: from now on the first SIGINT asks iobench to stop, as any other.
  void command_ended() noexcept;
};

/// Thrown when a run was interrupted; main exits with 128 + signal.
class Interrupted : public Error {
 public:
  explicit Interrupted(int sig);
  int signal() const noexcept { return sig_; }

 private:
  int sig_;
};

/// Throws Interrupted if a signal asked us to stop.
void throw_if_interrupted();

}  // namespace iobench
