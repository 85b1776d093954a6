#include "tracer/write_calls.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "tracer/counting_backend.h"
#include "tracer/tracer.h"

namespace iobench {
namespace {

// How /proc/PID/fd names an io_uring instance's fd.
constexpr std::string_view kRingPath = "anon_inode:[io_uring]";

/// Calls by syscall, to name the busiest once every file is added.
using PerSyscall = std::map<std::string, std::uint64_t, std::less<>>;

/// `returns_seen`: the backend saw the calls' returns (timing mode), so their errors are
/// measured; where none was seen, every call counts.
void add(WriteCount& count, double& ci2, PerSyscall& per, std::string_view name,
         const SyscallStats& st, bool returns_seen) {
  // A failed call wrote nothing: an error, not a write call (exact where every call was
  // timed, else estimated from the timed ones as errors are).
  count.calls += st.calls - (returns_seen ? std::min(st.errors, st.calls) : 0);
  count.time_ns += st.time_ns;
  count.timed_calls += st.timed_calls;
  // Independent estimates: their 95% half-widths add in quadrature.
  ci2 += static_cast<double>(st.time_ci95_ns) * static_cast<double>(st.time_ci95_ns);
  if (moves_data(name)) count.bytes += st.bytes;
  per[std::string(name)] += st.calls;
}

void finish(WriteCount& count, double ci2, const PerSyscall& per) {
  count.time_ci95_ns = std::llround(std::sqrt(ci2));
  std::uint64_t most = 0;
  for (const auto& [name, calls] : per)
    if (calls > most) most = calls, count.busiest = name;
}

}  // namespace

bool counts_as_write(std::string_view syscall, FdKind kind) noexcept {
  // By the call, whatever its ABI: "write (i386)" counts as write does.
  const std::string_view base = syscall_base_name(syscall);
  switch (kind) {
    case FdKind::kFile:
    case FdKind::kUnknown:  // most likely a file: README "What counts as a write"
      return moves_data(syscall) || base == "io_submit";
    case FdKind::kWritingRing:
      return base == "io_uring_enter";
    default:
      return false;
  }
}

WriteCount count_writes(const TraceResult& trace, std::string_view own_file) {
  WriteCount count;
  double ci2 = 0;
  PerSyscall per;
  const TraceMeasures m = measures(trace);
  if (!m.per_file) {
    // Counters cannot tell fds apart. Exact all the same for a strategy, whose child writes
    // to nothing but its own file (it reports through shared memory) and has one ring at most.
    for (const auto& [name, st] : trace.syscalls)
      if (counts_as_write(name, FdKind::kFile) || counts_as_write(name, FdKind::kWritingRing))
        add(count, ci2, per, name, st, m.returns);
    finish(count, ci2, per);
    return count;
  }
  for (const FileStats& f : trace.files) {
    for (const auto& [name, st] : f.syscalls) {
      // A strategy's ring is its own, made to write its file: counted whatever it was seen
      // doing (an SQPOLL ring's one enter submits a no-op; its poller takes the writes).
      const bool counted =
          own_file.empty()
              ? counts_as_write(name, f.kind)
              : (f.path == kRingPath ? name == "io_uring_enter"
                                     : f.path == own_file && counts_as_write(name, FdKind::kFile));
      if (counted) add(count, ci2, per, name, st, m.returns);
    }
  }
  finish(count, ci2, per);
  return count;
}

}  // namespace iobench
