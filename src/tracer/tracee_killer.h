// Killing a tracer's tracees from outside the tracer: from a process forked off it (the
// watchdog's), which keeps its clock while every thread of the tracer is stopped (a SIGSTOP
// from the command). Async-signal-safe: a fork of a threaded process may hold another
// thread's locks, so raw syscalls and stack buffers only.
#pragma once

#include <sys/types.h>

namespace iobench::tracing {

/// SIGKILLs every process /proc shows traced by thread `tracer` (its TracerPid), each through
/// a pidfd checked again after it was opened, so that a pid reused meanwhile is never hit.
/// Returns how many of them had not ended yet (a zombie has: only its tracer can reap it).
int kill_tracees_of(pid_t tracer) noexcept;

}  // namespace iobench::tracing
