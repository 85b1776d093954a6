// The kernel clock: every traced syscall of one process tree timed in the kernel, from
// sys_enter to sys_exit, by a BPF program (tracer/bpf/syscall_clock.bpf.c). No stop, no
// sampling: per syscall the exact calls, errors, bytes, total time with preempted time taken
// out, and a latency histogram of every call; per (process, fd, file) the same for the write
// family. Built only where libbpf, bpftool and clang were found (IOBENCH_HAVE_BPF); needs
// root or CAP_BPF + CAP_PERFMON to load.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tracer/bpf/clock_abi.h"
#include "tracer/fd_kind.h"
#include "tracer/latency_histogram.h"

namespace iobench::tracing {

class SyscallTable;
class BpfLoader;

/// True when this build has the kernel clock (CMake found libbpf, bpftool and clang).
bool bpf_clock_built() noexcept;
/// Whether this kernel lets the programs read its structures with plain loads (Linux 6.2's
/// bpf_rdonly_cast), the faster sys_enter program (BpfClockConfig::direct_reads).
bool bpf_direct_reads();
/// Empty when the clock can load and attach here; else why not, for --version and a refusal
/// ("built without the kernel clock: ...", "bpf: Operation not permitted (needs root ...)").
/// Asks the kernel once per process, with a trivial program (about a millisecond); the real
/// program's load can still fail, in BpfClock::run, which then throws.
std::string bpf_clock_unavailable_reason();

/// One syscall the clock counts and times, by number in its ABI.
struct BpfSyscallSpec {
  int nr = 0;
  bool compat = false;      // the i386 ABI's number (int $0x80, a 32-bit program)
  bool moves_data = false;  // a positive return is a byte count: summed as bytes
  int fd_arg = -1;          // index of the written-to fd: per-file totals; -1 for none
  bool histogram = false;   // keep a latency histogram (at most kBpfHistograms calls)
  bool ring_enter = false;  // io_uring_enter: tell a ring that writes files (bpf_result.cc)
};
inline constexpr int kBpfHistograms = 32;

struct BpfClockConfig {
  std::vector<BpfSyscallSpec> syscalls;
  bool trace_all = false;  // also count and time every other syscall (no histogram)
  // Read kernel structures with plain loads where the kernel can (Linux 6.2's
  // bpf_rdonly_cast): false takes the per-field helper calls older kernels need (a test
  // runs both).
  bool direct_reads = true;
};

/// The write family of `table` (both ABIs), with histograms: the tracer's default set.
BpfClockConfig write_family_config(const SyscallTable& table, bool trace_all = false);

struct BpfSyscallStats {
  int nr = 0;
  bool compat = false;
  std::uint64_t calls = 0;        // entries, exact (exit_group, which never returns, included)
  std::uint64_t timed = 0;        // calls that returned: each one timed
  std::uint64_t errors = 0;       // returned < 0
  std::uint64_t bytes = 0;        // sum of positive returns, moves_data calls only
  std::int64_t total_ns = 0;      // sys_enter to sys_exit, preempted time taken out
  std::int64_t preempted_ns = 0;  // what was taken out
  std::int64_t blocked_ns = 0;    // voluntarily off CPU (a real wait): in total_ns, not on CPU
  std::int64_t own_ns = 0;        // the programs' own time for these calls (clock_abi.h), from a
                                  // sample of them; -1 when none was sampled: tracing's
  std::optional<LatencyHistogram> latency;  // spec.histogram: every timed call
};

/// A written-to file of one process, named by the kernel when the call began: the process
/// is gone when user space reads this, so fd -> path cannot be asked of /proc afterwards.
struct BpfFileStats {
  pid_t tgid = 0;
  int fd = -1;
  dev_t dev = 0;  // as stat(2)'s st_dev; 0 with ino 0 when the fd named no file (EBADF)
  ino_t ino = 0;
  mode_t mode = 0;         // S_IFREG, S_IFCHR (a terminal: see rdev), S_IFIFO, S_IFSOCK...
  dev_t rdev = 0;          // as st_rdev
  std::string path;        // as /proc/PID/fd would show it ("pipe:[7]"); empty: not named
  bool writable = false;   // open for writing (FMODE_WRITE)
  std::uint32_t ring = 0;  // an io_uring_enter's CLOCK_FILE_* (bpf/clock_abi.h)
  int nr = 0;
  bool compat = false;
  std::uint64_t calls = 0, errors = 0, bytes = 0;
  std::int64_t total_ns = 0;
};

/// One process's calls of one syscall (every traced syscall, as trace --per-process shows).
struct BpfProcessStats {
  pid_t tgid = 0;
  int nr = 0;
  bool compat = false;
  std::uint64_t calls = 0, timed = 0, errors = 0, bytes = 0;
  std::int64_t total_ns = 0;
};

/// What one run cost to set up and tear down, in milliseconds.
struct BpfClockTimings {
  double load_ms = 0;    // open + verify + JIT (first run), or emptying the maps (later)
  double attach_ms = 0;  // the raw tracepoints
  double read_ms = 0;    // the maps, once, at the end
  double detach_ms = 0;  // detach + unload
};

struct BpfClockRun {
  int status = 0;  // the main child's raw wait status
  bool timed_out = false;
  std::int64_t wall_ns = 0;               // release to the main child's exit
  std::int64_t waited_ns = -1;            // the main child's leader waiting for a CPU; -1 unknown
  std::vector<BpfSyscallStats> syscalls;  // those with calls > 0, by ABI then number
  std::vector<BpfFileStats> files;
  std::vector<BpfProcessStats> processes;  // the syscalls asked for only, by tgid then key
  std::map<pid_t, std::string> comms;      // each process's comm when it ended
  std::vector<FileId> streams;             // the child's stdout and stderr (fd_kind.h)
  clock_lost lost{};                       // what the maps had no room for
  std::vector<std::string> privileged;     // programs no longer followed (clock_lost)
  BpfClockTimings timings;
};

/// The clock's own bias and cost, from a null syscall (getppid) in this process, traced and
/// untraced stretches alternated (nanoseconds per call).
struct BpfBias {
  /// kernel interval - untraced user-space time of getppid: subtract it from a kernel time to
  /// get the time a call costs its caller untraced (negative: the interval misses the
  /// kernel's entry and exit path). Median over stretches.
  double bias_ns = 0;
  double bias_spread_ns = 0;  // half the interquartile range over stretches
  double overhead_ns = 0;     // traced - untraced user-space time: what tracing costs a call
  double overhead_spread_ns = 0;
  // The same for a write-family call (a 1-byte write to /dev/null), which the programs also
  // name the file of: the cost a run's writes paid ("% of time", bpf_result.cc).
  double write_overhead_ns = 0;
  double write_overhead_spread_ns = 0;
  // The programs' own time per call in those stretches (BpfSyscallStats::own_ns): the part of
  // each overhead measured in a run too, where it tells how fast the host ran then.
  double own_ns = 0;
  double write_own_ns = 0;
  // The bias measured on that write instead of getppid: what a write-family call's interval
  // holds of the programs and misses of the call (the path to the file, the cache lines the
  // programs evict from it), nearer to it than a null call's.
  double write_bias_ns = 0;
  double write_bias_spread_ns = 0;
  double kernel_ns = 0;     // the kernel interval of getppid (median)
  double untraced_ns = 0;   // getppid untraced (median)
  int stretches = 0;        // kept for getppid: their untraced sides agreed (all, if none did)
  int write_stretches = 0;  // the same for the write
};
/// One of the clock's programs: its runs and the time in them, as the kernel counts them
/// while its statistics are on (kernel.bpf_stats_enabled, BPF_ENABLE_STATS); zeros otherwise.
struct BpfProgramCost {
  std::string name;
  std::uint64_t runs = 0, run_ns = 0;
};

/// Runs children under the kernel clock. The program is loaded on the first run (most of the
/// start-up cost: libbpf reading the kernel's BTF) and kept; each run attaches it, counts from
/// clean maps and detaches it: while attached, every task on the machine takes the syscall
/// slow path.
class BpfClock {
 public:
  explicit BpfClock(BpfClockConfig config);
  ~BpfClock();
  BpfClock(BpfClock&&) noexcept;
  BpfClock& operator=(BpfClock&&) noexcept;

