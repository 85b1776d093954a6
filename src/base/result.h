// Plain result values: what measurement produces and every reporter consumes.
// Nothing here knows how it was measured or how it will be printed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace iobench {

/// Summary of a set of samples (nanoseconds or any other unit).
struct Stats {
  double median = 0, mean = 0, stddev = 0, min = 0, max = 0;
  /// A robust σ of the samples: 1.4826 × their median absolute deviation (σ for normal
  /// noise). One wild run, which inflates stddev, barely moves it; 0 below 2 samples.
  double spread = 0;
  std::vector<std::int64_t> samples;
};
Stats summarize(std::vector<std::int64_t> samples);

/// Corrected per-call times of one syscall's timed calls (tracer cost subtracted), from a
/// bounded log-linear histogram: each value to within 1.6%.
struct LatencySummary {
  std::int64_t p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  std::vector<std::pair<std::int64_t, double>> cdf;  // (ns, fraction of calls at or below)
};

/// One syscall's totals, as strace -c shows them.
struct SyscallStats {
  std::uint64_t calls = 0;                  // every call: exact in every mode
  std::uint64_t errors = 0;                 // exact when every call was timed, else an estimate
  std::uint64_t bytes = 0;                  // successful returns of data-moving calls; likewise
  std::int64_t time_ns = 0;                 // tracer overhead subtracted; 0 in count mode
  std::uint64_t timed_calls = 0;            // calls whose interval was measured (tracer/sampler.h)
  std::int64_t time_ci95_ns = 0;            // half-width of time_ns's 95% interval
  std::optional<LatencySummary> latency{};  // per syscall over the whole run; not per file
  // None of this syscall's calls came back to the tracer (exit_group, a call still blocked
  // when the program was killed): errors and bytes are unknown, not 0.
  bool returns_unknown = false;
  /// time_ns, errors and bytes were scaled up from a sample of the calls.
  bool estimated() const { return timed_calls < calls; }
  /// errors and bytes are estimates (tracer/tally.h), not counts of every return.
  bool returns_estimated() const { return estimated() && !returns_unknown; }
  /// The interval holds 0: the figure says nothing, whatever its value.
  bool time_uncertain() const { return calls > 0 && (time_ns <= 0 || time_ci95_ns >= time_ns); }
};

/// What the fd a call named was at the call, by its inode and type (README "What counts as
/// a write"): a traced program's data movers count only on a kFile or a kUnknown.
enum class FdKind : std::uint8_t {
  kFile,         // a regular file, block device, any device but a terminal and /dev/null
  kUnknown,      // /proc refused to say (a non-dumpable program, a tracer without root)
  kStream,       // the stdout or stderr it started with: that inode, whatever its name now
  kTerminal,     // a virtual console, serial port, /dev/tty, /dev/console or pseudo-terminal
  kNull,         // /dev/null
  kPipe,         // anonymous or named (a FIFO)
  kSocket,       //
  kAnon,         // an anonymous inode: eventfd, timerfd, signalfd, epoll, ...
  kReadOnly,     // open without write access: a data mover fails with EBADF
  kRing,         // an io_uring ring not seen submitting a write to a file
  kWritingRing,  // an io_uring ring that has
  kNoWrite,      // io_submit with no write to a file among its iocbs
  kNone,         // no fd at all: msync's memory, a bad fd
};

/// Calls attributed to the file behind the fd (path as /proc/PID/fd shows it). One path
/// can have rows of two kinds: two files that had that name, or a ring before and after
/// its first write.
struct FileStats {
  std::string path;
  std::map<std::string, SyscallStats> syscalls;
  FdKind kind = FdKind::kFile;
  std::uint64_t calls() const;
  std::uint64_t bytes() const;
};

/// One process of the traced tree (every thread of it together), named as ps names it.
struct ProcessStats {
  int pid = 0;
  std::map<std::string, SyscallStats> syscalls;
  // Its command name: the kernel's comm (at most 15 bytes) after its last exec, or its
  // parent's when it never exec'd; empty when unknown.
  std::string name;
  std::vector<FileStats> files;  // its part of TraceResult::files, path by path
};

enum class TraceMode { kTiming, kCount };
/// "timing" or "count", as JSON spells the mode.
const char* to_string(TraceMode mode) noexcept;

