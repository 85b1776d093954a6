// buffered: the project's own buffered writer, what std::BufWriter or a hand-rolled buffer
// does. Lines accumulate in a buffer of params.buffer_size bytes and each full buffer goes
// out in one write(2). Honest best of the idea: lines are formatted straight into the buffer
// (no intermediate copy) whenever the longest possible line fits in the room left, and the
// buffer is always filled to the last byte, so every write but the last is exactly
// buffer_size bytes (page-aligned file offsets for the usual power-of-two sizes).
// --sync every:N syncs after every N flushed buffers. --direct: the buffer is aligned and
// every write is a whole buffer, so only the last needs padding (direct_io.h).
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "strategies/strategy.h"
#include "strategies/support/direct_io.h"
#include "strategies/support/line_format.h"
#include "strategies/support/sync_policy.h"

namespace iobench {
namespace {

/// Accumulates bytes and hands them to write_all a full buffer at a time. Any capacity
/// from 1 byte up works: a line longer than the room left is written in parts.
class BufferedWriter {
 public:
  BufferedWriter(int fd, char* buf, std::size_t cap, LineFormat format, Syncer& syncer) noexcept
      : fd_(fd),
        buf_(buf),
        cap_(cap),
        format_(format),
        room_(format.max_bytes()),
        syncer_(syncer) {}

  /// Returns 0 or an errno value.
  int write_line(std::uint64_t i) noexcept {
    if (cap_ - used_ >= room_) {  // the hot path: no copy, no branch on the length
      used_ += format_.format(buf_ + used_, i);
      return 0;
    }
    // The line straddles the end of the buffer (or is longer than it): in parts, no copy.
    const std::size_t len = format_.size(i);
    for (std::size_t pos = 0; pos < len;) {
      const std::size_t n = std::min(len - pos, cap_ - used_);
      format_.format_part(buf_ + used_, i, pos, n);
      used_ += n;
      pos += n;
      if (used_ == cap_) {
        if (int err = flush()) return err;
      }
    }
    return 0;
  }

  /// Writes what is buffered; with `pad_to` > 1 (O_DIRECT) first pads it with zeros to a
  /// multiple of pad_to. Returns 0 or an errno value.
  int flush(std::size_t pad_to = 1) noexcept {
    std::size_t len = used_;
    if (pad_to > 1 && len % pad_to != 0) {
      const std::size_t padded = round_up(len, pad_to);  // <= cap_: cap_ is a multiple
      std::memset(buf_ + len, 0, padded - len);
      len = padded;
    }
    if (len == 0) return 0;
    const int err = write_all(fd_, buf_, len);
    used_ = 0;
    return err != 0 ? err : syncer_.unit_done();
  }

 private:
  int fd_;
  char* buf_;
  std::size_t cap_;
  LineFormat format_;
  std::size_t room_;  // the longest line: below this much room, a line goes in parts
  Syncer& syncer_;
  std::size_t used_ = 0;
};

StrategyOutcome run(const WriteJob& job) noexcept {
  const std::size_t cap = job.params.buffer_size;
  if (cap == 0) return outcome_message(RunStatus::kFailed, "buffer_size must be at least 1");

  std::size_t align = 1;
  StrategyOutcome refused;
  const int fd = create_chunked_output(job, cap, &align, &refused);
  if (fd < 0) return refused;
  OutputFile file(fd);

  AlignedBuffer buf;
  if (!buf.allocate(cap, align)) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);

  Syncer syncer(file.fd(), job.params.sync);
  BufferedWriter out(file.fd(), buf.get(), cap, line_format(job.params), syncer);
  for (std::uint64_t i = 0; i < job.params.lines; ++i) {
    if (int err = out.write_line(i)) return outcome_errno(RunStatus::kFailed, "write", err);
  }
  if (int err = out.flush(align)) return outcome_errno(RunStatus::kFailed, "write", err);
  return finish_output(job, align, syncer, file);
}

}  // namespace

// The knobs it reads (strategies/knobs.cc).
constexpr std::string_view kKnobs[] = {"buffer_size", "sync", "direct"};

extern const Strategy kBuffered = {
    .name = "buffered",
    .description = "own 64 KiB buffer (buffer_size), one write(2) per full buffer",
    .run = run,
    .knobs = kKnobs};

}  // namespace iobench
