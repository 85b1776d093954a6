// Ends a traced run at its deadline from a process of its own: the tracer's thread spends its
// time blocked in waitpid and cannot watch a clock, and a SIGSTOP the command sends iobench
// stops every thread of it, a watchdog thread too. The forked watchdog keeps the clock and
// kills the traced tree by itself (tracee_killer.h); a thread waits for it, and it dies with
// iobench (PR_SET_PDEATHSIG) or with the Watchdog.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "base/unique_fd.h"

namespace iobench::tracing {

class Watchdog {
 public:
  /// No timeout: no thread, no process. Called on the tracer's thread (its tracees are
  /// found by their TracerPid, that thread's id). `on_expire` runs on the watchdog's thread
  /// once the process has killed the tree (the tracees it did not know of yet).
  Watchdog(std::optional<std::chrono::nanoseconds> timeout, std::function<void()> on_expire);
  ~Watchdog();  // kills the process if the deadline has not come, and joins
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// The deadline came: set by the process before its first kill, so it holds by the time
  /// the tracer sees a tracee killed, even if iobench was stopped meanwhile.
  bool expired() const noexcept { return expired_ && (*expired_)->load(); }

 private:
  void watch(std::chrono::steady_clock::time_point deadline, pid_t tracer);

  std::optional<SharedMapping<std::atomic<bool>>> expired_;  // with a timeout
  std::function<void()> on_expire_;
  std::mutex mutex_;
  std::condition_variable forked_;
  bool started_ = false;  // the fork was tried: pid_ or fork_errno_ says how it went
  pid_t pid_ = -1;        // the process, until the thread reaps it
  int fork_errno_ = 0;
  std::thread thread_;
};

}  // namespace iobench::tracing
