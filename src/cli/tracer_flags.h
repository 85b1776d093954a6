// The tracer's flag group (--count-only, --trace-all, --pin, --no-pin, --tracer), shared by
// every command that counts: the bench run, `trace` and `compare` parse it alike.
#pragma once

#include <string>

#include "tracer/tracer.h"

namespace CLI {
class App;
}

namespace iobench {

struct TracerFlags {
  bool count_only = false, trace_all = false, pin = false, no_pin = false, time_all = false;
  bool cross_check = false;  // --cross-check (tracer/cross_check.h)
  std::string backend = "auto";

  void add(CLI::App& app);
  /// Validated options (throws Error, exit 2). `traced`: false with --no-trace.
  /// `per_process`: iobench trace --per-process. `program`: a program is counted (trace,
  /// compare), not a strategy: its write_calls need a backend with a per-file split.
  /// `first_interrupt`: trace, whose first Ctrl-C is the command's.
  TracerOptions options(bool traced = true, bool per_process = false, bool program = false,
                        bool first_interrupt = false) const;
};

}  // namespace iobench
