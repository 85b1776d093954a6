// mixed_writer PATH N: N rounds of write, writev and pwrite64 of one line each to PATH,
// then one write to a pipe of its own and one to stdout, fsync and ftruncate of PATH. Its
// write_calls (README "What counts as a write") are 3 * N: the pipe, stdout, the sync and
// the truncate do not count.
#include <sys/uio.h>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int fd = open_out(argv[1]);
  const long rounds = arg_long(argv[2]);
  char line[] = "line 000000\n";
  off_t end = 0;
  for (long i = 0; i < rounds; ++i) {
    if (::write(fd, line, kLineBytes) != kLineBytes) return 101;
    iovec halves[2] = {{line, kLineBytes / 2}, {line + kLineBytes / 2, kLineBytes / 2}};
    if (::writev(fd, halves, 2) != kLineBytes) return 102;
    end += 2 * kLineBytes;
    // At the end, then the offset after it (pwrite leaves it): three lines per round.
    if (::pwrite(fd, line, kLineBytes, end) != kLineBytes) return 103;
    end += kLineBytes;
    if (::lseek(fd, end, SEEK_SET) != end) return 104;
  }
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0 || ::write(ends[1], "x", 1) != 1) return 105;
  if (::write(STDOUT_FILENO, "done\n", 5) != 5) return 106;
  if (::fsync(fd) != 0 || ::ftruncate(fd, end) != 0) return 107;
  return 0;
}
