// ptrace_parent: tries to trace its parent (the tracer) every way a pid can be named to
// ptrace: PTRACE_SEIZE, PTRACE_ATTACH, PTRACE_SEIZE with bits above the 32 the kernel reads,
// and PTRACE_SEIZE of each of the parent's other threads. Exits 0 when each fails with EPERM;
// 1 when one fails otherwise; 2 when one succeeds (exiting then detaches the tracer again, so
// a broken guard fails the test, never hangs it). Prints how many threads it tried.
#include <dirent.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

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
  // The parent's other threads (a watchdog, spinners), from /proc: a directory read, no write.
  const std::string tasks = "/proc/" + std::to_string(parent) + "/task";
  DIR* dir = ::opendir(tasks.c_str());
  if (dir == nullptr) return 1;
  int threads = 0;
  while (const dirent* e = ::readdir(dir)) {
    const long tid = std::atol(e->d_name);
    if (tid <= 0 || tid == parent) continue;
    ++threads;
    if (::syscall(SYS_ptrace, PTRACE_SEIZE, tid, 0L, 0L) == 0) return 2;
    if (errno != EPERM && errno != ESRCH) {  // ESRCH: the thread ended meanwhile
      std::perror("ptrace");
      return 1;
    }
  }
  ::closedir(dir);
  std::printf("%d\n", threads);
  return 0;
}
