// stop_self PATH N: N lines, then SIGSTOP to itself; a forked helper waits until it is
// stopped and sends SIGCONT; then N more lines. Exit 0 once the helper is reaped.
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include <string>

#include "program_util.h"

using namespace iobench::programs;

namespace {
char state_of(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return '?';
  char state = '?';
  // "pid (comm) S ..." and comm is ours, without spaces or parentheses.
  if (std::fscanf(f, "%*d %*s %c", &state) != 1) state = '?';
  (void)std::fclose(f);
  return state;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int fd = open_out(argv[1], O_APPEND);
  const long n = arg_long(argv[2]);
  write_lines(fd, n);
  const pid_t self = ::getpid();
  const pid_t helper = ::fork();
  if (helper < 0) return 3;
  if (helper == 0) {
    const timespec ms{0, 1000000};
    for (int i = 0; i < 60000; ++i) {  // a minute at least: a bound, not a deadline
      const char s = state_of(self);
      if (s == 'T' || s == 't') {
        ::kill(self, SIGCONT);
        ::_exit(0);
      }
      ::nanosleep(&ms, nullptr);
    }
    ::kill(self, SIGCONT);
    ::_exit(1);  // never saw the stop
  }
  (void)::raise(SIGSTOP);
  write_lines(fd, n);
  int status = 0;
  if (::waitpid(helper, &status, 0) != helper) return 4;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
}
