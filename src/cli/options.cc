#include "cli/options.h"

#include <cctype>
#include <charconv>
#include <cstdlib>

#include "base/error.h"

namespace iobench {

std::uint64_t parse_size(const std::string& flag, const std::string& text) {
  // Our own parser rather than CLI11's AsSizeValue: the same words must mean the same
  // bytes in flags, --expect values and baselines, and it is fuzzed on its own.
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '-') throw Error(flag + ": '" + text + "' is negative");
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) throw Error(flag + ": '" + text + "' does not fit in 64 bits");
  if (ec != std::errc() || ptr == begin) throw Error(flag + ": '" + text + "' is not a size (e.g. 4096, 64K, 1MiB)");
  std::string suffix(ptr, end);
  for (auto& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::uint64_t mult = 1;
  if (suffix.empty() || suffix == "b") mult = 1;
  else if (suffix == "k" || suffix == "kib") mult = 1ull << 10;
  else if (suffix == "m" || suffix == "mib") mult = 1ull << 20;
  else if (suffix == "g" || suffix == "gib") mult = 1ull << 30;
  else throw Error(flag + ": unknown size suffix '" + std::string(ptr, end) + "' in '" + text + "' (use K, M, G or KiB, MiB, GiB)");
  if (value > UINT64_MAX / mult) throw Error(flag + ": '" + text + "' does not fit in 64 bits");
  return value * mult;
}

std::string default_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

}  // namespace iobench
