// The one line formatter every strategy shares, so that formatting costs the same in every
// row. std::to_chars, not snprintf: snprintf costs about 7x more than the I/O of a good strategy.
// Lines are `Line <i>\n`, or with --line-length the same padded with spaces before the newline
// to exactly that many bytes (LineFormat); strategies only ever see a LineFormat, never the
// length itself, so a new shape of line changes this file and no strategy.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "strategies/strategy.h"

namespace iobench {

inline constexpr char kLinePrefix[] = "Line ";
inline constexpr std::size_t kLinePrefixLen = sizeof(kLinePrefix) - 1;
inline constexpr std::size_t kMaxDigits = 20;  // UINT64_MAX
inline constexpr std::size_t kMaxLineBytes = kLinePrefixLen + kMaxDigits + 1;
/// --line-length's upper bound: a padded line always fits whole in format-only's and the
/// template's 64 KiB buffers, and writev's staging (batch lines) stays at most 64 MiB.
inline constexpr std::size_t kMaxLineLength = 64 * kKiB;

/// Writes the decimal digits of i to out (room for kMaxDigits); returns how many.
inline std::size_t format_digits(char* out, std::uint64_t i) noexcept {
  return static_cast<std::size_t>(std::to_chars(out, out + kMaxDigits, i).ptr - out);
}

/// Writes "Line <i>\n" to out (room for kMaxLineBytes); returns its length.
inline std::size_t format_line(char* out, std::uint64_t i) noexcept {
  std::memcpy(out, kLinePrefix, kLinePrefixLen);
  std::size_t n = kLinePrefixLen + format_digits(out + kLinePrefixLen, i);
  out[n] = '\n';
  return n + 1;
}

/// Exact size of the unpadded lines 0..lines-1, in closed form (no formatting).
std::uint64_t expected_bytes(std::uint64_t lines) noexcept;

/// Byte offset at which unpadded line `first` starts.
inline std::uint64_t line_offset(std::uint64_t first) noexcept { return expected_bytes(first); }

/// The shape of every line of a run: `Line <i>\n` (length 0, the default), or `Line <i>`,
/// spaces, `\n`, exactly length() bytes in all (--line-length).
class LineFormat {
 public:
  constexpr LineFormat() noexcept = default;
  /// 0: unpadded. Otherwise at least min_length(lines) for the lines it formats (the CLI
  /// checks it), and at most kMaxLineLength.
  explicit constexpr LineFormat(std::size_t length) noexcept : length_(length) {}

  /// The shortest padded length that holds every line of 0..lines-1 (its longest line).
  static std::size_t min_length(std::uint64_t lines) noexcept;

  std::size_t length() const noexcept { return length_; }
  /// Room that format() needs: the longest line there can be.
  std::size_t max_bytes() const noexcept { return length_ != 0 ? length_ : kMaxLineBytes; }
  /// Bytes of line i.
  std::size_t size(std::uint64_t i) const noexcept;

  /// Writes line i to out (room for max_bytes()); returns its length.
  std::size_t format(char* out, std::uint64_t i) const noexcept {
    if (length_ == 0) return format_line(out, i);
    const std::size_t head = format_head(out, i);
    std::memset(out + head, ' ', length_ - 1 - head);
    out[length_ - 1] = '\n';
    return length_;
  }

  /// Writes bytes [from, from + n) of line i, for a line that straddles two pieces; needs no
  /// room for the whole line.
  void format_part(char* out, std::uint64_t i, std::size_t from, std::size_t n) const noexcept;

  /// Exact size of lines 0..lines-1, in closed form.
  std::uint64_t total_bytes(std::uint64_t lines) const noexcept {
    return length_ != 0 ? lines * length_ : expected_bytes(lines);
  }
  /// Byte offset at which line `first` starts.
  std::uint64_t offset(std::uint64_t first) const noexcept { return total_bytes(first); }

  /// Writes "Line <i>" (no newline) to out (room for kMaxLineBytes); returns its length.
  static std::size_t format_head(char* out, std::uint64_t i) noexcept {
    std::memcpy(out, kLinePrefix, kLinePrefixLen);
    return kLinePrefixLen + format_digits(out + kLinePrefixLen, i);
  }

 private:
  std::size_t length_ = 0;
};

/// The line format a run's parameters ask for.
inline LineFormat line_format(const StrategyParams& params) noexcept {
  return LineFormat(params.line_length);
}
/// Exact size of the file a run's parameters make.
inline std::uint64_t expected_bytes(const StrategyParams& params) noexcept {
  return line_format(params).total_bytes(params.lines);
}

/// Streams the expected bytes in pieces of whole lines; used by strategies that fill a buffer
/// and by the verifier.
class LineStream {
 public:
  LineStream(std::uint64_t first, std::uint64_t end, LineFormat format = {}) noexcept
      : next_(first), end_(end), format_(format) {}

  /// Appends whole lines to buf while they fit in cap bytes; returns bytes written
  /// (0 only when done, or when cap < format.max_bytes() and the next line does not fit).
  std::size_t fill(char* buf, std::size_t cap) noexcept {
    std::size_t used = 0;
    const std::size_t room = format_.max_bytes();
    // Two loops rather than one with a branch per line: the default keeps its instructions.
    if (format_.length() == 0) {
      while (next_ < end_ && cap - used >= room) used += format_line(buf + used, next_++);
    } else {
      while (next_ < end_ && cap - used >= room) used += format_.format(buf + used, next_++);
    }
    // Tail: a line may still fit exactly even if the longest one does not.
    while (next_ < end_ && format_.size(next_) <= cap - used)
      used += format_.format(buf + used, next_++);
    return used;
  }
  bool done() const noexcept { return next_ >= end_; }
  std::uint64_t next() const noexcept { return next_; }

 private:
  std::uint64_t next_;
  std::uint64_t end_;
  LineFormat format_;
};

/// One line at a time in a buffer of its own, for strategies that hand each line over whole
/// (a write(2) or an fwrite per line). A padded line's spaces and newline stay in place from
/// one line to the next, so only its head is rewritten: per line it costs what the
/// unpadded line costs, as a program that reuses its line buffer would.
class LineBuffer {
 public:
  explicit LineBuffer(LineFormat format) noexcept;
  ~LineBuffer();
  LineBuffer(const LineBuffer&) = delete;
  LineBuffer& operator=(const LineBuffer&) = delete;

  /// False when the buffer of a padded line could not be allocated (ENOMEM).
  bool ok() const noexcept { return data_ != nullptr; }
  /// Formats line i; data() holds it afterwards. Returns its length.
  std::size_t format(std::uint64_t i) noexcept;
  const char* data() const noexcept { return data_; }
  char* data() noexcept { return data_; }
  /// Bytes of "Line <i>" in the line last formatted (the rest is padding and the newline).
  std::size_t head() const noexcept { return head_; }

 private:
  LineFormat format_;
  char small_[kMaxLineBytes] = {};
  char* data_;
  std::size_t head_ = 0;
};

}  // namespace iobench
