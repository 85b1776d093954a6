// zombie_leader PATH: the main thread starts a second thread and exits alone (SYS_exit),
// a zombie while the process lives on. The second thread writes one line to PATH (it is
// ready) and waits for SIGINT; the handler writes one more line, and the process exits 0.
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "program_util.h"

using namespace iobench::programs;

namespace {
int g_fd = -1;
volatile sig_atomic_t g_handled = 0;

void on_sigint(int) {
  static const char kLine[] = "flush line \n";  // kLineBytes long
  if (::write(g_fd, kLine, kLineBytes) == kLineBytes) g_handled = 1;
}

void* wait_for_sigint(void*) {
  write_lines(g_fd, 1);
  const timespec nap{0, 10'000'000};
  while (g_handled == 0) ::nanosleep(&nap, nullptr);
  ::_exit(0);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  g_fd = open_out(argv[1]);
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  if (::sigaction(SIGINT, &sa, nullptr) != 0) return 3;
  pthread_t thread;
  if (::pthread_create(&thread, nullptr, wait_for_sigint, nullptr) != 0) return 4;
  ::syscall(SYS_exit, 0);  // this thread only
  return 5;
}
