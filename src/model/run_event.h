// What the runner tells its caller while it runs, as plain values: each child run about to
// start (a progress line shows it) and each notice for the person at the terminal. The
// commands wire both to report/progress.h; run/ prints nothing itself.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace iobench {

enum class RunKind { kWarmup, kTimed, kTraced };

/// One child run about to start: run `run` of `total` for one row (warm-ups, timed runs
/// and the traced run, counted together).
struct RunEvent {
  std::string_view name;
  int run = 0;
  int total = 0;
  RunKind kind = RunKind::kTimed;
};
using RunObserver = std::function<void(const RunEvent&)>;

/// A line the runner has for stderr: a warning (a noisy row, a run it could not trace), or
/// the file --keep kept. `text` holds names from outside (a strategy, a -n name, a path) as
/// the bytes they are: whoever prints it escapes it.
struct RunNotice {
  enum class Kind { kWarning, kKept };
  Kind kind = Kind::kWarning;
  std::string text;
};
using NoticeSink = std::function<void(const RunNotice&)>;

}  // namespace iobench
