// io_uring-sqpoll: the same chunked writes as io_uring, with IORING_SETUP_SQPOLL: a kernel
// thread polls the submission ring, so submitting is a store to shared memory, and the
// program polls the completion ring instead of waiting in io_uring_enter. The poller goes
// to sleep soon after it is created, so a no-op wakes it first, in the run's one
// io_uring_enter (always exactly 1 write call, whatever the poller's timing); while it stays
// awake (it sleeps after 1 s without work) there is no other. What an expert reaches for
// when syscalls are the cost.
// The price is a CPU: the poller spins on one core and the program spins for completions
// on another. The poller is a thread of the process, so its CPU time is charged to the run
// and the row's CPU column shows it (it can exceed the wall time); on a machine with fewer
// free cores than spinners it loses to plain io_uring. Unsupported where SQPOLL is refused
// (before 5.11 it needs CAP_SYS_ADMIN and registered files).
#include <fmt/format.h>

#include "strategies/support/uring_writer.h"

namespace iobench {
namespace {

StrategyOutcome run(const WriteJob& job) noexcept { return run_uring(job, UringMode::kSqpoll); }

/// One enter wakes the poller; the poller's spinning is charged to its CPU.
std::string note(const NoteFigures& f) {
  std::string calls = "its write calls wake";
  if (f.row.write_calls)
    calls = *f.row.write_calls == 1
                ? "its 1 write call is the io_uring_enter that wakes"
                : fmt::format("its {} write calls are io_uring_enters that wake",
                              f.count(*f.row.write_calls));
  return fmt::format(
      "io_uring-sqpoll: {} the kernel thread\n"
      "  polling the ring; after that, submitting is a store to memory. The price is CPU: "
      "that\n"
      "  thread spins and is charged to it (CPU {}, wall {}).",
      calls, f.duration(f.row.cpu_ns), f.duration(f.row.time_ns));
}

}  // namespace

// The knobs it reads (strategies/knobs.cc).
constexpr std::string_view kKnobs[] = {"buffer_size", "queue_depth", "sync", "direct"};

extern const Strategy kIoUringSqpoll = {
    .name = "io_uring-sqpoll",
    .description =
        "io_uring with a kernel SQ polling thread: one io_uring_enter to wake it, no other",
    .run = run,
    .knobs = kKnobs,
    .footnote = note,
    .note_rank = 3};

}  // namespace iobench
