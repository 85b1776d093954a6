// `iobench sweep FLAG V1,V2,...`: the words of a sweep into one BenchOptions per value (the
// flags a sweep may vary, the value list, the run flags that belong to single runs only).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "base/error.h"
#include "cli/cli.h"
#include "cli/cli_values.h"
#include "cli/help_format.h"
#include "strategies/knobs.h"

namespace iobench {
namespace {

/// A flag a sweep may vary, the config key it sets, and the strategies it changes.
struct Sweepable {
  std::string flag;
  const char* alias;  // short form, or nullptr
  std::string parameter;
  bool sizes;
  std::vector<std::string> strategies;  // empty: every strategy
};

/// --lines (the workload, every strategy's) and every sweepable knob of the table.
const std::vector<Sweepable>& sweepables() {
  static const std::vector<Sweepable> k = [] {
    std::vector<Sweepable> out = {{"--lines", "-n", "lines", false, {}}};
    for (const Knob& knob : all_knobs())
      if (knob.sweepable)
        out.push_back({std::string(knob.flag), nullptr, std::string(knob.name),
                       knob.kind == KnobKind::kSize, strategies_using(knob)});
    return out;
  }();
  return k;
}

std::string sweepable_list() {
  std::string out;
  for (const auto& s : sweepables()) out += (out.empty() ? "" : ", ") + std::string(s.flag);
  return out;
}

/// Where a flag's value sits in args: the word after it, or after '=' in the same word.
struct Found {
  const Sweepable* what = nullptr;
  std::size_t index = 0;   // the word holding the value
  std::size_t offset = 0;  // where the value starts in it
};

std::vector<Found> find_lists(const std::vector<std::string>& args) {
  std::vector<Found> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const auto& s : sweepables()) {
      for (const char* name : {s.flag.c_str(), s.alias}) {
        if (!name) continue;
        const std::string n = name;
        Found f{&s, 0, 0};
        if (args[i] == n && i + 1 < args.size())
          f.index = i + 1;
        else if (args[i].rfind(n + "=", 0) == 0)
          f.index = i, f.offset = n.size() + 1;
        else
          continue;
        if (args[f.index].find(',', f.offset) != std::string::npos) out.push_back(f);
      }
    }
  }
  return out;
}

std::vector<std::uint64_t> parse_values(const Sweepable& s, const std::string& list) {
  std::vector<std::uint64_t> values;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    std::string word =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (word.empty()) throw Error(fmt::format("sweep: {}: empty value in '{}'", s.flag, list));
    // The flag's own words (base/quantity.h): --lines 10K,1e6 as --lines 10K alone reads.
    values.push_back(s.sizes ? parse_size(s.flag, word) : parse_count(s.flag, word, 0, UINT64_MAX));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(values.begin(), values.end());
  // 1K,1K (or 1K,1024) would collapse into one row with nothing to compare and no knee.
  if (auto twice = std::adjacent_find(values.begin(), values.end()); twice != values.end())
    throw Error(fmt::format("sweep: {}: {} is given twice in '{}' (each value once)", s.flag,
                            *twice, list));
  return values;
}

BenchOptions parse_point(std::vector<std::string> args, const Found& f, std::uint64_t value) {
  args[f.index] = args[f.index].substr(0, f.offset) + std::to_string(value);
  std::vector<const char*> argv = {"iobench"};
  for (const auto& a : args) argv.push_back(a.c_str());
  Command cmd = parse_command_line(static_cast<int>(argv.size()), argv.data());
  auto* o = std::get_if<BenchOptions>(&cmd);
  if (!o)
    throw Error("sweep: takes the options of a benchmark run only (see iobench sweep --help)");
  return std::move(*o);
}

}  // namespace

SweepOptions parse_sweep(const std::vector<std::string>& args) {
  const std::vector<Found> lists = find_lists(args);
  if (lists.empty())
    throw Error(
        fmt::format("sweep: give one flag a comma list of values, e.g. --buffer-size "
                    "1,16,256,4K,64K,1M (one of {})",
                    sweepable_list()));
  if (lists.size() > 1)
    throw Error(fmt::format("sweep: only one flag may have a list of values (got {} and {})",
                            lists[0].what->flag, lists[1].what->flag));
  const Found& f = lists.front();
  SweepOptions s;
  s.flag = f.what->flag;
  s.parameter = f.what->parameter;
  s.sizes = f.what->sizes;
  s.values = parse_values(*f.what, args[f.index].substr(f.offset));
  for (std::uint64_t v : s.values) s.runs.push_back(parse_point(args, f, v));

  const BenchOptions& first = s.runs.front();
  if (first.strategies.size() != 1)
    throw Error("sweep: needs exactly one strategy (--strategy NAME)");
  const std::string name(first.strategies.front()->name);
  const auto& fits = f.what->strategies;
  if (!fits.empty() && std::find(fits.begin(), fits.end(), name) == fits.end())
    throw Error(fmt::format("sweep: {} does not change {} (it sets {})", s.flag, name,
                            fmt::join(fits, " and ")));
  // One chart has one curve per quantity; two directories would need a legend per curve.
  if (first.dirs.size() > 1 && !first.plot.empty())
    throw Error("sweep: --plot takes one --dir (run the sweep once per directory)");
  if (first.format == OutputFormat::kCsv || first.format == OutputFormat::kMarkdown)
    throw Error("sweep: --format must be table or json");
  if (!first.expectations.empty() || !first.baseline.compare_with.empty() ||
      !first.baseline.save.empty() || !first.export_json.empty() || !first.export_csv.empty() ||
      !first.export_markdown.empty() || !first.export_junit.empty())
    throw Error(
        "sweep: --expect, baselines and --export-* belong to single runs; "
        "use --format json for the sweep's data");
  return s;
}

std::vector<std::string> sweep_flags() {
  std::vector<std::string> out;
  for (const auto& s : sweepables()) out.push_back(s.flag);
  return out;
}

std::string sweep_usage() {
  return "iobench sweep --strategy NAME FLAG V1,V2,... [options of a run]";
}

std::string sweep_help() {
  // Hand-written (the bench run's flags are its options), laid out as every other --help.
  const std::size_t width = help_width(), column = help_column(width);
  std::string out =
      reflow_blocks(
          "iobench sweep: one strategy at each value of one flag, a row per value, the knee."
          "\n\nUsage: " +
              sweep_usage(),
          width) +
      "\n\n";
  out += help_row("  FLAG", "One of " + sweepable_list() + ".", column, width);
  out += help_row("  V1,V2,...",
                  "Its values, counts and sizes as the flag takes them (10K is 10240, 1e6 a "
                  "million); run in ascending order.",
                  column, width);
  out += help_row("  --format table|json", "json: the iobench-sweep/1 document", column, width);
  out += help_row(
      "  --plot FILE",
      "Log-log chart (.svg, .png or .pdf) of write calls and time against the value (gnuplot)",
      column, width);
  out += help_row("  (any other)",
                  "Every other option of a run applies to every value (--lines, --runs, "
                  "--warmup, --dir, --timeout, --no-trace, --count-only, --color, --sort, ...).",
                  column, width);
  return out + "\n" +
         reflow_blocks(
             "The knee: the smallest value beyond which no larger value makes the median "
             "time 10% faster or more. A --lines sweep has none; its table shows the time "
             "per line.\n\nExample: iobench sweep --strategy buffered --buffer-size "
             "1,16,256,4K,64K,1M --plot sweep.svg",
             width) +
         "\n";
}

}  // namespace iobench
