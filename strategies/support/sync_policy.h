// --sync for every strategy: counts the strategy's write units and calls fdatasync(2) when
// the policy says so. fdatasync, not fsync: the data and the size that reads need, without
// the timestamps, which is what a database or a log writer asks for. Timed inside the run
// and counted by the tracer under its own name (README "Durability and direct I/O").
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "strategies/strategy.h"

namespace iobench {

class Syncer {
 public:
  Syncer(int fd, SyncPolicy policy) noexcept : fd_(fd), policy_(policy) {
    if (policy_.mode == SyncMode::kEvery && policy_.every == 0) policy_.every = 1;
  }

  /// Whether the next unit_done() will sync: stdio must flush its FILE before that.
  bool due_next() const noexcept {
    return policy_.mode == SyncMode::kEvery && (units_ + 1) % policy_.every == 0;
  }

  /// One write unit is done (a write call, a flushed buffer, a completed ring write, an
  /// unmapped window); syncs every `every` units. Returns 0 or an errno value.
  int unit_done() noexcept {
    if (policy_.mode == SyncMode::kNone) return 0;
    ++units_;
    dirty_ = true;
    return policy_.mode == SyncMode::kEvery && units_ % policy_.every == 0 ? sync() : 0;
  }

  /// Before close: one fdatasync covering whatever the last scheduled one did not (for
  /// kEnd, everything). Skipped only when the last unit was just synced.
  int before_close() noexcept { return policy_.mode != SyncMode::kNone && dirty_ ? sync() : 0; }

 private:
  int sync() noexcept {
    dirty_ = false;
    while (::fdatasync(fd_) < 0) {
      if (errno != EINTR) return errno;
    }
    return 0;
  }

  int fd_;
  SyncPolicy policy_;
  std::uint64_t units_ = 0;
  bool dirty_ = true;  // a new file: even an empty one is not durable until synced
};

}  // namespace iobench
