// own_filter PATH N: loads a seccomp filter of its own that fails write(2) on fd -1 with
// EPERM (and allows everything else), then makes N write(2) calls of one line to PATH, each
// checked. A tracer that borrowed this program's registers for a write(-1) of its own would
// get EPERM from this filter before its own could stop the call, and this program would see
// the wrong result (exit 101). Exits 102 if the filter cannot be loaded.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cerrno>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int fd = open_out(argv[1]);
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_write, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof(code) / sizeof(code[0])), code};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 102;
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) return 102;
  write_lines(fd, arg_long(argv[2]));
  return 0;
}
