// WaitStatus on hand-made waitpid values: every case the tracer's loop switches on.
#include "tracer/wait_status.h"

#include <gtest/gtest.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <csignal>

namespace iobench::tracing {
namespace {

using Kind = WaitStatus::Kind;

int stopped(int sig, int event = 0) { return (event << 16) | (sig << 8) | 0x7f; }

TEST(WaitStatus, ExitAndFatalSignal) {
  const WaitStatus exited(W_EXITCODE(3, 0));
  EXPECT_EQ(exited.kind(), Kind::kExited);
  EXPECT_EQ(exited.exit_code(), 3);
  const WaitStatus killed(W_EXITCODE(0, SIGKILL));
  EXPECT_EQ(killed.kind(), Kind::kFatalSignal);
  EXPECT_EQ(killed.fatal_signal(), SIGKILL);
}

TEST(WaitStatus, Stops) {
  EXPECT_EQ(WaitStatus(stopped(SIGUSR1)).kind(), Kind::kSignalDeliveryStop);
  EXPECT_EQ(WaitStatus(stopped(SIGUSR1)).stop_signal(), SIGUSR1);
  EXPECT_EQ(WaitStatus(stopped(SIGTRAP | 0x80)).kind(), Kind::kSyscallStop);
  EXPECT_EQ(WaitStatus(stopped(SIGTRAP, PTRACE_EVENT_SECCOMP)).kind(), Kind::kSeccompStop);
  const WaitStatus fork_event(stopped(SIGTRAP, PTRACE_EVENT_FORK));
  EXPECT_EQ(fork_event.kind(), Kind::kPtraceEventStop);
  EXPECT_EQ(fork_event.ptrace_event(), PTRACE_EVENT_FORK);
  // PTRACE_EVENT_STOP: a group stop carries the stopping signal, a new tracee's first
  // stop carries SIGTRAP.
  for (int sig : {SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU}) {
    EXPECT_EQ(WaitStatus(stopped(sig, PTRACE_EVENT_STOP)).kind(), Kind::kGroupStop) << sig;
  }
  EXPECT_EQ(WaitStatus(stopped(SIGTRAP, PTRACE_EVENT_STOP)).kind(), Kind::kPtraceEventStop);
  // A plain SIGSTOP without an event is still a signal about to be delivered.
  EXPECT_EQ(WaitStatus(stopped(SIGSTOP)).kind(), Kind::kSignalDeliveryStop);
}

}  // namespace
}  // namespace iobench::tracing
