// SIGINT/SIGTERM handling. The handler only records the signal (all it may safely do); the
// blocking waits in the runner and the tracer see EINTR, kill their children, and throw
// Interrupted, so destructors remove the private directory on the way out to main.
#pragma once

#include "base/error.h"

namespace iobench {

/// Installs the handlers (without SA_RESTART, so blocking waits return EINTR) and ignores
/// SIGPIPE (a closed stdout is an EPIPE write error, not a death by signal) and SIGXFSZ.
void install_interrupt_handlers();

/// Undoes the SIG_IGN dispositions above, before a user's command is run.
void restore_default_signals();

/// The signal that asked us to stop, or 0.
int interrupt_signal() noexcept;

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
