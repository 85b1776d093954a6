// template: a documented starting point for a new strategy, as fio's
// engines/skeleton_external.c is for an engine. It is not in the registry.
//
// To add a strategy:
//   1. Copy this file to strategies/<name>.cc (snake_case) and rename kTemplate and the
//      strategy's name (the name is a contract: scripts and baselines use it).
//   2. Declare `extern const Strategy kYourName;` in strategies/registry.cc and add it to
//      kAll, in the order the table should show it.
//   3. Add the file to strategies/CMakeLists.txt.
//   4. List the knobs it reads in kKnobs (a new knob is a row in strategies/knobs.cc).
//   5. Mention it in README.md: what it demonstrates and which knob it reads.
// tests/strategies_test.cc runs every registered strategy over awkward N; add a case there
// for any parameter of your own.
//
// The rules a strategy lives by (see strategy.h):
//   - It runs in a freshly forked child and is timed from before run() to after it returns,
//     so every piece of work it does (create, write, wait, close) belongs inside run().
//   - It never throws: everything is noexcept; use new (std::nothrow), not std containers.
//   - It creates the file with create_output (O_EXCL, O_NOFOLLOW, O_CLOEXEC), owns the fd
//     through OutputFile, and checks every call, close included.
//   - It writes exactly `Line <i>\n` for i = 0..lines-1, formatted by line_format.h.
//   - It honours --sync through a Syncer (sync_policy.h): unit_done() after each of its write
//     units, before_close() before close. --direct it either honours (direct_io.h: aligned
//     buffer, whole blocks, padded tail) or refuses with direct_unsupported(why).
//
// This one is the simplest correct implementation: the stream in 64 KiB pieces, each piece
// handed to write_all (which retries short writes and EINTR).
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

StrategyOutcome run(const WriteJob& job) noexcept {
  // Before anything is created: a refusal leaves nothing behind.
  if (job.params.direct) return direct_unsupported("the template writes whole lines, not blocks");
  const int fd = create_output(job);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);  // closes the fd on every early return
  Syncer syncer(file.fd(), job.params.sync);

  char buf[kBufferSize];
  LineStream lines(0, job.params.lines, line_format(job.params));
  while (!lines.done()) {
    const std::size_t n = lines.fill(buf, sizeof buf);
    if (int err = write_all(file.fd(), buf, n))
      return outcome_errno(RunStatus::kFailed, "write", err);
    if (int err = syncer.unit_done()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  }
  if (int err = syncer.before_close()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  // Closed explicitly on success: a close error is a failed run, not a detail.
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

}  // namespace

// extern: a namespace-scope const has internal linkage otherwise, and registry.cc could not
// see it.
// The knobs it reads, by their names in strategies/knobs.cc: a sweep of any other is refused.
constexpr std::string_view kKnobs[] = {"sync", "direct"};

// Named fields: one left out keeps strategy.h's default (it writes the file, role kNormal,
// no footnote); format_only.cc and io_uring.cc set the others.
extern const Strategy kTemplate = {.name = "template",
                                   .description = "copy me: the simplest correct strategy",
                                   .run = run,
                                   .knobs = kKnobs};

}  // namespace iobench