  /// Forks; the child waits until the programs are attached, then calls child_main (which
  /// may exec and must not throw) and _exits with its value. Follows every thread and fork of
  /// the tree and returns once the child and all its descendants are gone (a tree still
  /// running after `timeout` is killed). Throws Error when the programs do not load.
  /// `command_gets_first_interrupt`: `trace`'s Ctrl-C (ProcessTree::PassOn).
  BpfClockRun run(const std::function<int()>& child_main,
                  std::optional<std::chrono::nanoseconds> timeout = std::nullopt,
                  bool command_gets_first_interrupt = false);
  /// For a caller that forks the tree itself (the ptrace cross-check, tracer/cross_check.h):
  /// from now until stop(), follows the process `tgid` and all it forks. Throws Error when
  /// the programs do not load. stop() returns the counts (no status or wall time: the
  /// caller's); a stop without a start returns nothing.
  void start(pid_t tgid);
  BpfClockRun stop() noexcept;
  /// measure_bpf_bias with this clock's program (loading it if no run has): next to a run,
  /// with no second load. `null_call` false: the write's stretches alone, for a run that
  /// reports only the write family (measure_bias_with).
  BpfBias bias(int stretches = 10, int calls_per_stretch = 20000, bool null_call = true);
  /// Its programs' runs and time since they were loaded; empty before the first run.
  std::vector<BpfProgramCost> program_costs() const;

 private:
  BpfClockConfig config_;
  BpfLoader& loaded();
  std::unique_ptr<BpfLoader> loader_;  // loaded by the first run
  std::vector<bool> reported_;         // per key: asked for (the bias call may not be)
  bool started_ = false;               // attached by start(), until stop()
};

BpfBias measure_bpf_bias(int stretches = 10, int calls_per_stretch = 20000);

}  // namespace iobench::tracing
