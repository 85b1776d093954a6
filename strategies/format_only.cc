// format-only: formats every line and writes none of them. It is the floor under every
// other row: what the shared formatter costs on its own, plus the same create and close the
// others pay, so the I/O share of any strategy is its time minus this one's.
// Honest best of the idea: the same LineStream into a reused 64 KiB buffer that a good
// buffered writer would use, with a compiler barrier so the formatting is really done.
#include <cerrno>

#include "line_format.h"
#include "strategy.h"

namespace iobench {
namespace {

constexpr std::size_t kBufferSize = 64 * kKiB;

StrategyOutcome run(const WriteJob& job) noexcept {
  const int fd = create_output(job.path);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);

  char buf[kBufferSize];
  std::uint64_t produced = 0;
  LineStream lines(0, job.params.lines);
  while (!lines.done()) {
    produced += lines.fill(buf, sizeof buf);
    // The bytes are never read, so without this barrier the optimiser may drop the stores,
    // and with them most of the formatting; "memory" makes it assume the buffer is used.
    asm volatile("" : : "r"(buf) : "memory");
  }
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  StrategyOutcome out = outcome_ok();
  out.produced_bytes = produced;
  return out;
}

}  // namespace

extern const Strategy kFormatOnly = {"format-only",
                                     "formats every line into a 64 KiB buffer, writes nothing", run,
                                     /*writes_file=*/false};

}  // namespace iobench
