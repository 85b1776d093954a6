// The noise line after a table: the comparisons whose conclusion the host's noise could
// change, named with the spreads the table's ± column shows; nothing when every one stands.
// A row's own flag (`noisy`, run/noise.h) says its runs varied; this says whether it matters.
#pragma once

#include <string>

#include "report/reporter.h"
#include "report/sweep_report.h"

namespace iobench {

/// Medians closer than this (the log of 1.10) are a tie, however quiet the machine: no
/// conclusion rests on their order, as a sweep's knee counts only a 10% gain. The demo has
/// such pairs (mmap and single-write 3% apart, stdio and writev 4-7%): with ties at 0% they
/// gave a noise warning in 4 quiet runs of 4, at 5% in 1 of 5.
inline constexpr double kTie = 0.09531;  // ln(1.10)

/// Two rows, `faster` ranked first, whose medians are closer than the noise of their runs
/// allows to tell apart: ln(slower / faster) under 2 σ of the log ratio (table_parts.h,
/// Speedup), with at least one of them noisy, and not a tie (kTie). Without a noisy row a
/// near tie is a real one.
bool rank_at_stake(const StrategyResult& faster, const StrategyResult& slower);

/// "timings too noisy to rank stdio (±31%) against writev (±24%) in /tmp: the machine may be
/// busy; more --runs or a quieter machine would tell" for every pair at stake in every
/// directory's block (adjacent ranks and the summary's comparisons); "" when none is.
std::string noise_note(const RunRecord& rep);

/// The same for a sweep's neighbouring values ("buffered --buffer-size 4K (±18%) against 8K
/// (±3%)"), naming the directory when `name_dir`.
std::string sweep_noise_note(const SweepReport& rep, bool name_dir);

/// Writes a note to stderr as "iobench: warning: NOTE" after the table; nothing for "".
void print_noise_note(const std::string& note);

}  // namespace iobench
