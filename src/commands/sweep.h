// `iobench sweep`: one strategy at each value of one knob (--buffer-size 1,16,256,4K,64K,1M),
// a row per value and the knee where a larger value stops paying off. Every value is a full
// benchmark run by the same Runner, with BenchOptions parsed and checked by the same code as
// a plain `iobench` command line: a sweep can only ask for what a single run can.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/options.h"

namespace iobench {

/// `args` are the words after `sweep`. Throws Error (exit 2) naming the problem.
SweepOptions parse_sweep(const std::vector<std::string>& args);

/// `iobench sweep --help`.
std::string sweep_help();

/// Runs every value, prints the table or iobench-sweep/1 JSON, draws --plot; returns the
/// exit status (3 when a value failed).
int run_sweep(const SweepOptions& options);

}  // namespace iobench
