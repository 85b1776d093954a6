// writer PATH N [STATUS]: N write(2) calls of one line to PATH, then exit(STATUS), or
// kill itself with signal -STATUS when STATUS is negative. Also built -static.
#include <csignal>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int fd = open_out(argv[1]);
  write_lines(fd, arg_long(argv[2]));
  const long status = argc > 3 ? arg_long(argv[3]) : 0;
  if (status < 0) (void)std::raise(static_cast<int>(-status));
  return static_cast<int>(status);
}
