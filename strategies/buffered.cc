// buffered: the project's own buffered writer, what std::BufWriter or a hand-rolled buffer
// does. Lines accumulate in a buffer of params.buffer_size bytes and each full buffer goes
// out in one write(2). Honest best of the idea: lines are formatted straight into the buffer
// (no intermediate copy) whenever the longest possible line fits in the room left, and the
// buffer is always filled to the last byte, so every write but the last is exactly
// buffer_size bytes (page-aligned file offsets for the usual power-of-two sizes).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>

#include "line_format.h"
#include "strategy.h"

namespace iobench {
namespace {

/// Accumulates bytes and hands them to write_all a full buffer at a time. Any capacity
/// from 1 byte up works: data longer than the room left is copied in pieces.
class BufferedWriter {
 public:
  BufferedWriter(int fd, char* buf, std::size_t cap) noexcept : fd_(fd), buf_(buf), cap_(cap) {}

  /// Returns 0 or an errno value.
  int write_line(std::uint64_t i) noexcept {
    if (cap_ - used_ >= kMaxLineBytes) {  // the hot path: no copy, no branch on the length
      used_ += format_line(buf_ + used_, i);
      return 0;
    }
    char line[kMaxLineBytes];
    return append(line, format_line(line, i));
  }

  int flush() noexcept {
    const int err = write_all(fd_, buf_, used_);
    used_ = 0;
    return err;
  }

 private:
  int append(const char* data, std::size_t len) noexcept {
    while (len > 0) {
      const std::size_t n = std::min(len, cap_ - used_);
      std::memcpy(buf_ + used_, data, n);
      used_ += n;
      data += n;
      len -= n;
      if (used_ == cap_) {
        if (int err = flush()) return err;
      }
    }
    return 0;
  }

  int fd_;
  char* buf_;
  std::size_t cap_;
  std::size_t used_ = 0;
};

StrategyOutcome run(const WriteJob& job) noexcept {
  const std::size_t cap = job.params.buffer_size;
  if (cap == 0) return outcome_message(RunStatus::kFailed, "buffer_size must be at least 1");

  const int fd = create_output(job.path);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);

  std::unique_ptr<char[]> buf(new (std::nothrow) char[cap]);
  if (!buf) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);

  BufferedWriter out(file.fd(), buf.get(), cap);
  for (std::uint64_t i = 0; i < job.params.lines; ++i) {
    if (int err = out.write_line(i)) return outcome_errno(RunStatus::kFailed, "write", err);
  }
  if (int err = out.flush()) return outcome_errno(RunStatus::kFailed, "write", err);
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

}  // namespace

extern const Strategy kBuffered = {
    "buffered", "own 64 KiB buffer (buffer_size), one write(2) per full buffer", run};

}  // namespace iobench
