// signal_writer PATH N: writes N lines to PATH while a 1 ms SIGALRM timer interrupts it;
// the handler writes "signal line\n" (also 12 bytes) to the same fd. Keeps writing until
// the handler ran at least 3 times (exit 3 if it never does within 60 s of wall time: a bound
// for a broken tracer that swallows signals, far above any busy machine's delay).
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include "program_util.h"

using namespace iobench::programs;

namespace {
int g_fd = -1;
volatile sig_atomic_t g_handled = 0;

void on_alarm(int) {
  static const char kLine[] = "signal line\n";
  if (::write(g_fd, kLine, kLineBytes) == kLineBytes) g_handled = g_handled + 1;
}

double now_s() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  g_fd = open_out(argv[1], O_APPEND);
  struct sigaction sa {};
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGALRM, &sa, nullptr);
  const itimerval every_ms{{0, 1000}, {0, 1000}};
  ::setitimer(ITIMER_REAL, &every_ms, nullptr);
  const long n = arg_long(argv[2]);
  const double deadline = now_s() + 60;
  for (long i = 0; i < n || g_handled < 3; ++i) {
    write_lines(g_fd, 1);
    if (now_s() > deadline) return 3;
  }
  const itimerval off{};
  ::setitimer(ITIMER_REAL, &off, nullptr);
  return 0;
}
