// The one definition of `write_calls` (README "What counts as a write"): which syscalls
// count and on which files. The runner, `iobench trace` (table, JSON, --expect), `compare`
// and iobench::Trace all count through count_writes, so they agree on the same program.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace iobench {

/// What the counted calls add up to. bytes and time_ns are 0 when the backend did not
/// measure them (count mode, perf).
struct WriteCount {
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;        // what the data movers among them wrote
  std::int64_t time_ns = 0;       // their syscall time, tracer cost subtracted
  std::uint64_t timed_calls = 0;  // of them, the calls whose time was measured (a sample)
  std::int64_t time_ci95_ns = 0;  // half-width of time_ns's 95% interval
  std::string busiest;            // the syscall with the most counted calls: the row's latency
};

/// True when a call of `syscall` on a file counts: a data mover (write, writev, pwrite64,
/// pwritev, pwritev2, sendfile, splice, vmsplice, copy_file_range) on any file, and
/// io_uring_enter on an io_uring ring (`on_ring`), whose writes reach the file with no
/// write call. Syncs, ftruncate, fallocate and msync never count.
bool counts_as_write(std::string_view syscall, bool on_ring) noexcept;

/// True when a traced program's writes to `path` count: every file but its standard
/// streams (`streams`: the paths its stdout and stderr had when it started), a terminal
/// (/dev/tty*, /dev/pts/*), /dev/null, pipes and sockets.
bool is_program_file(const std::string& path, const std::vector<std::string>& streams);

/// The paths of this process's stdout and stderr, as /proc/self/fd names them: what a child
/// forked now starts with, for TraceResult::streams.
std::vector<std::string> standard_stream_paths();

/// `write_calls` of a trace. `own_file` set: a strategy's run, where only that file (and its
/// io_uring ring) counts; empty: a traced program, where is_program_file decides. A backend
/// without a per-file split (perf) counts the whole process tree's calls.
WriteCount count_writes(const TraceResult& trace, std::string_view own_file = {});

}  // namespace iobench
