// unbuffered: one write(2) per line. The baseline every buffering scheme is measured
// against: each line pays a full syscall, which is what an unbuffered stream costs.
// Honest best of the idea: the line is formatted once into a stack buffer and handed to
// the kernel whole, with no allocation and no extra copies.
#include <cerrno>

#include "line_format.h"
#include "strategy.h"

namespace iobench {
namespace {

StrategyOutcome run(const WriteJob& job) noexcept {
  const int fd = create_output(job.path);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);

  char line[kMaxLineBytes];
  for (std::uint64_t i = 0; i < job.params.lines; ++i) {
    const std::size_t n = format_line(line, i);
    if (int err = write_all(file.fd(), line, n))
      return outcome_errno(RunStatus::kFailed, "write", err);
  }
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

}  // namespace

extern const Strategy kUnbuffered = {"unbuffered", "one write(2) per line", run};

}  // namespace iobench
