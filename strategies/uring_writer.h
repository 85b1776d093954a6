// The io_uring engine shared by io_uring.cc and io_uring_sqpoll.cc: the byte stream cut
// into chunks of params.buffer_size bytes, each written at its own file offset, up to
// params.queue_depth in flight. The two strategies differ only in who submits and how
// completions are waited for (UringMode).
#pragma once

#include "strategy.h"

namespace iobench {

enum class UringMode {
  /// One io_uring_enter per round both submits and waits (liburing's io_uring-cp.c).
  kEnter,
  /// IORING_SETUP_SQPOLL: a kernel thread polls the submission ring, so submitting is a
  /// store to shared memory, and completions are polled from the completion ring. Exactly
  /// one io_uring_enter, to wake the poller at the start (it sleeps soon after creation);
  /// none after that while it stays awake (it sleeps after 1 s without work).
  kSqpoll,
};

/// Runs the whole job (create, write, --sync, --direct, close). Never throws.
StrategyOutcome run_uring(const WriteJob& job, UringMode mode) noexcept;

}  // namespace iobench
