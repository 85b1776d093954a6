#include "base/interrupt.h"

#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>

#include <cerrno>
#include <csignal>
#include <string>

namespace iobench {
namespace {
volatile std::sig_atomic_t g_signal = 0;

// FirstInterruptToCommand's state, shared with the handler.
enum Hold : int { kOff, kHolding, kHeld, kTaken };
volatile std::sig_atomic_t g_hold = kOff;
volatile std::sig_atomic_t g_command = 0;  // the traced command's pid (a pid_t is an int)
volatile std::sig_atomic_t g_sender_code = 0;
volatile std::sig_atomic_t g_sender_pid = 0;

void on_signal(int sig, siginfo_t* info, void* /*context*/) {
  if (sig == SIGINT && g_hold == kHolding) {
    g_sender_code = info->si_code;
    g_sender_pid = info->si_pid;
    g_hold = kHeld;
    // A stop the tracer's waitpid returns for. Only the tracer's thread may ask: the
    // helper threads start with these signals blocked (InterruptsOffForNewThreads).
    const int saved = errno;
    (void)::ptrace(PTRACE_INTERRUPT, static_cast<pid_t>(g_command), nullptr, nullptr);
    errno = saved;
    return;
  }
  g_signal = sig;
}
}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sigemptyset(&sa.sa_mask);
  // SA_SIGINFO: the sender tells one Ctrl-C to a process group from two. No SA_RESTART:
  // waitpid/poll must return EINTR.
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // A file-size limit (RLIMIT_FSIZE) must fail the write with EFBIG, a failed row with a
  // reason, not kill the child.
  signal(SIGXFSZ, SIG_IGN);
}

void restore_default_signals() {
  // SIG_IGN survives exec: a traced command must get the dispositions it would get from a
  // shell, or `iobench trace -- yes | head` would not behave as `yes | head`.
  signal(SIGPIPE, SIG_DFL);
  signal(SIGXFSZ, SIG_DFL);
}

InterruptsOffForNewThreads::InterruptsOffForNewThreads() noexcept {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  (void)::pthread_sigmask(SIG_BLOCK, &set, &saved_);
}

// A signal that came meanwhile is delivered here, on the creating thread, as it should be.
InterruptsOffForNewThreads::~InterruptsOffForNewThreads() {
  (void)::pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

int interrupt_signal() noexcept { return g_signal; }

FirstInterruptToCommand::FirstInterruptToCommand(pid_t command) noexcept {
  g_command = command;
  g_hold = kHolding;
}

FirstInterruptToCommand::~FirstInterruptToCommand() { command_ended(); }

std::optional<SignalSender> FirstInterruptToCommand::take() noexcept {
  if (g_hold != kHeld) return std::nullopt;
  // The handler cannot run again before kTaken with anything but a second SIGINT, which
  // sees kHeld and asks us to stop: the sender read here is the first one's.
  SignalSender sender{g_sender_code, static_cast<pid_t>(g_sender_pid)};
  g_hold = kTaken;
  return sender;
}

void FirstInterruptToCommand::command_ended() noexcept {
  // A SIGINT held but not passed on is dropped: the command it was for has ended.
  g_hold = kOff;
  g_command = 0;
}

Interrupted::Interrupted(int sig)
    : Error(std::string("interrupted by SIG") + ::sigabbrev_np(sig), 128 + sig), sig_(sig) {}

void throw_if_interrupted() {
  if (int sig = g_signal) throw Interrupted(sig);
}

}  // namespace iobench
