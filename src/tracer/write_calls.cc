#include "tracer/write_calls.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

#include "tracer/tracer.h"

namespace iobench {
namespace {

// How /proc/PID/fd names an io_uring instance's fd.
constexpr std::string_view kRingPath = "anon_inode:[io_uring]";

/// Calls by syscall, to name the busiest once every file is added.
using PerSyscall = std::map<std::string, std::uint64_t, std::less<>>;

void add(WriteCount& count, double& ci2, PerSyscall& per, std::string_view name,
         const SyscallStats& st) {
  count.calls += st.calls;
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

std::vector<std::string> standard_stream_paths() {
  std::vector<std::string> paths;
  for (const char* link : {"/proc/self/fd/1", "/proc/self/fd/2"}) {
    char target[PATH_MAX];
    const ssize_t n = ::readlink(link, target, sizeof(target));
    if (n > 0) paths.emplace_back(target, static_cast<std::size_t>(n));  // closed: none
  }
  return paths;
}

bool counts_as_write(std::string_view syscall, bool on_ring) noexcept {
  // By the call, whatever its ABI: "write (i386)" counts as write does.
  return on_ring ? syscall_base_name(syscall) == "io_uring_enter" : moves_data(syscall);
}

bool is_program_file(const std::string& path, const std::vector<std::string>& streams) {
  // Output for a person or another program, not the file I/O being measured.
  if (std::find(streams.begin(), streams.end(), path) != streams.end()) return false;
  return path != "/dev/null" && !path.starts_with("/dev/pts/") && !path.starts_with("/dev/tty") &&
         !path.starts_with("pipe:") && !path.starts_with("socket:");
}

WriteCount count_writes(const TraceResult& trace, std::string_view own_file) {
  WriteCount count;
  double ci2 = 0;
  PerSyscall per;
  if (trace.backend == "perf") {
    // Counters cannot tell fds apart. Exact all the same for a strategy, whose child writes
    // to nothing but its own file (it reports through shared memory) and has one ring at most.
    for (const auto& [name, st] : trace.syscalls)
      if (counts_as_write(name, false) || counts_as_write(name, true))
        add(count, ci2, per, name, st);
    finish(count, ci2, per);
    return count;
  }
  for (const FileStats& f : trace.files) {
    const bool ring = f.path == kRingPath;
    const bool counted =
        own_file.empty() ? is_program_file(f.path, trace.streams) : ring || f.path == own_file;
    if (!counted) continue;
    for (const auto& [name, st] : f.syscalls)
      if (counts_as_write(name, ring)) add(count, ci2, per, name, st);
  }
  finish(count, ci2, per);
  return count;
}

}  // namespace iobench
