// ptrace_self: what a debugger does to start a program and to follow one. A forked child asks
// its parent to trace it (PTRACE_TRACEME, as the children of gdb and strace do), then the
// parent seizes a second child (PTRACE_SEIZE, as `strace -p` and gdb's attach do). Prints
// each outcome, "ok" or the errno: "traceme ok\nseize ok\n" untraced, EPERM for both under a
// tracer of its own (a process has one). Exit 0; 1 when a step could not even be tried.
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace {

const char* outcome(long rc, int err) { return rc == 0 ? "ok" : err == EPERM ? "EPERM" : "other"; }

/// PTRACE_TRACEME in a child, told back by its exit status: 0 ok, 1 EPERM, 2 another errno.
bool traceme() {
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    const long rc = ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    ::_exit(rc == 0 ? 0 : errno == EPERM ? 1 : 2);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return false;
  const int code = WEXITSTATUS(status);
  std::printf("traceme %s\n", code == 0 ? "ok" : code == 1 ? "EPERM" : "other");
  return true;
}

/// PTRACE_SEIZE of a child that waits to be killed.
bool seize() {
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    for (;;) ::pause();
  }
  const long rc = ::ptrace(PTRACE_SEIZE, child, nullptr, nullptr);
  const int err = errno;
  std::printf("seize %s\n", outcome(rc, err));
  ::kill(child, SIGKILL);
  int status = 0;
  return ::waitpid(child, &status, 0) == child;
}

}  // namespace

int main() {
  if (!traceme() || !seize()) {
    std::perror("ptrace_self");
    return 1;
  }
  return 0;
}
