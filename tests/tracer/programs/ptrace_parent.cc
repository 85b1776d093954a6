// ptrace_parent: tries to trace its parent (the tracer) every way a pid can be named to
// ptrace: PTRACE_SEIZE, PTRACE_ATTACH, and PTRACE_SEIZE with bits above the 32 the kernel
// reads. Exits 0 when each fails with EPERM; 1 when one fails otherwise; 2 when one succeeds
// (exiting then detaches the tracer again, so a broken guard fails the test, never hangs it).
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

int main() {
  const long parent = ::getppid();
  const long named[] = {parent, parent, parent | (1L << 32)};
  const long requests[] = {PTRACE_SEIZE, PTRACE_ATTACH, PTRACE_SEIZE};
  for (int i = 0; i < 3; ++i) {
    // The raw syscall: glibc's wrapper would truncate the pid to an int.
    if (::syscall(SYS_ptrace, requests[i], named[i], 0L, 0L) == 0) return 2;
    if (errno != EPERM) {
      std::perror("ptrace");
      return 1;
    }
  }
  return 0;
}
