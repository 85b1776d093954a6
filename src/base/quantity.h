// The words for numbers every layer reads the same way: counts (--lines 10K), sizes
// (--buffer-size 64KiB), durations (--timeout 500ms) and the values of --expect.
//
// The one rule (README "Numbers"): K, M and G are powers of 1024 for counts and sizes alike
// (KiB, MiB, GiB are the same words; B is a byte); an exponent is a power of ten (1e6 is a
// million). Durations take ns, us (µs), ms, s, m and h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iobench {

/// What a unit word measures.
enum class Dimension { kCount, kSize, kDuration };

/// A unit word after a number: "ms" is a duration of 1e6 ns, "K" 1024 of a count or a size.
struct UnitWord {
  std::string_view suffix;
  Dimension dimension;  // kSize for K/M/G, which counts take too (fits())
  double scale;         // nanoseconds for a duration; items or bytes otherwise
};

/// The unit spelled exactly `suffix`, or null.
const UnitWord* find_unit(std::string_view suffix) noexcept;
/// Whether `unit` may follow a value of `dimension` (a count takes K, M, G but not B).
bool fits(const UnitWord& unit, Dimension dimension) noexcept;
/// "ns us µs ms s m h": the units of `dimension`, for error messages.
std::string unit_list(Dimension dimension);

/// A number and what follows it: "2.5ms" is {2.5, "ms"}, "1e6" is {1e6, ""}.
struct NumberWord {
  double number = 0;
  std::string_view digits;  // the number as written: "2.5", "1e6"
  std::string_view rest;
  bool out_of_range = false;  // past what a double holds ("1e400"): `number` is then 0
};
/// Null when `text` does not start with a decimal number (a minus sign at most; no hex).
std::optional<NumberWord> split_number(std::string_view text) noexcept;

enum class Whole { kOk, kNotWhole, kTooBig };
/// `digits` (split_number's, no sign) times `multiplier` as a whole 64-bit number, exactly:
/// kNotWhole for a fraction or a sign, kTooBig past 2^64-1 (1.5e20, 2^64).
Whole exact_whole(std::string_view digits, std::uint64_t multiplier, std::uint64_t& out);

/// A whole count or size read exactly (1.5K is 1536; 1e-3 is no whole number), or why not:
/// `error` reads after the flag, e.g. "'abc' is not a whole number".
struct WholeValue {
  std::uint64_t value = 0;
  std::string error;  // empty: value is good
};
WholeValue read_count(std::string_view text);
WholeValue read_size(std::string_view text);

/// A duration in nanoseconds ("30" is 30 s, "500ms", "2m"), or null when it is none.
std::optional<double> read_duration_ns(std::string_view text) noexcept;

}  // namespace iobench
