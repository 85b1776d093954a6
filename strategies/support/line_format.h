// The one line formatter every strategy shares, so that formatting costs the same in every
// row. std::to_chars, not snprintf: snprintf costs about 7x more than the I/O of a good strategy.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace iobench {

inline constexpr char kLinePrefix[] = "Line ";
inline constexpr std::size_t kLinePrefixLen = sizeof(kLinePrefix) - 1;
inline constexpr std::size_t kMaxDigits = 20;  // UINT64_MAX
inline constexpr std::size_t kMaxLineBytes = kLinePrefixLen + kMaxDigits + 1;

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

/// Exact size of lines 0..lines-1, in closed form (no formatting).
std::uint64_t expected_bytes(std::uint64_t lines) noexcept;

/// Byte offset at which line `first` starts.
inline std::uint64_t line_offset(std::uint64_t first) noexcept { return expected_bytes(first); }

/// Streams the expected bytes in pieces of whole lines; used by strategies that fill a buffer
/// and by the verifier.
class LineStream {
 public:
  LineStream(std::uint64_t first, std::uint64_t end) noexcept : next_(first), end_(end) {}

  /// Appends whole lines to buf while they fit in cap bytes; returns bytes written
  /// (0 only when done, or when cap < kMaxLineBytes and the next line does not fit).
  std::size_t fill(char* buf, std::size_t cap) noexcept {
    std::size_t used = 0;
    while (next_ < end_ && cap - used >= kMaxLineBytes) used += format_line(buf + used, next_++);
    // Tail: a line may still fit exactly even if kMaxLineBytes does not.
    while (next_ < end_) {
      char tmp[kMaxLineBytes];
      std::size_t n = format_line(tmp, next_);
      if (n > cap - used) break;
      std::memcpy(buf + used, tmp, n);
      used += n;
      ++next_;
    }
    return used;
  }
  bool done() const noexcept { return next_ >= end_; }
  std::uint64_t next() const noexcept { return next_; }

 private:
  std::uint64_t next_;
  std::uint64_t end_;
};

}  // namespace iobench
