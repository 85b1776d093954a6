// The one definition of `write_calls` (README "What counts as a write"): which syscalls
// count and on which files. The runner, `iobench trace` (table, JSON, --expect), `compare`
// and iobench::Trace all count through count_writes, so they agree on the same program.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

/// True when a call of `syscall` on an fd of `kind` counts: a data mover (write, writev,
/// pwrite64, pwritev, pwritev2, sendfile, splice, vmsplice, copy_file_range) or an io_submit
/// (filed under the file its write iocb names) on a file, and io_uring_enter on a ring that
/// has submitted a write to a file, whose writes reach the file with no write call. Syncs,
/// ftruncate, fallocate and msync never count; nor does anything on a stream, a terminal,
/// /dev/null, a pipe, a socket, an anonymous inode or an fd open read-only.
bool counts_as_write(std::string_view syscall, FdKind kind) noexcept;

/// `write_calls` of a trace. `own_file` set: a strategy's run, where only that file (and its
/// io_uring ring, whatever it was seen doing) counts; empty: a traced program, where each
/// call's fd kind decides (counts_as_write). A call seen failing is an error, not a write
/// call. A backend without a per-file split (perf) counts the whole process tree's calls.
WriteCount count_writes(const TraceResult& trace, std::string_view own_file = {});

}  // namespace iobench
