#include "tracer/child_launch.h"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

namespace iobench::tracing {

void run_child(const ChildPlan& plan) noexcept {
  ::close(plan.parent_end);
  char verdict = 0;
  ssize_t n = 0;
  do {
    n = ::read(plan.child_end, &verdict, 1);
  } while (n < 0 && errno == EINTR);
  // Closed before the filter exists: close is a call the filter stops on.
  ::close(plan.child_end);
  if (n != 1) ::_exit(kExitOrphaned);

  if (verdict == static_cast<char>(Verdict::kTraced)) {
    if (plan.before_filter != nullptr) (*plan.before_filter)();
    // Loaded only now that the tracer is attached: a SECCOMP_RET_TRACE verdict with no
    // tracer fails the call with ENOSYS instead of stopping it.
    bool set_no_new_privs = false;
    const int err = plan.filter->load(set_no_new_privs);
    if (set_no_new_privs) plan.report->no_new_privs.store(true);
    if (err != 0) {
      // No filter, so no seccomp stops: the tracer must stop on every syscall instead, and
      // must know before the program makes its first. The SIGSTOP is that message; the
      // tracer swallows it at its signal-delivery stop (session.cc) and reads the errno.
      plan.report->filter_errno.store(err);
      const pid_t self = static_cast<pid_t>(::syscall(SYS_getpid));
      ::syscall(SYS_tgkill, self, self, SIGSTOP);
    }
  }
  int status = kExitThrew;
  try {
    status = (*plan.main)();
  } catch (...) {
  }
  ::_exit(status);
}

bool release_child(int parent_end, Verdict verdict) noexcept {
  const char byte = static_cast<char>(verdict);
  ssize_t n = 0;
  do {
    // MSG_NOSIGNAL: a child that died before reading must not SIGPIPE the tracer.
    n = ::send(parent_end, &byte, 1, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n == 1;
}

}  // namespace iobench::tracing
