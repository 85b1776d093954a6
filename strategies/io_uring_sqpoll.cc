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
#include "strategies/support/uring_writer.h"

namespace iobench {
namespace {

StrategyOutcome run(const WriteJob& job) noexcept { return run_uring(job, UringMode::kSqpoll); }

}  // namespace

// The knobs it reads (src/cli/knobs.cc).
constexpr std::string_view kKnobs[] = {"buffer_size", "queue_depth", "sync", "direct"};

extern const Strategy kIoUringSqpoll = {
    "io_uring-sqpoll",
    "io_uring with a kernel SQ polling thread: one io_uring_enter to wake it, no other", run,
    /*writes_file=*/true, kKnobs};

}  // namespace iobench
