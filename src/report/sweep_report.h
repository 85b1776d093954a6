// What `iobench sweep` shows: one strategy run at each value of one knob, and the knee
// where a larger value stops paying off. Rendered as a table, as `iobench-sweep/1` JSON
// and as a chart, all from the same SweepReport.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/reporter.h"

namespace iobench {

struct SweepPoint {
  std::uint64_t value = 0;
  StrategyResult result;
};

struct SweepReport {
  RunRecord base;  // where and how (host, lines, runs); its results are unused
  std::string strategy;
  std::string flag;                 // "--buffer-size"
  std::string parameter;            // "buffer_size": the iobench/1 config key the flag sets
  bool sizes = false;               // values are byte sizes (shown as 4 KiB, not 4,096)
  std::vector<SweepPoint> points;   // ascending values
  std::optional<std::size_t> knee;  // index into points
};

/// The knee: the smallest value beyond which no larger value makes the median time at least
/// `gain` (10%) faster, i.e. the first point i with t(j) > (1 - gain)·t(i) for every later
/// measured point j. The largest value always passes vacuously, so when it is the only one
/// that passes the curve was still falling at the end of the range and there is no knee
/// (nullopt). Points that did not measure are skipped.
std::optional<std::size_t> find_knee(const std::vector<SweepPoint>& points, double gain = 0.10);

/// The value as a person writes it: "4 KiB" for sizes, "1,024" for counts.
std::string format_sweep_value(const SweepReport& rep, std::uint64_t value);

std::string render_sweep_table(const SweepReport& rep, const Presentation& pres);
/// {"schema":"iobench-sweep/1", "strategy", "parameter", "points":[{"value","result"}],
///  "knee", plus "iobench", "host" and "config" as in iobench/1}.
std::string render_sweep_json(const SweepReport& rep);
/// --dir A,B: one document, the points of every directory in turn (each result names its
/// dir and filesystem), "knee" null and "knees": [{"dir", "filesystem", "value"}] instead.
std::string render_sweep_json(const std::vector<SweepReport>& reps);

}  // namespace iobench
