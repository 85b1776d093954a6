// `iobench trace -- CMD`: one command under a counting backend, like `strace -c`.
#pragma once

#include "model/options.h"

namespace iobench {

/// Traces the command; returns the exit status (the command's own, or iobench's).
int run_trace(const TraceCommandOptions& options);

}  // namespace iobench
