// The tracer: ptrace + a seccomp-BPF filter that stops the tracee only on the syscalls we
// count, so everything else runs at full speed. See README "How it measures".
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tracer/backend_traits.h"
#include "tracer/counting_backend.h"

namespace iobench {

/// ptrace + seccomp (Tracer): counts, errors, bytes and times, by file and process, of any
/// syscall; its times have its calibrated cost subtracted. Its line in tracer/backends.cc.
inline constexpr BackendTraits kPtraceTraits{
    .name = "ptrace",
    .label = "ptrace + seccomp",
    .help = "ptrace + seccomp",
    .noun = "ptrace",
    .call_cost_ns = 4000,  // a stop each way: ~4 us a call counted, ~22 us timed
    .times = true,
    .returns = true,
    .per_file = true,
    .per_process = true,
    .every_syscall = true,
    .subtracts_tracer_cost = true,
    .pins = true,
    .passes_first_interrupt = true,
};

struct TracerOptions {
  TraceMode mode = TraceMode::kTiming;  // kCount: one stop per call; no times, bytes, errors
  bool trace_all = false;               // stop on every syscall (strace -c style table)
  bool time_all = false;                // time every call, not a sample (tracer/sampler.h)
  /// Pin the tracer (never the tracee) to its CPU. Off by default: with the tracee free to
  /// run anywhere, a pinned tracer waits for its one CPU at every stop (README "Pinning").
  bool pin = false;
  /// Where calibration appends lines to an unnamed temporary file (O_TMPFILE), so that the
  /// calibrated call walks the same write path as the calls it corrects. Best set to the
  /// directory being benchmarked; empty means /tmp. It needs one block there; without it
  /// (or any other failure) syscall times are unknown and say why (time_unavailable_reason).
  std::string calibration_dir{};
  /// Who counts (tracer/backends.cc): resolved from --tracer before anything runs. One
  /// without `times` requires mode kCount.
  const BackendTraits* backend = &kPtraceTraits;
  /// perf: count i386-ABI calls too (perf_counter.h), which costs every call of the tree
  /// ~0.7 us of CPU. Off only for iobench's own strategies: native code, no i386 call to count.
  bool foreign_abis = true;
  /// Ctrl-C as strace does it (`iobench trace`, README "Ctrl-C"): the first SIGINT during
  /// run() is passed on to the program, which may handle it; only a second one interrupts.
  bool command_gets_first_interrupt = false;
  /// ptrace with the kernel clock on the same tree (tracer/cross_check.h): timing mode only.
  bool cross_check = false;
};

/// What calibration measured, per call, in nanoseconds (see tracer_calibration.cc, "Calibration").
struct TracerCalibration {
  double untraced_ns = 0;             // the calibration call without tracing
  double traced_ns = 0;               // the same call, entry stop to exit stop, under the tracer
  std::int64_t overhead_ns = 0;       // traced - untraced: what run() subtracts per timed call
  double overhead_se_ns = 0;          // standard error of overhead_ns
  std::int64_t off_median_ns = 0;     // the tracer's latency in an interval (run_delay.h)
  std::int64_t off_threshold_ns = 0;  // its spread: what a sleep must exceed to count
  /// With a probe next to each timed call (probe.h): what its interval holds beyond the probe's
  /// level and the call's untraced cost, per call, and the standard error of that.
  std::int64_t residual_ns = 0;
  double residual_se_ns = 0;
  double probe_level_ns = 0;  // the probes' median: the stop regime it ran in (calibration.h)
  bool probed = false;        // the probes ran: residual_ns is known
  std::size_t samples = 0;    // traced calls the estimate rests on
  bool traced = false;        // false: ptrace was refused, nothing to subtract
  /// Non-empty: it failed, and nothing above is known. Why, for TraceResult's
  /// time_unavailable_reason ("tracer calibration: ..."): a run's times need it.
  std::string failure;
};

/// Told around each traced run's session, never a calibration's: `started` once the program
/// is attached and just before it is released, `ended` once its whole tree is gone. The
/// cross-check (tracer/cross_check.h) attaches the kernel clock to exactly that tree.
class SessionWatch {
 public:
  virtual ~SessionWatch() = default;
  virtual void started(pid_t pid) noexcept = 0;
  virtual void ended() noexcept = 0;
};

/// Builds the filter once (allocation must happen before fork) and runs children under it.
class Tracer final : public CountingBackend {
 public:
  explicit Tracer(TracerOptions options);
  ~Tracer() override;
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// Forks; the child waits until it is attached, loads the filter, then calls child_main,
  /// whose return value becomes its exit status (child_main may also exec). child_main must
  /// not throw. Follows threads, forks, vforks and execs, and returns once every traced
  /// process has exited (a descendant that outlives the child is waited for, like strace -f).
  /// When ptrace is refused the child still runs, untraced (its whole tree waited for and
  /// killed by the process helper, process.h), and the result has available == false with
  /// the reason. A tree still running after `timeout` is killed
  /// (term_signal SIGKILL, timed_out). Throws Error (Interrupted on SIGINT/SIGTERM) after
  /// killing and reaping the whole tree. Must not run while the calling thread has other
  /// children it will wait for: the loop's waitpid(-1) would reap them.
  TraceResult run(const std::function<int()>& child_main,
                  std::optional<std::chrono::nanoseconds> timeout = std::nullopt) override;

  /// The tracer's own cost per traced call (entry stop to exit stop, minus the syscall's
  /// untraced cost), measured once on first use in timing mode; 0 in count mode, which
  /// subtracts nothing and so need not pay for a calibration.
  std::int64_t overhead_ns() override;
  /// The whole calibration behind overhead_ns() (calibrates on first use).
  const TracerCalibration& calibration();

  const TracerOptions& options() const noexcept { return options_; }
  /// Tells `watch` (null: no one) about every later run's session.
  void watch_sessions(SessionWatch* watch) noexcept;

 private:
  struct Impl;
  TracerOptions options_;
  std::unique_ptr<Impl> impl_;
};

/// The warning (without "iobench: warning: ") for a program in TraceResult::lost_privileges.
std::string lost_privileges_warning(const std::string& program);
/// The warning (without "iobench: warning: ") for one of PtraceDetails::refused_ptrace.
std::string refused_ptrace_warning(const std::string& program, const std::string& request);

/// The write family: the syscalls iobench counts as writes to a file.
bool is_write_family(std::string_view syscall_name) noexcept;
/// The write family's names, in the tracer's (libseccomp's) spelling.
std::vector<std::string_view> write_family_names();
/// True for the write-family calls whose return value is a byte count (write, writev,
/// sendfile...), so the tracer can sum bytes; false for io_uring_enter, fsync, ftruncate and
/// every syscall outside the family, whose bytes are unknown (null), not 0.
bool moves_data(std::string_view syscall_name) noexcept;
/// A row's syscall without its ABI: "write" for "write (i386)" (tracer/syscalls.h names the
/// calls of a non-native ABI so); the name itself for a native call.
std::string_view syscall_base_name(std::string_view syscall_name) noexcept;
/// The ABI a row's syscall belongs to: "i386" for "write (i386)", empty for the native one.
std::string_view syscall_abi(std::string_view syscall_name) noexcept;

}  // namespace iobench
