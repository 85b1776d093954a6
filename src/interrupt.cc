#include "interrupt.h"

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
}

int interrupt_signal() noexcept { return g_signal; }

Interrupted::Interrupted(int sig)
    : Error(std::string("interrupted by ") + ::sigabbrev_np(sig), 128 + sig), sig_(sig) {}

void throw_if_interrupted() {
  if (int sig = g_signal) throw Interrupted(sig);
}

}  // namespace iobench
