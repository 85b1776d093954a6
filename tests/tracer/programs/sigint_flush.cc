// sigint_flush PATH N MODE: a program that flushes on Ctrl-C. Writes one line to PATH (it is
// ready), then waits; its SIGINT handler writes N more lines (a write(2) each). MODE:
//   count  after the first SIGINT, waits for PATH.done to exist and 200 ms more (a second
//          SIGINT would be counted too), then exits with the number of SIGINTs it handled:
//          1 is "exactly one Ctrl-C".
//   die    dies of the SIGINT once its handler ran (128 + 2 to a shell).
//   hang   starts a sleeping child first, then ignores every further SIGINT and sleeps for
//          ever: only a kill ends the two.
#include <signal.h>
#include <string.h>
#include <time.h>

#include <string>

#include "program_util.h"

using namespace iobench::programs;

namespace {
int g_fd = -1;
long g_lines = 0;
volatile sig_atomic_t g_handled = 0;

void on_sigint(int) {
  static const char kLine[] = "flush line \n";  // kLineBytes long
  for (long i = 0; i < g_lines; ++i) {
    if (::write(g_fd, kLine, kLineBytes) != kLineBytes) ::_exit(101);
  }
  g_handled = g_handled + 1;
}

void sleep_ms(long ms) {
  timespec left{ms / 1000, (ms % 1000) * 1'000'000};
  while (::nanosleep(&left, &left) != 0) {
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  g_fd = open_out(argv[1]);
  g_lines = arg_long(argv[2]);
  const char* mode = argv[3];
  if (::strcmp(mode, "hang") == 0 && ::fork() == 0) {
    for (;;) ::pause();
  }
  // Blocked until sigsuspend: a SIGINT can never land between the test and the wait.
  sigset_t block, during;
  ::sigemptyset(&block);
  ::sigaddset(&block, SIGINT);
  ::sigprocmask(SIG_BLOCK, &block, &during);
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  ::sigaction(SIGINT, &sa, nullptr);
  write_lines(g_fd, 1);
  while (g_handled == 0) ::sigsuspend(&during);
  ::sigprocmask(SIG_SETMASK, &during, nullptr);
  if (::strcmp(mode, "die") == 0) {
    ::signal(SIGINT, SIG_DFL);
    ::raise(SIGINT);
  } else if (::strcmp(mode, "hang") == 0) {
    for (;;) ::pause();
  }
  const std::string done = std::string(argv[1]) + ".done";
  while (::access(done.c_str(), F_OK) != 0) sleep_ms(1);
  sleep_ms(200);
  return g_handled;
}
