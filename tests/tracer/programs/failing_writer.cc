// failing_writer PATH N: N write(2) calls of one line, all to PATH but two to a closed fd
// (EBADF): call 3, inside the fully timed start, and call N-10, late, where the tracer
// times only a sample. A rare error in each part of the run, for the errors' estimate.
#include <unistd.h>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int fd = open_out(argv[1]);
  const long n = arg_long(argv[2]);
  const int closed = ::dup(fd);  // a number that names no file once closed
  ::close(closed);
  for (long i = 1; i <= n; ++i) {
    const bool fails = i == 3 || i == n - 10;
    const ssize_t r = ::write(fails ? closed : fd, "line 000000\n", kLineBytes);
    if (r != (fails ? -1 : kLineBytes)) return 101;
  }
  return 0;
}
