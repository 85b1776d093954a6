// thread_exec PATH K PROGRAM [ARGS...]: a second thread writes K lines to PATH and then
// execs PROGRAM ARGS, while the main thread waits; the exec ends the main thread and gives
// the second one the process's pid (de_thread). Exactly K write calls before the exec, then
// PROGRAM's own.
#include <pthread.h>
#include <unistd.h>

#include "program_util.h"

using namespace iobench::programs;

namespace {
int g_fd = -1;
long g_lines = 0;
char** g_argv = nullptr;

void* write_then_exec(void*) {
  write_lines(g_fd, g_lines);
  ::execv(g_argv[0], g_argv);
  std::_Exit(127);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  g_fd = open_out(argv[1]);
  g_lines = arg_long(argv[2]);
  g_argv = argv + 3;
  pthread_t thread;
  if (pthread_create(&thread, nullptr, write_then_exec, nullptr) != 0) return 103;
  for (;;) ::pause();  // the exec ends this thread
}