/// What only the ptrace backend fills: how it traced, and what it subtracted.
struct PtraceDetails {
  bool pinned = false;
  bool seccomp = true;           // false: fell back to PTRACE_SYSCALL on every syscall
  std::int64_t overhead_ns = 0;  // calibrated tracer cost per call, subtracted from times
  // Timed calls whose tracer cost was measured by a probe right after them (tracer/probe.h);
  // the others had the calibrated cost subtracted.
  std::uint64_t probed_calls = 0;
  // The traced program's CPU time (user + sys of the main process and the children it
  // waited for), the tracer's stops included.
  std::int64_t cpu_ns = 0;
  // Of the timed intervals, the share either side spent waiting for a CPU (run_delay.h).
  double busy_share = 0;
  // Programs that exec'd without the setuid/setgid/file capabilities their file grants:
  // the kernel ignores them under a tracer that is not root (no_new_privs, ptrace).
  std::vector<std::string> lost_privileges;
  // ptrace requests of the command's programs that the kernel refused (EPERM) because their
  // process was traced already, by iobench (a process has one tracer): {program, request},
  // e.g. {"/usr/bin/gdb", "PTRACE_TRACEME"}, once each.
  std::vector<std::pair<std::string, std::string>> refused_ptrace;
  // Calibrations of the tracer's cost this run made, before or after it (tracer.cc).
  std::uint32_t calibrations = 0;
  // It timed no call and had no calibration yet: none was made, and nothing was subtracted.
  bool calibration_skipped = false;
};

/// What one traced run saw. `available` is false when the backend was refused.
/// What only the bpf backend fills: the clock's bias it took out of every call.
struct BpfDetails {
  // A write-family call's: kernel interval less the untraced cost of a small write; may be < 0.
  std::int64_t bias_ns = 0;
  std::int64_t bias_spread_ns = 0;  // half the interquartile range over its stretches
  // Any other call's (--trace-all), measured on a null call (getppid).
  std::int64_t other_bias_ns = 0;
  std::int64_t other_bias_spread_ns = 0;
  // What the programs cost a traced call, as its caller sees it (traced less untraced time of
  // a null call), and its spread: taken out of the traced run's own time for "% of time".
  std::int64_t call_cost_ns = 0;
  std::int64_t call_cost_spread_ns = 0;
};

/// The write family's ptrace estimate held to the kernel clock's time for the same calls, in
/// the same run (--cross-check, tracer/cross_check.h): the kernel's interval holds no ptrace
/// stop (they come before sys_enter and after sys_exit).
struct CrossCheck {
  // {}: a default initializer, so GCC 12 does not warn where a designated initializer omits it.
  std::string unavailable_reason{};  // non-empty: not measured, and why; nothing below is known
  std::uint64_t calls = 0;           // write-family calls ptrace counted
  std::uint64_t kernel_calls = 0;    // the kernel clock's count (ptrace's probes left out)
  std::int64_t estimate_ns = 0;      // ptrace: corrected total, estimated from its timed sample
  std::int64_t estimate_ci95_ns = 0;
  std::int64_t kernel_ns = 0;  // kernel clock: every call timed, its bias taken out
  std::int64_t kernel_ci95_ns = 0;
  std::int64_t kernel_bias_ns = 0;  // per call, what was taken out (may be < 0)
  double ratio = 0;                 // estimate_ns / kernel_ns
  double ratio_ci95 = 0;            // half-width of its 95% interval
};

