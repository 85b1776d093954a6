// `iobench [run]`: every chosen strategy through the runner, then checks and reporters.
#pragma once

#include "model/options.h"

namespace iobench {

/// Runs the benchmark; returns the exit status (README "Exit status").
int run_bench(const BenchOptions& options);

}  // namespace iobench
