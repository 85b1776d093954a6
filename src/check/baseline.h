// Baselines: a saved JSON document (a run's or compare's `iobench/1`, trace's
// `iobench-trace/1`), compared with a new run's record. A count above its baseline (beyond
// --count-tolerance) is a regression, one below it an improvement, which fails only with
// exact counts; medians may be slower by at most --time-tolerance. The comparison is plain
// values; report/baseline_table.h shows it, check/program_baseline.h names programs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/options.h"
#include "model/run_record.h"

namespace iobench {

/// Which command saved a baseline: a run of strategies, `iobench trace` (one program) or
/// `iobench compare` (one row per command). Only a baseline of the same kind is comparable.
enum class BaselineKind { kRun, kTrace, kCompare };
/// "iobench" (a run), "iobench trace", "iobench compare": the command, as messages name it.
const char* command_name(BaselineKind kind) noexcept;
/// "trace", "compare" (the `baseline.kind` a saved document holds); "run" for a run's.
const char* to_string(BaselineKind kind) noexcept;

/// One strategy's (or program's) row, validated: counts are exact integers, a median is a positive
/// time.
struct BaselineRow {
  std::string status;                        // ok, unsupported, failed, timeout
  std::optional<std::uint64_t> write_calls;  // null in the file: not traced
  std::optional<double> time_median_ns;      // null in the file: not measured
  /// Each syscall's calls, or nullopt where the file holds null: not measured, as write_calls.
  std::map<std::string, std::optional<std::uint64_t>> syscall_calls;
  // trace and compare: write_calls per file (path relative to where it ran), each nullopt
  // where the file holds null; a run's none.
  std::optional<std::map<std::string, std::optional<std::uint64_t>>> file_calls;
};

struct Baseline {
  BaselineKind kind = BaselineKind::kRun;  // a document without `baseline.kind`: a run's
  std::uint64_t lines = 0;
  std::map<std::string, std::string> config;  // strategy options, as text
  std::map<std::string, BaselineRow> rows;    // by strategy, or by program name
  std::vector<std::string> order;
  bool exact_counts = false;  // `baseline.exact_counts`: saved with --exact-counts
};

/// The most load_baseline reads: a saved baseline is about 4 KiB per strategy (38 KiB for
/// every strategy with --latency --trace-all), and a path to /dev/zero must be refused, not
/// read until memory runs out. 8 MiB of the costliest JSON (empty strings) parses in about
/// 250 MB, so the cap bounds memory too.
inline constexpr std::uint64_t kBaselineMaxBytes = std::uint64_t{8} << 20;

/// Throws Error (exit 2) when the file is missing, is not a regular file (after symlinks:
/// a FIFO or a device is refused, never read or waited on), is larger than
/// kBaselineMaxBytes, or is not a valid iobench/1 document (parse_baseline). A signal
/// during the read throws Interrupted. Defined in baseline_file.cc.
Baseline load_baseline(const std::string& path);
/// Parses the text of a baseline document (what load_baseline reads); fuzzed on its own.
/// Refuses a count that is neither null (not measured) nor a whole number from 0 to 2^64-1
/// (-0 and an integral 1.0 are counts), a median that is not a positive finite time, a status
/// iobench does not write, a strategy twice, or a key twice in one object (named by its path).
/// A trace or compare baseline (its `baseline` member) holds a name and the per-file counts
/// for each row.
Baseline parse_baseline(const std::string& text, const std::string& origin);

/// One compared value of one row ("buffered" "write_calls"), before and after: every value
/// the baseline or the run has, unchanged ones too, so that a JUnit report names the same
/// checks whether they pass or fail.
struct BaselineDiff {
  enum class Kind { kStatus, kCount, kTime };
  std::string strategy, metric;
  Kind kind = Kind::kCount;
  // {}: default initializers, so GCC 12 does not warn where a designated initializer omits them.
  std::string status_before{}, status_after{};                 // kStatus: "ok", "failed", ...
  std::optional<std::uint64_t> count_before{}, count_after{};  // kCount: nullopt, not measured
  double time_before_ns = 0, time_after_ns = 0;                // kTime: the medians
  bool regression = false;                                     // worse beyond its tolerance
  bool improvement = false;  // a count below its baseline beyond the tolerance
  bool failed = false;       // fails the check: a regression, or an improvement of exact counts
};

struct BaselineComparison {
  std::vector<std::string> config_changes;  // "buffer_size 65536 → 1024"
  std::vector<BaselineDiff> diffs;
  bool exact_counts = false;  // --exact-counts, or the baseline's own exact_counts
  bool regressed() const;     // some value regressed
  bool improved() const;      // some count improved
  bool failed() const;        // some value failed the check
};

/// Throws Error (exit 2) unless a run of `lines` lines of exactly `strategies` can be compared
/// with the baseline: called with the options before anything runs, and again with the rows.
void check_comparable(const Baseline& before, std::uint64_t lines,
                      const std::vector<std::string>& strategies);
void check_comparable(const Baseline& before, const BenchOptions& run);

/// Throws Error (exit 2) unless `before` was saved by the command of `kind`.
void check_kind(const Baseline& before, BaselineKind kind);
/// Throws Error (exit 2) when the run's tracing cannot measure what the baseline counts: no
/// trace (`traced` false) against counts, or --trace-all on one side only.
void check_same_tracing(const Baseline& before, bool traced, bool trace_all);

/// One row of the new run as compared: its name in the baseline, its result, and (trace,
/// compare) its write_calls per file, by path relative to where it ran.
struct ComparedRow {
  std::string name;
  const StrategyResult* result = nullptr;
  std::optional<std::map<std::string, std::uint64_t>> file_calls;
};
/// The comparison of rows already found comparable, each row by its name in `before`; its
/// counts exact when `rules` or `before` ask for it.
BaselineComparison compare_rows(const Baseline& before, const std::vector<ComparedRow>& after,
                                const BaselineRules& rules);

/// Throws Error (exit 2) when the two are not comparable (check_comparable).
BaselineComparison compare_with_baseline(const Baseline& before, const RunRecord& after,
                                         const BaselineRules& rules);

}  // namespace iobench
