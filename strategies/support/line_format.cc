#include "strategies/support/line_format.h"

#include <algorithm>
#include <new>

namespace iobench {

std::uint64_t expected_bytes(std::uint64_t lines) noexcept {
  // Each line is prefix + digits + '\n'; add the digits decade by decade.
  std::uint64_t total = lines * (kLinePrefixLen + 1);
  std::uint64_t lo = 0;  // first number with `digits` digits
  std::uint64_t hi = 10;
  for (std::uint64_t digits = 1; lo < lines; ++digits) {
    std::uint64_t top = std::min(hi, lines);
    total += (top - lo) * digits;
    if (top == lines) break;
    lo = hi;
    hi = hi > UINT64_MAX / 10 ? UINT64_MAX : hi * 10;
  }
  return total;
}

std::size_t LineFormat::min_length(std::uint64_t lines) noexcept {
  return LineFormat().size(lines == 0 ? 0 : lines - 1);
}

std::size_t LineFormat::size(std::uint64_t i) const noexcept {
  if (length_ != 0) return length_;
  char digits[kMaxDigits];
  return kLinePrefixLen + format_digits(digits, i) + 1;
}

void LineFormat::format_part(char* out, std::uint64_t i, std::size_t from,
                             std::size_t n) const noexcept {
  char head[kMaxLineBytes];
  const std::size_t head_len = format_head(head, i);
  const std::size_t last = size(i) - 1;  // where the newline is; spaces lie between
  const std::size_t end = from + n;
  if (from < head_len) {
    const std::size_t k = std::min(end, head_len) - from;
    std::memcpy(out, head + from, k);
    out += k;
    from += k;
  }
  if (from < end && from < last) {
    const std::size_t k = std::min(end, last) - from;
    std::memset(out, ' ', k);
    out += k;
    from += k;
  }
  if (from < end) *out = '\n';  // from == last
}

LineBuffer::LineBuffer(LineFormat format) noexcept : format_(format), data_(small_) {
  if (format.length() == 0) return;
  data_ = new (std::nothrow) char[format.length()];
  if (data_ == nullptr) return;
  std::memset(data_, ' ', format.length() - 1);
  data_[format.length() - 1] = '\n';
}

LineBuffer::~LineBuffer() {
  if (data_ != small_) delete[] data_;
}

std::size_t LineBuffer::format(std::uint64_t i) noexcept {
  if (format_.length() == 0) {
    const std::size_t n = format_line(data_, i);
    head_ = n - 1;
    return n;
  }
  const std::size_t head = LineFormat::format_head(data_, i);
  // A shorter head than the last one (only when lines are formatted out of order) leaves
  // digits behind: blank them; the rest of the padding never changes.
  if (head < head_) std::memset(data_ + head, ' ', head_ - head);
  head_ = head;
  return format_.length();
}

}  // namespace iobench
