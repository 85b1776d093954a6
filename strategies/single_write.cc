// single-write: the whole file formatted into one exact-size buffer, then handed to the
// kernel in as few write(2) calls as it allows (Linux caps one call at 0x7ffff000 bytes,
// which write_all continues past). It is the floor for syscall count, paid for with memory
// proportional to the file, so it refuses files above 1 GiB rather than risk the OOM killer.
// Honest best of the idea: one allocation of exactly expected_bytes, formatted in place by
// a single LineStream::fill, with no copy between formatting and the write.
// --sync every:N is the same as end (there is one write). --direct: the buffer is aligned
// and padded to the alignment, then the file is cut back to size (direct_io.h).
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "strategies/strategy.h"
#include "strategies/support/direct_io.h"
#include "strategies/support/line_format.h"
#include "strategies/support/sync_policy.h"

namespace iobench {
namespace {

constexpr std::uint64_t kMaxBuffer = std::uint64_t{1} << 30;

StrategyOutcome run(const WriteJob& job) noexcept {
  const std::uint64_t size = job.expected_bytes;
  // Before anything is created or allocated, so a refusal costs nothing.
  if (size > kMaxBuffer) {
    char message[96];
    std::snprintf(message, sizeof message, "buffer of %llu bytes exceeds the 1 GiB cap",
                  static_cast<unsigned long long>(size));
    return outcome_message(RunStatus::kUnsupported, message);
  }

  std::size_t align = 1;
  StrategyOutcome refused;
  const int fd = create_job_output(job, &align, &refused);
  if (fd < 0) return refused;
  OutputFile file(fd);
  Syncer syncer(file.fd(), job.params.sync);

  if (size > 0) {
    const std::size_t padded = round_up(size, align);
    AlignedBuffer buf;
    if (!buf.allocate(padded, align)) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);
    LineStream lines(0, job.params.lines, line_format(job.params));
    // fill never writes past its cap, so a wrong expected_bytes is caught here, not by ASan.
    if (lines.fill(buf.get(), size) != size || !lines.done())
      return outcome_message(RunStatus::kFailed, "expected_bytes does not match the lines");
    std::memset(buf.get() + size, 0, padded - size);  // O_DIRECT's padding; none otherwise
    if (int err = write_all(file.fd(), buf.get(), padded))
      return outcome_errno(RunStatus::kFailed, "write", err);
    if (padded != size) {
      if (int err = finish_direct(file.fd(), size))
        return outcome_errno(RunStatus::kFailed, "ftruncate", err);
    }
    if (int err = syncer.unit_done()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  } else if (job.params.lines > 0) {
    return outcome_message(RunStatus::kFailed, "expected_bytes does not match the lines");
  }
  if (int err = syncer.before_close()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

}  // namespace

// The knobs it reads (strategies/knobs.cc).
constexpr std::string_view kKnobs[] = {"sync", "direct"};

extern const Strategy kSingleWrite = {
    .name = "single-write",
    .description = "whole file formatted into one buffer, one write(2) (<= 1 GiB)",
    .run = run,
    .knobs = kKnobs};

}  // namespace iobench
