// The expected byte stream cut at arbitrary byte positions, for strategies whose pieces must
// be exactly a given size (a mapping window, an aligned O_DIRECT chunk, a page-aligned ring
// write): lines are formatted in place while the longest one fits, and only the line that
// straddles the end of a piece goes through a small carry buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "strategies/support/line_format.h"

namespace iobench {

class ExactLineStream {
 public:
  explicit ExactLineStream(std::uint64_t lines) noexcept : lines_(lines) {}

  /// Fills [p, end) completely, or until the lines run out; returns the end of what it wrote.
  char* fill(char* p, char* end) noexcept {
    // The rest of a line that straddled the previous piece (a piece may be a single byte).
    const auto carried = std::min(carry_len_ - carry_pos_, static_cast<std::size_t>(end - p));
    std::memcpy(p, carry_ + carry_pos_, carried);
    carry_pos_ += carried;
    p += carried;

    // Counter in a local and a pointer bound, as in LineStream::fill: the same instructions
    // per line as a plain to_chars loop.
    std::uint64_t next = next_;
    if (end - p >= static_cast<std::ptrdiff_t>(kMaxLineBytes)) {
      char* const last = end - kMaxLineBytes;
      while (next < lines_ && p <= last) p += format_line(p, next++);
    }
    // The last few bytes of the piece: format into the carry and copy what fits.
    while (p < end && next < lines_) {
      carry_len_ = format_line(carry_, next++);
      carry_pos_ = std::min(carry_len_, static_cast<std::size_t>(end - p));
      std::memcpy(p, carry_, carry_pos_);
      p += carry_pos_;
    }
    next_ = next;
    return p;
  }
  bool done() const noexcept { return next_ == lines_ && carry_pos_ == carry_len_; }

 private:
  std::uint64_t lines_;
  std::uint64_t next_ = 0;
  char carry_[kMaxLineBytes] = {};
  std::size_t carry_len_ = 0;
  std::size_t carry_pos_ = 0;
};

}  // namespace iobench
