// Faulty strategies for iobench's own tests: they prove that a crash, a hang or wrong bytes
// become a failed row with a reason, never a fast one. Reachable only by name and only when
// IOBENCH_TEST_STRATEGIES=1 is set; never listed, never part of `all`.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "strategies/strategy.h"
#include "strategies/support/line_format.h"

namespace iobench {
namespace {

/// Writes the expected stream with one write per line; `corrupt_line` (if < lines) gets a
/// wrong first byte and `stop_after` lines are all that is written.
StrategyOutcome write_lines(const WriteJob& job, std::uint64_t corrupt_line,
                            std::uint64_t stop_after) {
  const int fd = create_output(job);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);
  LineBuffer line(line_format(job.params));
  if (!line.ok()) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);
  for (std::uint64_t i = 0; i < job.params.lines && i < stop_after; ++i) {
    std::size_t n = line.format(i);
    if (i == corrupt_line) line.data()[0] = 'X';
    if (int err = write_all(file.fd(), line.data(), n))
      return outcome_errno(RunStatus::kFailed, "write", err);
  }
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

StrategyOutcome run_crash(const WriteJob& job) noexcept {
  write_lines(job, UINT64_MAX, job.params.lines / 2);
  ::raise(SIGSEGV);
  return outcome_ok();
}

StrategyOutcome run_hang(const WriteJob& job) noexcept {
  write_lines(job, UINT64_MAX, job.params.lines / 2);
  for (;;) ::pause();
}

/// Becomes the program IOBENCH_TEST_TREE names, with IOBENCH_TEST_READY as its argument
/// (tests/programs/process_tree: a child and a daemon that only SIGKILL ends); without
/// them, hangs as test-hang does.
StrategyOutcome run_tree(const WriteJob& job) noexcept {
  const char* program = std::getenv("IOBENCH_TEST_TREE");
  const char* ready = std::getenv("IOBENCH_TEST_READY");
  if (program != nullptr && ready != nullptr) ::execl(program, program, ready, nullptr);
  return run_hang(job);
}

StrategyOutcome run_wrong_bytes(const WriteJob& job) noexcept {
  return write_lines(job, job.params.lines / 2, UINT64_MAX);
}

StrategyOutcome run_short(const WriteJob& job) noexcept {
  return write_lines(job, UINT64_MAX, job.params.lines ? job.params.lines - 1 : 0);
}

}  // namespace

extern const Strategy kTestCrash = {"test-crash", "writes half, then dies of SIGSEGV", run_crash};
extern const Strategy kTestHang = {"test-hang", "writes half, then never returns", run_hang};
extern const Strategy kTestTree = {"test-tree", "starts a child and a daemon, then never returns",
                                   run_tree};
extern const Strategy kTestWrongBytes = {"test-wrong-bytes", "corrupts the middle line",
                                         run_wrong_bytes};
extern const Strategy kTestShort = {"test-short", "leaves out the last line", run_short};

}  // namespace iobench
