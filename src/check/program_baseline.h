// Baselines of the user's own programs (`iobench trace`, `iobench compare`): each row is a
// program, known by a name that does not hold the path it ran from (CI paths hold temporary
// directories), and besides the counts a run's rows have, its write_calls per file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "check/baseline.h"

namespace iobench {

/// What a saved trace or compare baseline holds for a row besides the command's document:
/// its name and its write_calls per file (nullopt: the backend does not split by file).
struct ProgramRow {
  std::string name;
  std::optional<std::map<std::string, std::uint64_t>> file_calls;
};

/// The name of a program's row: `given` (trace --name, compare -n) when set, else the last
/// component of `argv0` as written ("./build/writer" is "writer").
std::string program_name(const std::string& given, const std::string& argv0);

/// write_calls per file (count_writes, the one definition, on each file alone), leaving out
/// files with none; a path under `dir` is relative to it. nullopt without a per-file split.
std::optional<std::map<std::string, std::uint64_t>> file_write_calls(const TraceResult& trace,
                                                                     const std::string& dir);

/// `iobench trace`'s one run as a row: ok when the command exited 0, timeout, else failed;
/// its write_calls and trace.
StrategyResult traced_program_result(const TraceResult& trace);

/// Throws Error (exit 2, before anything runs) unless `before` was saved by the command of
/// `kind` for exactly the programs `names`, and the run's tracing measures what it counts.
void check_comparable(const Baseline& before, BaselineKind kind,
                      const std::vector<std::string>& names, bool traced, bool trace_all);

/// The comparison of `results` (named `names`, same order, found comparable) with `before`;
/// their files are counted relative to `dir`, where they ran.
BaselineComparison compare_programs(const Baseline& before, const std::vector<std::string>& names,
                                    const std::vector<StrategyResult>& results,
                                    const std::string& dir, const BaselineRules& rules);

}  // namespace iobench
