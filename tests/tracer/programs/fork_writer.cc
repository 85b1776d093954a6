// fork_writer PATH N: the parent writes N lines to PATH, a forked child 2N lines to
// PATH.child; the parent waits for the child and exits with its status.
#include <sys/wait.h>

#include <string>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const long n = arg_long(argv[2]);
  const pid_t child = ::fork();
  if (child < 0) return 3;
  if (child == 0) {
    write_lines(open_out((std::string(argv[1]) + ".child").c_str()), 2 * n);
    ::_exit(0);
  }
  write_lines(open_out(argv[1]), n);
  int status = 0;
  if (::waitpid(child, &status, 0) != child) return 4;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
}
