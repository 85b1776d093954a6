// `iobench compare`: real programs side by side, the way hyperfine runs them (warm-ups, then
// timed runs of the whole process, no shell unless asked), plus one traced run each for the
// exact write calls, in the same table, summary, JSON and chart as the strategies. Each
// command runs through the same Runner as a strategy (run/command_workload.h).
#pragma once

#include "model/options.h"

namespace iobench {

/// Runs every command; prints the table (or JSON), draws --plot; returns the exit status
/// (3 when a command failed).
int run_compare(const CompareOptions& options);

}  // namespace iobench
