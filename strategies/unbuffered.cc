// unbuffered: one write(2) per line. The baseline every buffering scheme is measured
// against: each line pays a full syscall, which is what an unbuffered stream costs.
// Honest best of the idea: the line is formatted once into a stack buffer and handed to
// the kernel whole, with no allocation and no extra copies.
// --sync every:N syncs after every N lines (N write calls). No --direct: a line is not a block.
#include <cerrno>

#include "strategies/strategy.h"
#include "strategies/support/direct_io.h"
#include "strategies/support/line_format.h"
#include "strategies/support/sync_policy.h"

namespace iobench {
namespace {

StrategyOutcome run(const WriteJob& job) noexcept {
  if (job.params.direct)
    return direct_unsupported("one write per line is neither block-sized nor block-aligned");
  const int fd = create_output(job);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);
  Syncer syncer(file.fd(), job.params.sync);

  LineBuffer line(line_format(job.params));
  if (!line.ok()) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);
  for (std::uint64_t i = 0; i < job.params.lines; ++i) {
    const std::size_t n = line.format(i);
    if (int err = write_all(file.fd(), line.data(), n))
      return outcome_errno(RunStatus::kFailed, "write", err);
    if (int err = syncer.unit_done()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  }
  if (int err = syncer.before_close()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

}  // namespace

// The knobs it reads (strategies/knobs.cc).
constexpr std::string_view kKnobs[] = {"sync", "direct"};

// The reference row: the summary measures every other strategy against it.
extern const Strategy kUnbuffered = {.name = "unbuffered",
                                     .description = "one write(2) per line",
                                     .run = run,
                                     .knobs = kKnobs,
                                     .role = StrategyRole::kReference};

}  // namespace iobench
