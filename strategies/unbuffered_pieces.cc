// unbuffered-pieces: one write(2) per formatted piece, three per line ("Line ", the digits,
// "\n", or with --line-length the padding and "\n"). This is what an unbuffered formatted stream
// really does: Rust's `writeln!` on a bare File issues 300,000 writes for 100,000 lines. It shows
// that the cost is per syscall, not per byte. Honest best of the idea: each piece goes straight
// from where it already is (the line buffer) to the kernel; no piece is merged with another.
// --sync every:N syncs after every N write calls (pieces, not lines: a stream that syncs
// per write does not know where a line ends). No --direct: a piece is not a block.
#include <cerrno>

#include "strategies/strategy.h"
#include "strategies/support/direct_io.h"
#include "strategies/support/line_format.h"
#include "strategies/support/sync_policy.h"

namespace iobench {
namespace {

StrategyOutcome run(const WriteJob& job) noexcept {
  if (job.params.direct)
    return direct_unsupported("a write per piece is neither block-sized nor block-aligned");
  const int fd = create_output(job);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);
  Syncer syncer(file.fd(), job.params.sync);

  // The line is formatted once and its three pieces go out from where they lie in it.
  LineBuffer line(line_format(job.params));
  if (!line.ok()) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);
  for (std::uint64_t i = 0; i < job.params.lines; ++i) {
    const std::size_t n = line.format(i);
    const std::size_t head = line.head();
    const char* const data[3] = {line.data(), line.data() + kLinePrefixLen, line.data() + head};
    const std::size_t size[3] = {kLinePrefixLen, head - kLinePrefixLen, n - head};
    for (int piece = 0; piece < 3; ++piece) {
      if (int err = write_all(file.fd(), data[piece], size[piece]))
        return outcome_errno(RunStatus::kFailed, "write", err);
      if (int err = syncer.unit_done()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
    }
  }
  if (int err = syncer.before_close()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

}  // namespace

// The knobs it reads (strategies/knobs.cc).
constexpr std::string_view kKnobs[] = {"sync", "direct"};

extern const Strategy kUnbufferedPieces = {
    .name = "unbuffered-pieces",
    .description = "one write(2) per piece: \"Line \", digits, \"\\n\" (3 per line)",
    .run = run,
    .knobs = kKnobs};

}  // namespace iobench
