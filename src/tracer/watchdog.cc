#include "tracer/watchdog.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "base/error.h"
#include "base/interrupt.h"
#include "base/process.h"
#include "tracer/tracee_killer.h"

namespace iobench::tracing {
namespace {

/// The watchdog process: sleeps to the deadline, then kills every tracee of `tracer` until
/// none is left running. Async-signal-safe only (a fork of a threaded process).
[[noreturn]] void run_watchdog(pid_t iobench, pid_t tracer, timespec deadline,
                               std::atomic<bool>* expired) {
  // Dies with iobench; a SIGKILLed iobench may have gone before the request took.
  (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != iobench) ::_exit(1);
  // Nothing but SIGKILL ends it (a Ctrl-C, a SIGTSTP do not): the deadline is wall time.
  sigset_t all;
  sigfillset(&all);
  (void)::sigprocmask(SIG_SETMASK, &all, nullptr);
  // No copy of iobench's pipes and streams: a reader waiting for their end must not wait
  // for us.
  (void)::close_range(0, ~0U, 0);
  (void)::prctl(PR_SET_NAME, "iobench-timeout");
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr) == EINTR) {
  }
  expired->store(true);
  // A killed tracee ends at once (SIGKILL ends even a ptrace stop); a fork under way may
  // still add one: again, until a pass finds none running, for a second at most.
  const timespec pause{0, 10'000'000};
  for (int pass = 0; pass < 100 && kill_tracees_of(tracer) > 0; ++pass)
    ::nanosleep(&pause, nullptr);
  ::_exit(0);
}

timespec to_timespec(std::chrono::steady_clock::time_point t) {
  // steady_clock is CLOCK_MONOTONIC (libstdc++ and libc++ on Linux).
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch());
  return {static_cast<time_t>(ns.count() / 1'000'000'000),
          static_cast<long>(ns.count() % 1'000'000'000)};
}

}  // namespace

Watchdog::Watchdog(std::optional<std::chrono::nanoseconds> timeout, std::function<void()> on_expire)
    : on_expire_(std::move(on_expire)) {
  if (!timeout) return;
  // Without it the timeout would never fire: a run that cannot be bounded does not start.
  if (!expired_.emplace()) throw_spawn_error("a shared mapping for the timeout", errno);
  const auto deadline = std::chrono::steady_clock::now() + *timeout;
  const pid_t tracer = ::gettid();
  try {
    const InterruptsOffForNewThreads off;
    thread_ = std::thread([this, deadline, tracer] { watch(deadline, tracer); });
  } catch (const std::system_error& e) {
    throw_spawn_error("a thread for the timeout", e.code().value());
  }
  std::unique_lock lock(mutex_);
  forked_.wait(lock, [this] { return started_; });
  if (pid_ > 0) return;
  lock.unlock();
  thread_.join();
  throw_spawn_error("fork for the timeout", fork_errno_);
}

void Watchdog::watch(std::chrono::steady_clock::time_point deadline, pid_t tracer) {
  // Forked from this thread, the process is its child alone: the tracer's wait4(-1) passes
  // __WNOTHREAD and never reaps it.
  const pid_t iobench = ::getpid();
  const timespec at = to_timespec(deadline);
  pid_t pid = -1;
  {
    std::lock_guard lock(mutex_);
    pid = ::fork();
    if (pid == 0) run_watchdog(iobench, tracer, at, expired_->get());
    if (pid < 0) fork_errno_ = errno;
    pid_ = pid;
    started_ = true;
  }
  forked_.notify_one();
  if (pid < 0) return;
  // Waited for without reaping, then reaped under the lock: the destructor's kill can never
  // name a pid that was reaped, and so reused.
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  int status = 0;
  {
    std::lock_guard lock(mutex_);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) on_expire_();
}

Watchdog::~Watchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    if (pid_ > 0) ::kill(pid_, SIGKILL);
  }
  thread_.join();
}

}  // namespace iobench::tracing
