// The expected byte stream cut at arbitrary byte positions, for strategies whose pieces must
// be exactly a given size (a mapping window, an aligned O_DIRECT chunk, a page-aligned ring
// write): lines are formatted in place while the longest one fits, and only the line that
// straddles the end of a piece is written in parts (LineFormat::format_part), so no carry
// buffer needs room for a padded line.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "strategies/support/line_format.h"

namespace iobench {

class ExactLineStream {
 public:
  explicit ExactLineStream(std::uint64_t lines, LineFormat format = {}) noexcept
      : lines_(lines), format_(format) {}

  /// Fills [p, end) completely, or until the lines run out; returns the end of what it wrote.
  char* fill(char* p, char* end) noexcept {
    // The rest of a line that straddled the previous piece (a piece may be a single byte).
    const auto carried = std::min(part_len_ - part_pos_, static_cast<std::size_t>(end - p));
    format_.format_part(p, part_line_, part_pos_, carried);
    part_pos_ += carried;
    p += carried;

    // Counter in a local and a pointer bound, as in LineStream::fill: the same instructions
    // per line as a plain to_chars loop (the unpadded loop is its own, without a branch).
    std::uint64_t next = next_;
    const std::size_t room = format_.max_bytes();
    if (end - p >= static_cast<std::ptrdiff_t>(room)) {
      char* const last = end - room;
      if (format_.length() == 0) {
        while (next < lines_ && p <= last) p += format_line(p, next++);
      } else {
        while (next < lines_ && p <= last) p += format_.format(p, next++);
      }
    }
    // The last few bytes of the piece: whole lines while they fit, then the first part of one.
    while (p < end && next < lines_) {
      part_line_ = next;
      part_len_ = format_.size(next++);
      part_pos_ = std::min(part_len_, static_cast<std::size_t>(end - p));
      format_.format_part(p, part_line_, 0, part_pos_);
      p += part_pos_;
    }
    next_ = next;
    return p;
  }
  bool done() const noexcept { return next_ == lines_ && part_pos_ == part_len_; }

 private:
  std::uint64_t lines_;
  LineFormat format_;
  std::uint64_t next_ = 0;
  std::uint64_t part_line_ = 0;  // the line that straddles the end of the last piece
  std::size_t part_len_ = 0;     // its size
  std::size_t part_pos_ = 0;     // how much of it has been written
};

}  // namespace iobench
