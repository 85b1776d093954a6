#include "tracer/write_calls.h"

#include <unistd.h>

#include <algorithm>
#include <climits>

#include "tracer/tracer.h"

namespace iobench {
namespace {

// How /proc/PID/fd names an io_uring instance's fd.
constexpr std::string_view kRingPath = "anon_inode:[io_uring]";

void add(WriteCount& count, std::string_view name, const SyscallStats& st) {
  count.calls += st.calls;
  count.time_ns += st.time_ns;
  if (moves_data(name)) count.bytes += st.bytes;
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
  return on_ring ? syscall == "io_uring_enter" : moves_data(syscall);
}

bool is_program_file(const std::string& path, const std::vector<std::string>& streams) {
  // Output for a person or another program, not the file I/O being measured.
  if (std::find(streams.begin(), streams.end(), path) != streams.end()) return false;
  return path != "/dev/null" && !path.starts_with("/dev/pts/") && !path.starts_with("/dev/tty") &&
         !path.starts_with("pipe:") && !path.starts_with("socket:");
}

WriteCount count_writes(const TraceResult& trace, std::string_view own_file) {
  WriteCount count;
  if (trace.backend == "perf") {
    // Counters cannot tell fds apart. Exact all the same for a strategy, whose child writes
    // to nothing but its own file (it reports through shared memory) and has one ring at most.
    for (const auto& [name, st] : trace.syscalls)
      if (counts_as_write(name, false) || counts_as_write(name, true)) add(count, name, st);
    return count;
  }
  for (const FileStats& f : trace.files) {
    const bool ring = f.path == kRingPath;
    const bool counted =
        own_file.empty() ? is_program_file(f.path, trace.streams) : ring || f.path == own_file;
    if (!counted) continue;
    for (const auto& [name, st] : f.syscalls)
      if (counts_as_write(name, ring)) add(count, name, st);
  }
  return count;
}

}  // namespace iobench
