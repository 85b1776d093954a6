#include "strategies/support/line_format.h"

#include <algorithm>

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

}  // namespace iobench
