// io_uring: asynchronous writes through a submission ring (liburing), as in liburing's
// examples/io_uring-cp.c and fio's io_uring engine. The byte stream is cut into chunks of
// params.buffer_size bytes, each written at its own file offset with up to
// params.queue_depth writes in flight. It shows what batching syscalls (one io_uring_enter
// for many writes) buys over write(2) when the data is already in memory.
// The engine, and what makes it the honest best of the idea, is in uring_writer.cc.
// --sync every:N syncs after every N completed chunk writes (fdatasync(2), so the tracer
// sees it by name). --direct: aligned chunk buffers, the last chunk padded (direct_io.h).
#include "strategies/support/uring_writer.h"

namespace iobench {
namespace {

StrategyOutcome run(const WriteJob& job) noexcept { return run_uring(job, UringMode::kEnter); }

}  // namespace

// The knobs it reads (src/cli/knobs.cc).
constexpr std::string_view kKnobs[] = {"buffer_size", "queue_depth", "sync", "direct"};

extern const Strategy kIoUring = {"io_uring",
                                  "io_uring writes of buffer_size chunks, queue_depth in flight",
                                  run, /*writes_file=*/true, kKnobs};

}  // namespace iobench
