// nondumpable PATH N: makes itself non-dumpable (PR_SET_DUMPABLE 0), then writes N lines
// to PATH. A tracer without CAP_SYS_PTRACE cannot read its /proc/PID/fd.
#include <sys/prctl.h>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return 3;
  write_lines(open_out(argv[1]), arg_long(argv[2]));
  return 0;
}
