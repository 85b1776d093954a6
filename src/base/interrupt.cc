#include "base/interrupt.h"

#include <signal.h>
#include <string.h>

#include <csignal>
#include <string>

namespace iobench {
namespace {
volatile std::sig_atomic_t g_signal = 0;

void on_signal(int sig) { g_signal = sig; }
}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: waitpid/poll must return EINTR
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

int interrupt_signal() noexcept { return g_signal; }

Interrupted::Interrupted(int sig)
    : Error(std::string("interrupted by SIG") + ::sigabbrev_np(sig), 128 + sig), sig_(sig) {}

void throw_if_interrupted() {
  if (int sig = g_signal) throw Interrupted(sig);
}

}  // namespace iobench
