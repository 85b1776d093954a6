// The flags' value parsers: each throws Error (exit 2) naming the flag and the reason.
#include "cli/cli_values.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "base/error.h"
#include "base/quantity.h"
#include "cli/cli.h"
#include "report/reporter.h"
#include "strategies/registry.h"
#include "tracer/counting_backend.h"

namespace iobench {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::uint64_t parse_size(const std::string& flag, const std::string& text) {
  // Our own parser rather than CLI11's AsSizeValue: the same words must mean the same
  // bytes in flags, --expect values and baselines (base/quantity.h), and it is fuzzed.
  const WholeValue v = read_size(text);
  if (!v.error.empty()) throw Error(flag + ": " + v.error);
  return v.value;
}

std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t min,
                          std::uint64_t max) {
  const WholeValue v = read_count(text);
  if (!v.error.empty()) throw Error(flag + ": " + v.error);
  if (v.value < min || v.value > max)
    throw Error(fmt::format("{}: {} is out of range ({} to {})", flag, v.value, min, max));
  return v.value;
}

std::vector<const Strategy*> parse_strategies(const std::string& text) {
  std::vector<const Strategy*> out;
  auto all = all_strategies();
  if (text == "all") return {all.begin(), all.end()};
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string name =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (name.empty()) throw Error("--strategy: empty name in '" + text + "'");
    if (name == "all")
      throw Error("--strategy " + text +
                  ": all cannot be combined with names (give all alone, or a comma list of "
                  "names such as buffered,mmap)");
    const Strategy* s = find_strategy(name);
    if (!s) {
      std::string valid, nearest;
      std::size_t best = SIZE_MAX;
      for (const Strategy* c : all) {
        valid += (valid.empty() ? "" : ", ") + std::string(c->name);
        std::size_t d = edit_distance(name, c->name);
        if (d < best) best = d, nearest = c->name;
      }
      std::string hint = best <= 3 ? fmt::format(" (did you mean '{}'?)", nearest) : "";
      throw Error(
          fmt::format("--strategy: unknown strategy '{}'{}; valid: all, {}", name, hint, valid));
    }
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

/// --sync none | end | every:N (N >= 1 write units; what a unit is, each strategy says).
SyncPolicy parse_sync(const std::string& text) {
  // sync_words() names these three.
  if (text == "none") return {SyncMode::kNone, 0};
  if (text == "end") return {SyncMode::kEnd, 0};
  if (text.starts_with("every:")) {
    return {SyncMode::kEvery, parse_count("--sync every:N", text.substr(6), 1, UINT64_MAX)};
  }
  throw Error("--sync: unknown policy '" + text + "' (none, end, every:N)");
}

double parse_fraction(const std::string& flag, const std::string& text) {
  std::string t = text;
  bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || errno != 0 || !(v >= 0) || !std::isfinite(v))
    throw Error(flag + ": '" + text + "' is not a tolerance (e.g. 25% or 0.25)");
  return percent ? v / 100 : v;
}

std::chrono::nanoseconds parse_timeout(const std::string& text) {
  // 1e6 s (11 days) is far beyond any run; above it the nanoseconds near 64 bits.
  const std::optional<double> ns = read_duration_ns(text);
  if (!ns)
    throw Error("--timeout: '" + text +
                "' is not a duration (e.g. 30s, 500ms, 2m; a bare number is seconds)");
  if (!(*ns > 0) || *ns > 1e15)
    throw Error("--timeout: '" + text + "' is out of range (above 0, at most 1000000s)");
  return std::chrono::nanoseconds(static_cast<std::int64_t>(*ns));
}

OutputFormat parse_format(const std::string& text) {
  if (const FormatInfo* f = find_format(text)) return f->format;
  throw Error("--format: unknown format '" + text + "' (" + format_names(false) + ")");
}

namespace {
// --color's and --sort's words, in the order help and errors name them.
constexpr std::pair<const char*, ColorMode> kColorModes[] = {
    {"auto", ColorMode::kAuto}, {"always", ColorMode::kAlways}, {"never", ColorMode::kNever}};
constexpr std::pair<const char*, SortOrder> kSortOrders[] = {
    {"name", SortOrder::kName}, {"time", SortOrder::kTime}, {"syscalls", SortOrder::kSyscalls}};

template <class Table>
std::vector<std::string> words_of(const Table& table) {
  std::vector<std::string> out;
  for (const auto& [word, value] : table) out.emplace_back(word);
  return out;
}
}  // namespace

std::vector<std::string> color_words() { return words_of(kColorModes); }
std::vector<std::string> sort_words() { return words_of(kSortOrders); }
std::vector<std::string> sync_words() { return {"none", "end", "every:"}; }

std::vector<std::string> format_words(bool trace) {
  std::vector<std::string> out;
  for (const FormatInfo& f : output_formats())
    if (!trace || f.trace) out.emplace_back(f.name);
  return out;
}

std::vector<std::string> strategy_words() {
  std::vector<std::string> out = {"all"};
  for (const Strategy* s : all_strategies()) out.emplace_back(s->name);
  return out;
}

std::vector<std::string> tracer_words() {
  std::vector<std::string> out;
  for (const Backend& b : backends()) out.emplace_back(b.traits->name);
  out.emplace_back("auto");
  return out;
}

std::string choices(const std::vector<std::string>& words) {
  return fmt::format("{}", fmt::join(words, "|"));
}

ColorMode parse_color(const std::string& text) {
  for (const auto& [word, mode] : kColorModes)
    if (text == word) return mode;
  throw Error(fmt::format("--color: unknown mode '{}' ({})", text, fmt::join(color_words(), ", ")));
}

std::size_t parse_columns(const std::string& text) {
  // Below 60 even the minimal table (strategy, calls, median, vs) cannot fit.
  return static_cast<std::size_t>(parse_count("--columns", text, 60, 10000));
}

SortOrder parse_sort(const std::string& text) {
  for (const auto& [word, order] : kSortOrders)
    if (text == word) return order;
  throw Error(fmt::format("--sort: unknown order '{}' ({})", text, fmt::join(sort_words(), ", ")));
}

}  // namespace iobench
