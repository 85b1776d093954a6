// unbuffered-pieces: one write(2) per formatted piece, three per line ("Line ", the digits,
// "\n"). This is what an unbuffered formatted stream really does: Rust's `writeln!` on a bare
// File issues 300,000 writes for 100,000 lines. It shows that the cost is per syscall, not
// per byte. Honest best of the idea: each piece goes straight from where it already is (the
// constant prefix, a stack digit buffer) to the kernel; no piece is merged with another.
#include <cerrno>

#include "line_format.h"
#include "strategy.h"

namespace iobench {
namespace {

StrategyOutcome run(const WriteJob& job) noexcept {
  const int fd = create_output(job.path);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);

  static constexpr char kNewline = '\n';
  char digits[kMaxDigits];
  for (std::uint64_t i = 0; i < job.params.lines; ++i) {
    const std::size_t n = format_digits(digits, i);
    int err = write_all(file.fd(), kLinePrefix, kLinePrefixLen);
    if (err == 0) err = write_all(file.fd(), digits, n);
    if (err == 0) err = write_all(file.fd(), &kNewline, 1);
    if (err != 0) return outcome_errno(RunStatus::kFailed, "write", err);
  }
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

}  // namespace

extern const Strategy kUnbufferedPieces = {
    "unbuffered-pieces", "one write(2) per piece: \"Line \", digits, \"\\n\" (3 per line)", run};

}  // namespace iobench
