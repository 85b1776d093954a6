#include "base/quantity.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <system_error>

namespace iobench {
namespace {

// Matched whole (never by prefix), so the order is the one error messages list them in.
constexpr UnitWord kUnits[] = {
    {"B", Dimension::kSize, 1.0},
    {"K", Dimension::kSize, 1024.0},
    {"KiB", Dimension::kSize, 1024.0},
    {"M", Dimension::kSize, 1048576.0},
    {"MiB", Dimension::kSize, 1048576.0},
    {"G", Dimension::kSize, 1073741824.0},
    {"GiB", Dimension::kSize, 1073741824.0},
    {"ns", Dimension::kDuration, 1.0},
    {"us", Dimension::kDuration, 1e3},
    {"µs", Dimension::kDuration, 1e3},
    {"ms", Dimension::kDuration, 1e6},
    {"s", Dimension::kDuration, 1e9},
    {"m", Dimension::kDuration, 60e9},
    {"h", Dimension::kDuration, 3600e9},
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

/// A whole value's multiplier: K, KiB, M, ... in any case (64k, 1mib), as sizes always took.
const UnitWord* whole_unit(std::string_view suffix, Dimension dimension) {
  for (const UnitWord& u : kUnits)
    if (fits(u, dimension) && equal_ignoring_case(u.suffix, suffix)) return &u;
  return nullptr;
}

/// DIGITS [. DIGITS] [e DIGITS], split into its significant digits and a power of ten.
struct Decimal {
  std::string_view digits;  // the integer part's and the fraction's, leading zeros kept
  std::string_view fraction;
  long exponent = 0;
  std::size_t length = 0;  // characters read
};

std::optional<Decimal> read_decimal(std::string_view text) {
  Decimal d;
  std::size_t i = 0;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i == 0) return std::nullopt;
  d.digits = text.substr(0, i);
  if (i < text.size() && text[i] == '.') {
    const std::size_t start = ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    d.fraction = text.substr(start, i - start);
  }
  // An exponent only with digits after it: "1e6", "1e+6"; a bare "e" would be a suffix.
  if (i + 1 < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    const bool negative = text[j] == '-';
    if (text[j] == '+' || text[j] == '-') ++j;
    const std::size_t start = j;
    while (j < text.size() && is_digit(text[j])) ++j;
    if (j > start) {
      long e = 1000000;  // more than six digits: as good as infinite either way
      if (j - start <= 6) std::from_chars(text.data() + start, text.data() + j, e);
      d.exponent = negative ? -e : e;
      i = j;
    }
  }
  d.length = i;
  return d;
}

// Wide enough for 10^28 × 2^30; __extension__: GCC and Clang have it, ISO C++ does not.
__extension__ typedef unsigned __int128 Wide;

/// digits.fraction × 10^exponent × multiplier as a whole 64-bit number, exactly.
Whole exact_value(const Decimal& d, std::uint64_t multiplier, std::uint64_t& out) {
  std::string_view fraction = d.fraction;
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  std::string digits(d.digits);
  digits += fraction;
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return out = 0, Whole::kOk;
  digits.erase(0, first);
  long power = d.exponent - static_cast<long>(fraction.size());
  // 10^20 > 2^64: more integer digits than that cannot fit, whatever the multiplier.
  const long integer_digits = static_cast<long>(digits.size()) + power;
  if (integer_digits > 20) return Whole::kTooBig;
  if (integer_digits <= -12) return Whole::kNotWhole;  // below 2^30 × 10^-12: under one
  // Beyond 28 significant digits the rest is a fraction no multiplier (at most 2^30) clears.
  if (digits.size() > 28) return Whole::kNotWhole;
  Wide v = 0;
  for (char c : digits) v = v * 10 + static_cast<unsigned>(c - '0');
  v *= multiplier;                     // < 10^28 × 2^30 < 2^124
  for (; power > 0; --power) v *= 10;  // at most 20 integer digits: below 10^20 × 2^30
  for (; power < 0; ++power) {
    if (v % 10 != 0) return Whole::kNotWhole;
    v /= 10;
  }
  if (v > UINT64_MAX) return Whole::kTooBig;
  out = static_cast<std::uint64_t>(v);
  return Whole::kOk;
}

// Appended, not "'" + std::string(...): GCC 12 warns -Wrestrict on that (a false positive).
std::string quoted(std::string_view text) {
  std::string out = "'";
  out += text;
  out += '\'';
  return out;
}

WholeValue read_whole(std::string_view text, Dimension dimension) {
  const bool size = dimension == Dimension::kSize;
  if (!text.empty() && text.front() == '-') return {0, quoted(text) + " is negative"};
  const std::string not_one =
      quoted(text) + (size ? " is not a size (e.g. 4096, 64K, 1MiB)" : " is not a whole number");
  const std::optional<Decimal> d = read_decimal(text);
  if (!d) return {0, not_one};
  const std::string_view suffix = text.substr(d->length);
  const UnitWord* unit = suffix.empty() ? nullptr : whole_unit(suffix, dimension);
  if (!suffix.empty() && unit == nullptr)
    return {0, size ? "unknown size suffix " + quoted(suffix) + " in " + quoted(text) +
                          " (use K, M, G or KiB, MiB, GiB)"
                    : not_one};
  WholeValue out;
  switch (exact_value(*d, unit ? static_cast<std::uint64_t>(unit->scale) : 1, out.value)) {
    case Whole::kOk:
      break;
    case Whole::kTooBig:
      out.error = quoted(text) + " does not fit in 64 bits";
      break;
    case Whole::kNotWhole:
      out.error = size ? quoted(text) + " is not a whole number of bytes" : not_one;
      break;
  }
  return out;
}

}  // namespace

const UnitWord* find_unit(std::string_view suffix) noexcept {
  for (const UnitWord& u : kUnits)
    if (u.suffix == suffix) return &u;
  return nullptr;
}

bool fits(const UnitWord& unit, Dimension dimension) noexcept {
  if (unit.dimension == dimension) return true;
  // A count of 10K is 10 × 1024 items, by the same rule as sizes; a byte is no item.
  return dimension == Dimension::kCount && unit.dimension == Dimension::kSize && unit.scale > 1;
}

std::string unit_list(Dimension dimension) {
  std::string out;
  for (const UnitWord& u : kUnits) {
    if (!fits(u, dimension)) continue;
    if (!out.empty()) out += ' ';  // appended apart: GCC 12 warns -Wrestrict on " " + a string
    out += u.suffix;
  }
  return out;
}

std::optional<NumberWord> split_number(std::string_view text) noexcept {
  double number = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  // Out of range, from_chars still says where the number ends: "1e400" is a number too big.
  if ((ec != std::errc() && ec != std::errc::result_out_of_range) || ptr == text.data())
    return std::nullopt;
  const auto length = static_cast<std::size_t>(ptr - text.data());
  return NumberWord{.number = ec == std::errc() ? number : 0,
                    .digits = text.substr(0, length),
                    .rest = text.substr(length),
                    .out_of_range = ec == std::errc::result_out_of_range};
}

Whole exact_whole(std::string_view digits, std::uint64_t multiplier, std::uint64_t& out) {
  const std::optional<Decimal> d = read_decimal(digits);
  if (!d || d->length != digits.size()) return Whole::kNotWhole;
  return exact_value(*d, multiplier, out);
}

WholeValue read_count(std::string_view text) { return read_whole(text, Dimension::kCount); }
WholeValue read_size(std::string_view text) { return read_whole(text, Dimension::kSize); }

std::optional<double> read_duration_ns(std::string_view text) noexcept {
  const std::optional<NumberWord> n = split_number(text);
  if (!n || n->out_of_range || !std::isfinite(n->number)) return std::nullopt;
  if (n->rest.empty()) return n->number * 1e9;  // a bare number is seconds, as timeout(1) reads it
  const UnitWord* unit = find_unit(n->rest);
  if (unit == nullptr || unit->dimension != Dimension::kDuration) return std::nullopt;
  return n->number * unit->scale;
}

}  // namespace iobench
