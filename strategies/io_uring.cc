// io_uring: asynchronous writes through a submission ring (liburing), as in liburing's
// examples/io_uring-cp.c and fio's io_uring engine. The byte stream is cut into chunks of
// params.buffer_size bytes, each written at its own file offset with up to
// params.queue_depth writes in flight. It shows what batching syscalls (one io_uring_enter
// for many writes) buys over write(2) when the data is already in memory.
// The engine, and what makes it the honest best of the idea, is in uring_writer.cc.
// --sync every:N syncs after every N completed chunk writes (fdatasync(2), so the tracer
// sees it by name). --direct: aligned chunk buffers, the last chunk padded (direct_io.h).
#include <fmt/format.h>

#include <algorithm>

#include "strategies/support/uring_writer.h"

namespace iobench {
namespace {

StrategyOutcome run(const WriteJob& job) noexcept { return run_uring(job, UringMode::kEnter); }

/// Its write calls are ring enters, and the kernel's workers are charged to its CPU.
std::string note(const NoteFigures& f) {
  std::string calls = "its write calls are";
  if (f.row.write_calls)
    calls = *f.row.write_calls == 1
                ? "its 1 write call is"
                : fmt::format("its {} write calls are", f.count(*f.row.write_calls));
  std::string cpu;
  // CPU always includes the child's own start and exit; the floor measures that much.
  const double base = f.floor ? std::max(0.0, f.floor->cpu_ns - f.floor->time_ns) : 0;
  if (f.row.cpu_ns - f.row.time_ns > std::max(base, 0.1 * f.row.time_ns))
    cpu = fmt::format(
        "\n  CPU {} exceeds its {} wall time: the kernel's io-wq workers run beside it "
        "and are charged to it.",
        f.duration(f.row.cpu_ns), f.duration(f.row.time_ns));
  else
    cpu = "\n  Its CPU column includes the kernel's io-wq workers, which are charged to it.";
  return fmt::format("io_uring: {} io_uring_enter (submit and wait); the kernel does the writes.{}",
                     calls, cpu);
}

}  // namespace

// The knobs it reads (strategies/knobs.cc).
constexpr std::string_view kKnobs[] = {"buffer_size", "queue_depth", "sync", "direct"};

extern const Strategy kIoUring = {
    .name = "io_uring",
    .description = "io_uring writes of buffer_size chunks, queue_depth in flight",
    .run = run,
    .knobs = kKnobs,
    .footnote = note,
    .note_rank = 2};

}  // namespace iobench