struct TraceResult {
  bool available = false;
  std::string unavailable_reason;
  TraceMode mode = TraceMode::kTiming;
  // Who counted, by its name in the backend list (tracer/backends.cc): what it measured is
  // its traits' (tracer/counting_backend.h, measures()), never read from this name.
  std::string backend = "ptrace";
  // Non-empty in timing mode when the tracer's cost could not be calibrated: why. Every
  // time (time_ns, time_ci95_ns, latency) is then unknown, not 0; calls, errors and bytes
  // are measured as ever.
  std::string time_unavailable_reason;
  std::map<std::string, SyscallStats> syscalls;
  std::vector<FileStats> files;
  std::vector<ProcessStats> processes;
  std::int64_t wall_ns = 0;
  // How the traced program ended.
  int exit_code = -1;      // when it exited
  int term_signal = 0;     // when a signal killed it
  bool timed_out = false;  // killed by the tracer's timeout
  // What being traced added to the run's wall time, when the backend can tell (bpf: its
  // calls times its cost per call, measured next to the run), with its 95% half-width: "% of
  // time" is then taken from the traced run alone. Unset where it is not known (ptrace: its
  // stops also slow the program's own code, by an amount nothing measures) or in count mode.
  std::optional<std::int64_t> tracing_cost_ns;
  std::int64_t tracing_cost_ci95_ns = 0;
  // That cost was measured right after this run, not taken from an earlier one (bpf: runs of
  // 10,000 calls or more): a run that went at another speed than it can be traced again.
  bool cost_measured_beside = false;
  // How long the traced program's main thread was runnable but had no CPU (preempted by a
  // build, say), when the backend can tell (bpf): off the run's wall time with the cost, so
  // that "% of time" compares time on and waiting in calls with the same of the run.
  std::optional<std::int64_t> cpu_wait_ns;
  // What the backend had no room to keep (its tables full), one line each: every count it
  // holds may then be smaller than the truth, so checks that judge counts fail rather than
  // pass on them. Empty when every call was counted, filed and named.
  std::vector<std::string> lost;
  std::optional<PtraceDetails> ptrace;  // set by the ptrace backend alone
  std::optional<BpfDetails> bpf;        // set by the bpf backend alone, in timing mode
  // --cross-check alone (tracer/cross_check.h)
  std::optional<CrossCheck> cross_check;
};

enum class ResultStatus { kOk, kUnsupported, kFailed, kTimeout };
const char* to_string(ResultStatus s);

/// One strategy's row.
struct StrategyResult {
  std::string strategy;
  std::string dir, filesystem;  // where it ran: --dir, and its filesystem type ("tmpfs")
  ResultStatus status = ResultStatus::kOk;
  std::string error;             // one line, empty when ok
  std::uint64_t bytes = 0;       // expected bytes (what a correct run writes)
  std::optional<bool> verified;  // nullopt when nothing was checked (unsupported)
  Stats time_ns;                 // untraced runs only
  // Where each time_ns sample ran among all timed runs of its Runner (0-based, same order as
  // the samples): shows the interleaving.
  std::vector<int> run_order;
  bool noisy = false;  // the samples vary too much to trust the median (noise.h)
  Stats cpu_ns;        // user + sys from wait4, untraced runs
  // Median over the untraced runs of time_ns less the time the strategy's thread waited
  // for a CPU (schedstat, read around its timed section); unset where not every run could
  // tell (a command's runs). "% of time" under ptrace is over this: on a busy machine
  // others' work filled 35% of the wall time of a row that is nearly all syscalls.
  std::optional<std::int64_t> time_less_cpu_waits_ns;
  std::uint64_t minor_faults = 0, major_faults = 0;    // medians over untraced runs
  std::uint64_t voluntary_cs = 0, involuntary_cs = 0;  // medians over untraced runs
  std::optional<TraceResult> trace;                    // the one traced run, when there was one
  std::optional<std::uint64_t> write_calls;     // write family on the target file (+ ring enters)
  std::optional<std::int64_t> syscall_time_ns;  // of those calls, overhead subtracted
  std::int64_t syscall_time_ci95_ns = 0;        // half-width of its 95% interval
  std::uint64_t timed_calls = 0;                // of write_calls, those timed
  // syscall_time over the traced run's own time less the tracer's cost: 0..1; nullopt when
  // the correction cannot be trusted (or nothing was timed).
  std::optional<double> syscall_share;
  // Corrected per-call times of its most frequent write call (whole run), when timed.
  std::optional<LatencySummary> latency;
  // The strategy's own time during the traced run: how much tracing slowed it. Never its speed.
  std::optional<std::int64_t> traced_time_ns;
};

/// The row's syscall time says nothing: calls were made and its 95% interval holds 0 (or the
/// subtraction left 0).
bool syscall_time_uncertain(const StrategyResult& r);
/// The traced run's own time: its time less what tracing cost it and its waits for a CPU,
/// where the backend measured that cost (bpf); the whole of a one-clock "% of time". Unset
/// where it did not (ptrace): a share is then over the untraced median.
std::optional<double> traced_own_time_ns(const StrategyResult& r);

}  // namespace iobench
