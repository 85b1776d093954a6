// A kernel clock's run (bpf_clock.h) as the TraceResult the ptrace backend fills: per
// syscall, per file (path and kind, as /proc/PID/fd and fd_kind.h would have said at the
// call) and per process.
#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "tracer/bpf/clock_abi.h"
#include "tracer/bpf_backend.h"
#include "tracer/syscalls.h"
#include "tracer/tally.h"
#include "tracer/tracer.h"

namespace iobench {

using namespace tracing;

namespace {

/// The call `nr` of the native ABI or, `compat`, of i386; null beyond the table.
const SyscallInfo* info_of(int nr, bool compat) {
  const auto& abis = syscall_abis();
  const std::size_t abi = compat ? 1 : 0;
  if (abi >= abis.size()) return nullptr;
  const long key = bpf_syscall_table().key(abis[abi].arch, nr);
  return key < 0 ? nullptr : &bpf_syscall_table().info(key);
}

std::string syscall_name(int nr, bool compat) {
  const SyscallInfo* info = info_of(nr, compat);
  return info != nullptr ? info->name : "syscall " + std::to_string(nr);
}

/// Half-width of the 95% interval of `calls` times a median whose spread is half the IQR
/// over `stretches`: one figure for every call, so its error adds up, not averages.
std::int64_t per_call_ci95_ns(std::uint64_t calls, double spread_ns, int stretches) {
  if (stretches <= 0) return 0;
  const double sigma = spread_ns / 0.6745;  // half the IQR of a normal is 0.6745 sd
  const double se_median = 1.2533 * sigma / std::sqrt(stretches);
  return std::llround(1.96 * se_median * static_cast<double>(calls));
}

/// The bias taken out of each call of one syscall: a write-family call's is measured on a
/// write (bpf_bias.cc), whose path through the kernel and the programs is nearer to it.
struct CallBias {
  double ns = 0, spread_ns = 0;
  int stretches = 0;
};

CallBias bias_of(int nr, bool compat, const BpfBias& bias) {
  const SyscallInfo* info = info_of(nr, compat);
  if (info != nullptr && info->write_family)
    return {bias.write_bias_ns, bias.write_bias_spread_ns, bias.write_stretches};
  return {bias.bias_ns, bias.bias_spread_ns, bias.stretches};
}

/// What every aggregate (syscall, file, process) holds, before it becomes SyscallStats.
struct Totals {
  std::uint64_t calls = 0, timed = 0, errors = 0, bytes = 0;
  std::int64_t total_ns = 0;
};

SyscallStats stats_of(const Totals& t, TraceMode mode, const CallBias& bias) {
  SyscallStats out;
  out.calls = t.calls;
  if (mode != TraceMode::kTiming) return out;  // as ptrace's count mode: calls only
  out.errors = t.errors;
  out.bytes = t.bytes;
  out.timed_calls = t.calls;  // every call timed; one that never returned has no interval
  out.returns_unknown = t.timed == 0;
  const double taken = bias.ns * static_cast<double>(t.timed);
  out.time_ns = std::max<std::int64_t>(0, t.total_ns - std::llround(taken));
  out.time_ci95_ns = per_call_ci95_ns(t.timed, bias.spread_ns, bias.stretches);
  return out;
}

void add(Totals& to, std::uint64_t calls, std::uint64_t timed, std::uint64_t errors,
         std::uint64_t bytes, std::int64_t total_ns) {
  to.calls += calls;
  to.timed += timed;
  to.errors += errors;
  to.bytes += bytes;
  to.total_ns += total_ns;
}

/// file_key() of a file the kernel saw: the kind decided as classify_fd would have, a ring
/// as ptrace's ring_file (session_files.cc).
std::string file_key_of(const BpfFileStats& f, const std::vector<FileId>& streams) {
  static const std::string registered = file_key("anon_inode:[io_uring]", FdKind::kWritingRing);
  if (f.ring & CLOCK_FILE_REGISTERED_RING) return registered;
  if (f.ino == 0) return file_key(kBadFdPath, FdKind::kNone);                // EBADF ahead
  if (f.path.empty()) return file_key(kUnreadableFdPath, FdKind::kUnknown);  // names map full
  const FdKind kind =
      kind_of_file(f.path, FileId{f.dev, f.ino}, f.mode, f.rdev, f.writable, streams);
  const bool writing = kind == FdKind::kRing && (f.ring & CLOCK_FILE_WRITING_RING) != 0;
  return file_key(f.path, writing ? FdKind::kWritingRing : kind);
}

/// Where a write-family call with no fd of its own is filed: msync under "(no fd)", as
/// ptrace does; io_submit's iocbs are not read in the kernel: some file, unnamed.
const std::string* fdless_key(int nr, bool compat) {
  static const std::string no_fd = file_key(kNoFdPath, FdKind::kNone);
  static const std::string iocbs = file_key(kUnreadableFdPath, FdKind::kUnknown);
  const SyscallInfo* info = info_of(nr, compat);
  if (info == nullptr || !info->write_family || info->fd_arg >= 0) return nullptr;
  return info->fd_arg == kFdsInIocbs ? &iocbs : &no_fd;
}

struct ByCall {
  Totals totals;
  CallBias bias;
};
using ByName = std::map<std::string, ByCall>;

/// The run's files, or (with `only`) one process's part of them.
std::vector<FileStats> files_of(const BpfClockRun& run, TraceMode mode, const BpfBias& bias,
                                const std::vector<FileId>& streams,
                                std::optional<pid_t> only = std::nullopt) {
  std::map<std::string, ByName> by_file;
  for (const BpfFileStats& f : run.files) {
    if (only && f.tgid != *only) continue;
    add(by_file[file_key_of(f, streams)][syscall_name(f.nr, f.compat)].totals, f.calls, f.calls,
        f.errors, f.bytes, f.total_ns);
    by_file[file_key_of(f, streams)][syscall_name(f.nr, f.compat)].bias =
        bias_of(f.nr, f.compat, bias);
  }
  for (const BpfProcessStats& p : run.processes) {
    if (only && p.tgid != *only) continue;
    if (const std::string* key = fdless_key(p.nr, p.compat)) {
      ByCall& call = by_file[*key][syscall_name(p.nr, p.compat)];
      add(call.totals, p.calls, p.timed, p.errors, p.bytes, p.total_ns);
      call.bias = bias_of(p.nr, p.compat, bias);
    }
  }
  std::vector<FileStats> out;
  for (const auto& [key, calls] : by_file) {
    FileStats file{.path = key, .syscalls = {}, .kind = FdKind::kFile};
    for (const auto& [name, c] : calls) file.syscalls[name] = stats_of(c.totals, mode, c.bias);
    out.push_back(std::move(file));
  }
  split_file_keys(out);
  return out;
}

std::vector<ProcessStats> processes_of(const BpfClockRun& run, TraceMode mode,
                                       const BpfBias& bias) {
  std::vector<ProcessStats> out;
  for (const BpfProcessStats& p : run.processes) {
    if (out.empty() || out.back().pid != p.tgid) {
      const auto comm = run.comms.find(p.tgid);
      out.push_back(ProcessStats{.pid = p.tgid,
                                 .syscalls = {},
                                 .name = comm != run.comms.end() ? comm->second : "",
                                 .files = files_of(run, mode, bias, run.streams, p.tgid)});
    }
    Totals t;
    add(t, p.calls, p.timed, p.errors, p.bytes, p.total_ns);
    out.back().syscalls[syscall_name(p.nr, p.compat)] =
        stats_of(t, mode, bias_of(p.nr, p.compat, bias));
  }
  return out;
}

/// What the program's maps had no room for, and the processes it left, as TraceResult::lost
/// lines.
std::vector<std::string> lost_lines(const clock_lost& lost,
                                    const std::vector<std::string>& privileged) {
  std::vector<std::string> out;
  if (lost.privileged > 0) {
    std::string names;
    for (const std::string& p : privileged) names += (names.empty() ? "" : ", ") + p;
    out.push_back(fmt::format(
        "{} processes not followed from their exec of a program with other credentials ({}: "
        "setuid, setgid or file capabilities), which ptrace may not follow either",
        lost.privileged, names));
  }
  const auto add_if = [&](std::uint64_t n, const char* what, int limit, const char* of) {
    if (n > 0)
      out.push_back(fmt::format("{} {} (the kernel clock holds {} {})", n, what, limit, of));
  };
  add_if(lost.processes, "processes not followed, their calls not counted", CLOCK_MAX_PROCESSES,
         "processes at once");
  add_if(lost.threads, "threads not followed, their calls not counted", CLOCK_MAX_THREADS,
         "threads at once");
  add_if(lost.file_calls, "calls filed under no file", CLOCK_MAX_FILES,
         "(process, fd, file, syscall) entries");
  add_if(lost.names, "files left unnamed, shown as (unreadable fd)", CLOCK_MAX_NAMES, "names");
  add_if(lost.process_rows, "calls counted under no process", CLOCK_MAX_PROCESS_ROWS,
         "(process, syscall) rows");
  return out;
}

}  // namespace

TraceResult to_trace_result(const BpfClockRun& run, TraceMode mode, const BpfBias& bias) {
  TraceResult r;
  r.available = true;
  r.mode = mode;
  r.backend = kBpfTraits.name;
  for (const BpfSyscallStats& s : run.syscalls) {
    Totals t;
    add(t, s.calls, s.timed, s.errors, s.bytes, s.total_ns);
    const CallBias b = bias_of(s.nr, s.compat, bias);
    SyscallStats& out = r.syscalls[syscall_name(s.nr, s.compat)] = stats_of(t, mode, b);
    if (mode == TraceMode::kTiming && s.latency && s.latency->weight() > 0)
      out.latency = latency_of(*s.latency, b.ns);
  }
  r.files = files_of(run, mode, bias, run.streams);
  r.processes = processes_of(run, mode, bias);
  r.lost = lost_lines(run.lost, run.privileged);
  r.wall_ns = run.wall_ns;
  if (WIFEXITED(run.status)) r.exit_code = WEXITSTATUS(run.status);
  if (WIFSIGNALED(run.status)) r.term_signal = WTERMSIG(run.status);
  r.timed_out = run.timed_out;
  if (mode == TraceMode::kTiming && bias.stretches > 0) {
    // Every traced call paid the programs' cost. Their own time (between their first and
    // last timestamps) is measured in the run, on a random sample of its calls; the rest of the cost (the slow syscall path,
    // their dispatch) is the stretches' (bpf_bias.cc), scaled by how much faster or slower
    // the same programs ran in the run than there: this VM's speed flips by ~40% between
    // stretches of 10 ms to 1 s, and unscaled it put 88 ns a call too much in one run of four.
    // The few untraced calls of the tree pay only a lookup, left in.
    double cost = 0, ci = 0;
    for (const BpfSyscallStats& s : run.syscalls) {
      const SyscallInfo* info = info_of(s.nr, s.compat);
      const bool writes = info != nullptr && info->write_family;
      const double overhead = writes ? bias.write_overhead_ns : bias.overhead_ns;
      const double spread = writes ? bias.write_overhead_spread_ns : bias.overhead_spread_ns;
      const double own = writes ? bias.write_own_ns : bias.own_ns;
      const double calls = static_cast<double>(s.calls);
      // Too few calls for one sample of the programs' own time: the stretches' figure.
      const double run_own = s.own_ns >= 0 ? static_cast<double>(s.own_ns) : own * calls;
      const double speed = own > 0 && s.calls > 0 ? run_own / calls / own : 1;
      cost += run_own + std::max(0.0, overhead - own) * speed * calls;
      ci += static_cast<double>(per_call_ci95_ns(s.calls, spread * speed, bias.stretches));
      // The scaling by speed is a model (the dispatch slows as the programs do), not a
      // measurement: what it moved the estimate by is part of the estimate's error.
      ci += std::abs(speed - 1) * std::max(0.0, overhead - own) * calls;
    }
    r.tracing_cost_ns = std::llround(cost);
    if (run.waited_ns >= 0) r.cpu_wait_ns = run.waited_ns;
    r.tracing_cost_ci95_ns = std::llround(ci);
  }
  if (mode == TraceMode::kTiming)
    r.bpf = BpfDetails{.bias_ns = std::llround(bias.write_bias_ns),
                       .bias_spread_ns = std::llround(bias.write_bias_spread_ns),
                       .other_bias_ns = std::llround(bias.bias_ns),
                       .other_bias_spread_ns = std::llround(bias.bias_spread_ns),
                       .call_cost_ns = std::llround(bias.overhead_ns),
                       .call_cost_spread_ns = std::llround(bias.overhead_spread_ns)};
  return r;
}

}  // namespace iobench
