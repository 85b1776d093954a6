// Baselines: a saved `iobench/1` JSON document, compared with a new run. Counts are exact
// (or within --count-tolerance); medians may be slower by at most --time-tolerance.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/reporter.h"

namespace iobench {

struct BaselineRow {
  std::string status;
  std::optional<double> write_calls;
  std::optional<double> time_median_ns;
  std::map<std::string, double> syscall_calls;
};

struct Baseline {
  std::uint64_t lines = 0;
  std::map<std::string, std::string> config;  // strategy options, as text
  std::map<std::string, BaselineRow> rows;     // by strategy
  std::vector<std::string> order;
};

/// Throws Error (exit 2) when the file is missing or is not an iobench/1 document.
Baseline load_baseline(const std::string& path);
/// Parses the text of a baseline document (what load_baseline reads); fuzzed on its own.
Baseline parse_baseline(const std::string& text, const std::string& origin);

struct BaselineDiff {
  std::string strategy, metric;
  std::string before, after, change;
  bool regression = false;
};

struct BaselineComparison {
  std::vector<std::string> config_changes;  // "buffer_size 65536 → 1024"
  std::vector<BaselineDiff> diffs;
  bool regressed() const;
};

/// Throws Error (exit 2) when the two are not comparable: a different number of lines, or
/// a strategy on one side only.
BaselineComparison compare_with_baseline(const Baseline& before, const BenchReport& after,
                                         std::optional<std::uint64_t> count_tolerance,
                                         double time_tolerance);

std::string render_comparison(const BaselineComparison& cmp);

}  // namespace iobench
