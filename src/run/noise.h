// hyperfine's warning, for iobench's rows: whether a row's timed runs vary too much to trust
// its median (a busy machine, a frequency change). Whether that noise is enough to change a
// conclusion is judged after the table, against the other rows (report/noise_note.h).
#pragma once

#include "base/result.h"

namespace iobench {

/// Above this share of the median, a row's timings are called noisy.
constexpr double kNoisySpread = 0.10;

/// The robust spread of the runs (Stats::spread, the table's ± column) is more than
/// kNoisySpread of their median. Fewer than 3 runs are never judged: nothing to compare.
bool noisy(const Stats& times);

}  // namespace iobench
