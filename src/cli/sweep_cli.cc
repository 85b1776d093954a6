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
    // Suffixes work for every swept flag: --lines 10K,100K,1M reads as it should.
    values.push_back(parse_size(s.flag, word));
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
  if (!first.expectations.empty() || !first.baseline.empty() || !first.save_baseline.empty() ||
      !first.export_json.empty() || !first.export_csv.empty() || !first.export_markdown.empty() ||
      !first.export_junit.empty())
    throw Error(
        "sweep: --expect, baselines and --export-* belong to single runs; "
        "use --format json for the sweep's data");
  return s;
}

std::string sweep_help() {
  return fmt::format(
      "iobench sweep: one strategy at each value of one flag, a row per value, and the knee.\n\n"
      "Usage: iobench sweep --strategy NAME FLAG V1,V2,... [options of a run]\n\n"
      "  FLAG is one of {}.\n"
      "  Values take K, M, G (KiB, MiB, GiB) suffixes; they are run in ascending order.\n"
      "  Every other option of a run applies to every value (--lines, --runs, --warmup, --dir,\n"
      "  --timeout, --no-trace, --count-only, --color, --sort, ...).\n"
      "  --format table|json   json: the iobench-sweep/1 document\n"
      "  --plot FILE.svg       log-log chart of write calls and time against the value "
      "(gnuplot)\n\n"
      "The knee: the smallest value beyond which no larger value makes the median time 10%\n"
      "faster or more. A --lines sweep has none; its table shows the time per line.\n\n"
      "Example: iobench sweep --strategy buffered --buffer-size 1,16,256,4K,64K,1M --plot "
      "sweep.svg\n",
      sweepable_list());
}

}  // namespace iobench
