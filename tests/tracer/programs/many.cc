// many files DIR N: one write(2) to each of N files DIR/f0 .. DIR/f<N-1>, each opened, written
// and closed in turn.
// many children PATH N: N children one after another, each one write(2) of a line to PATH
// (O_APPEND), waited for before the next. Both stretch the tracers' tables (docs/tracer.md
// "Limits").
#include <sys/wait.h>

#include <string>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const std::string mode = argv[1], where = argv[2];
  const long n = arg_long(argv[3]);
  if (mode == "files") {
    for (long i = 0; i < n; ++i) {
      const int fd = open_out((where + "/f" + std::to_string(i)).c_str());
      write_lines(fd, 1);
      ::close(fd);
    }
    return 0;
  }
  if (mode != "children") return 2;
  const int fd = open_out(where.c_str(), O_APPEND);
  for (long i = 0; i < n; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) return 3;
    if (pid == 0) {
      write_lines(fd, 1);
      ::_exit(0);
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || status != 0) return 4;
  }
  return 0;
}
