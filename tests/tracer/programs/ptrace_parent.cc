// ptrace_parent: tries to trace its parent (the tracer) every way a pid can be named to
// ptrace: PTRACE_SEIZE, PTRACE_ATTACH, PTRACE_SEIZE with bits above the 32 the kernel reads,
// and PTRACE_SEIZE of each of the parent's other threads. Exits 0 when each fails with EPERM;
// 1 when one fails otherwise; 2 when one succeeds (exiting then detaches the tracer again, so
// a broken guard fails the test, never hangs it). Prints how many threads it tried.
// ptrace_parent --int80: the same through the i386 ABI (`int $0x80` from this 64-bit
// program, i386 number 26), which reads 32-bit arguments (so no bits above 32 to try).
#include <dirent.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

bool g_int80 = false;

/// ptrace(request, pid, 0, 0): 0 or -1 with errno, as syscall(2) answers.
long try_ptrace(long request, long pid) {
  if (!g_int80) return ::syscall(SYS_ptrace, request, pid, 0L, 0L);  // no int truncation
  long ret = 26;  // i386 ptrace: eax = number, ebx, ecx, edx, esi = arguments
  asm volatile("int $0x80" : "+a"(ret) : "b"(request), "c"(pid), "d"(0L), "S"(0L) : "memory");
  const int result = static_cast<int>(ret);
  if (result >= 0) return result;
  errno = -result;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  g_int80 = argc > 1 && std::strcmp(argv[1], "--int80") == 0;
  const long parent = ::getppid();
  const long named[] = {parent, parent, parent | (1L << 32)};
  const long requests[] = {PTRACE_SEIZE, PTRACE_ATTACH, PTRACE_SEIZE};
  for (int i = 0; i < (g_int80 ? 2 : 3); ++i) {
    if (try_ptrace(requests[i], named[i]) == 0) return 2;
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
    if (try_ptrace(PTRACE_SEIZE, tid) == 0) return 2;
    if (errno != EPERM && errno != ESRCH) {  // ESRCH: the thread ended meanwhile
      std::perror("ptrace");
      return 1;
    }
  }
  ::closedir(dir);
  std::printf("%d\n", threads);
  return 0;
}
