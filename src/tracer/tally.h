// Running totals of the traced calls, per syscall, per process and per file, turned into
// the plain result types once the run is over.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>

#include "base/result.h"
#include "tracer/syscalls.h"

namespace iobench::tracing {

inline constexpr char kNoFdPath[] = "(no fd)";    // msync: the call names memory, not an fd
inline constexpr char kBadFdPath[] = "(bad fd)";  // the fd did not resolve (EBADF ahead)
// /proc/PID/fd refused us (a non-dumpable program, a tracer without root): some file, unnamed.
inline constexpr char kUnreadableFdPath[] = "(unreadable fd)";

class TraceTally {
 public:
  struct Counter {
    std::uint64_t calls = 0, errors = 0, bytes = 0;
    std::int64_t raw_ns = 0;  // entry-to-exit intervals, tracer overhead included
    std::uint64_t timed = 0;  // calls whose interval is in raw_ns (exit stop seen)
  };
  /// Where one call is counted; map nodes are stable, so these stay valid.
  struct Slot {
    Counter* total = nullptr;
    Counter* process = nullptr;
    Counter* file = nullptr;  // null for calls outside the write family
  };

  /// Counts a call at its entry. `path` is null when the call is not attributed to a file.
  Slot record_call(pid_t tgid, int nr, const std::string* path);
  /// Adds what only the exit stop knows.
  static void record_exit(const Slot& slot, long rval, bool is_error, bool moves_data,
                          std::int64_t raw_ns);

  /// Corrected time = raw - timed * overhead, per aggregate, floored at 0. Summing raw
  /// intervals and subtracting once is unbiased; clamping each call at 0 would keep the
  /// noise above the mean and drop the noise below it, inflating cheap calls' totals.
  void fill(TraceResult& result, const SyscallTable& table, std::int64_t overhead_ns) const;

 private:
  std::map<int, Counter> total_;
  std::map<pid_t, std::map<int, Counter>> processes_;
  std::map<std::string, std::map<int, Counter>> files_;
};

}  // namespace iobench::tracing
