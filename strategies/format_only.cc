// format-only: formats every line and writes none of them. It is the floor under every
// other row: what the shared formatter costs on its own, plus the same create and close the
// others pay, so the I/O share of any strategy is its time minus this one's.
// Honest best of the idea: the same LineStream into a reused 64 KiB buffer that a good
// buffered writer would use, with a compiler barrier so the formatting is really done.
// Under --sync and --direct it pays the same fixed costs as the others: the file is opened
// with O_DIRECT (unsupported where that is refused), and any policy but none ends with one
// fdatasync of the new, empty file.
#include <fmt/format.h>

#include <cerrno>

#include "strategies/strategy.h"
#include "strategies/support/direct_io.h"
#include "strategies/support/line_format.h"
#include "strategies/support/sync_policy.h"

namespace iobench {
namespace {

constexpr std::size_t kBufferSize = 64 * kKiB;
static_assert(kMaxLineLength <= kBufferSize,
              "the longest line fits: fill returns 0 only at the end");

/// Formats every line into the reused buffer and returns how many bytes that made. Its own
/// function, so that the loop's registers do not depend on what run() keeps live around it
/// (inlined, the loop spilled two more values per line: 2% more instructions under callgrind).
[[gnu::noinline]] std::uint64_t format_all(std::uint64_t count, LineFormat format) noexcept {
  char buf[kBufferSize];
  std::uint64_t produced = 0;
  LineStream lines(0, count, format);
  while (!lines.done()) {
    produced += lines.fill(buf, sizeof buf);
    // The bytes are never read, so without this barrier the optimiser may drop the stores,
    // and with them most of the formatting; "memory" makes it assume the buffer is used.
    asm volatile("" : : "r"(buf) : "memory");
  }
  return produced;
}

StrategyOutcome run(const WriteJob& job) noexcept {
  std::size_t align = 1;
  StrategyOutcome refused;
  const int fd = create_job_output(job, &align, &refused);
  if (fd < 0) return refused;
  OutputFile file(fd);

  const std::uint64_t produced = format_all(job.params.lines, line_format(job.params));
  if (int err = Syncer(file.fd(), job.params.sync).before_close())
    return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  StrategyOutcome out = outcome_ok();
  out.produced_bytes = produced;
  return out;
}

/// The floor: what every other row costs beyond it is getting the bytes into the file.
std::string note(const NoteFigures& f) {
  return fmt::format(
      "format-only: the floor: formatting alone, {} and no file writes. What a row takes beyond\n"
      "  it is the cost of getting the bytes into the file.",
      f.duration(f.row.time_ns));
}

}  // namespace

// The knobs it reads (strategies/knobs.cc).
constexpr std::string_view kKnobs[] = {"sync", "direct"};

extern const Strategy kFormatOnly = {
    .name = "format-only",
    .description = "formats every line into a 64 KiB buffer, writes nothing",
    .run = run,
    .writes_file = false,  // the parent checks produced_bytes instead of the file
    .knobs = kKnobs,
    .role = StrategyRole::kFloor,
    .footnote = note,
    .note_rank = 5};

}  // namespace iobench
