// Running totals of the traced calls, per syscall, per process and per file, turned into
// the plain result types once the run is over.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "base/result.h"
#include "tracer/latency_histogram.h"
#include "tracer/sampler.h"
#include "tracer/syscalls.h"

namespace iobench::tracing {

/// The share of timed calls' CPU times dropped at either end for the robust location: in a
/// run (TraceTally) and in the calibration of the residual it is corrected by, alike, so the
/// genuine tail of a call's cost the trim drops is dropped on both sides and cancels.
inline constexpr double kRobustTrim = 0.1;

inline constexpr char kNoFdPath[] = "(no fd)";    // msync: the call names memory, not an fd
inline constexpr char kBadFdPath[] = "(bad fd)";  // the fd did not resolve (EBADF ahead)
// /proc/PID/fd refused us (a non-dumpable program, a tracer without root): some file, unnamed.
inline constexpr char kUnreadableFdPath[] = "(unreadable fd)";

/// Per-call times of a histogram of raw intervals, `overhead_ns` taken off each (never below
/// 0): the ptrace tally's and the kernel clock's latency_ns alike.
LatencySummary latency_of(const LatencyHistogram& h, double overhead_ns);

/// What the tracer's cost per timed call is known to be, and how well: what fill() subtracts.
struct Overhead {
  double ns = 0;     // tracer cost per timed call (resume to exit stop, less the call)
  double se_ns = 0;  // its standard error, drift between calibrations included
};

class TraceTally {
 public:
  /// Sums over the timed calls, each weighted by the calls it stands for (sampler.h).
  struct Counter {
    std::uint64_t calls = 0;              // every call, timed or not: exact
    std::uint64_t timed = 0;              // calls whose exit stop was seen
    std::uint64_t errors = 0, bytes = 0;  // over the timed calls, unweighted
    double w = 0, w2 = 0;                 // sum of weights, of squared weights
    double w_errors = 0, w_bytes = 0;     // weighted: what errors and bytes are scaled from
    double w_raw = 0, w_raw2 = 0;         // weighted sums of raw intervals and their squares
    double w_cpu = 0;                     // weighted sum of their CPU part (no sleep)
  };
  /// Where one call is counted; map nodes are stable, so these stay valid.
  struct Slot {
    Counter* total = nullptr;
    Counter* process = nullptr;
    Counter* file = nullptr;  // null for calls outside the write family
    Counter* cell = nullptr;  // this process's calls of this syscall on this file (fill())
    LatencyHistogram* histogram = nullptr;
    SignedHistogram* cpu = nullptr;  // the calls' CPU part, for the robust location
  };

  explicit TraceTally(bool time_all = false) : time_all_(time_all) {}

  /// Counts a call at its entry. `path` is null when the call is not attributed to a file.
  Slot record_call(pid_t tgid, int nr, const std::string* path);
  /// Whether to time this call of `nr` (called once per counted call, in call order): its
  /// weight, or 0 to count it only.
  std::uint32_t sample(int nr) { return samplers_.try_emplace(nr, time_all_).first->second.next(); }
  /// Adds what only the exit stop knows. `cpu_ns`: the call's CPU time, the tracer's cost
  /// removed; `slept_ns`: the time it slept; `shown_ns`: its time in the latency histogram.
  static void record_exit(const Slot& slot, long rval, bool is_error, bool moves_data,
                          std::int64_t cpu_ns, std::int64_t slept_ns, std::int64_t shown_ns,
                          std::uint32_t weight);
  /// Names process `tgid` (ProcessStats::name): at its first stop, and again at each exec.
  void name_process(pid_t tgid, std::string name) { names_[tgid] = std::move(name); }
  /// Calls timed so far, all syscalls together.
  std::uint64_t timed_calls() const;

  /// The estimator, per aggregate: time = calls × (weighted mean raw interval − overhead),
  /// which is Σ raw − timed × overhead exactly when every call was timed. The mean of raw
  /// intervals, not of per-call differences clamped at 0: clamping would keep the noise
  /// above the mean and drop the noise below it. A wait for the CPU inside an interval is
  /// already removed from raw (run_delay.h). time_ci95_ns: 1.96 × calls × the standard
  /// error of the sampled mean (from the weighted variance, over the sample's effective
  /// size) combined with the overhead's.
  ///
  /// Errors and bytes are counted, not estimated, wherever every call was timed (each
  /// return seen). Elsewhere they are estimated per cell — one process's calls of one
  /// syscall on one file — as the cell's calls × its weighted rate, rounded (a cell with no
  /// timed call takes its syscall's rate), and every aggregate is the sum of its cells'
  /// integers: the files' figures add up to the syscall's, and so do the processes'. A rate
  /// per aggregate would not add up (each has its own calls/weight ratio, then rounds), and
  /// one error seen at weight 1 in a stratum would show as 2 in one row and 1 in another.
  /// The untimed calls' returns are never seen (a call the sample passes over takes one
  /// stop, at entry), so a rare error between timed calls is missed: SyscallStats marks
  /// these figures as estimates.
  void fill(TraceResult& result, const SyscallTable& table, const Overhead& overhead) const;

 private:
  using Shifts = std::map<int, double>;
  /// Per syscall: its calls' trimmed mean CPU time less their mean, which every aggregate of
  /// that syscall (total, per process, per file) adds to its own mean. A call's CPU time is
  /// its interval less its probe's, two noisy figures: on a host that steals the CPU now and
  /// then, either can be off by tens of microseconds, and a handful of those moves a mean of
  /// a few hundred nanoseconds by half. The middle of the distribution does not move. Sleeps
  /// (run_delay.h) are not trimmed: they stay in the mean.
  bool time_all_;
  std::map<int, Counter> total_;
  std::map<int, LatencyHistogram> histograms_;
  std::map<int, SignedHistogram> cpu_;

  Shifts robust_shifts() const;
  std::map<int, Sampler> samplers_;
  std::map<pid_t, std::map<int, Counter>> processes_;
  struct FileCounters {
    int id = 0;  // its cells' key: an index, not a pointer, so that a copied tally holds
    std::map<int, Counter> syscalls;
  };
  std::map<std::string, FileCounters> files_;
  static constexpr int kNoFile = -1;
  using CellKey = std::tuple<pid_t, int, int>;  // tgid, syscall, file id or kNoFile
  std::map<CellKey, Counter> cells_;
  std::map<pid_t, std::string> names_;

  /// Each process's files (ProcessStats::files): its cells on that file, as fill() sums them.
  void fill_process_files(TraceResult& result, const SyscallTable& table, const Overhead& overhead,
                          const Shifts& shifts) const;
};

/// A run whose tracer cost is unknown: its times say nothing, and `reason` says why
/// (reporters print null and "—", never 0). Counts, errors and bytes stay.
void forget_times(TraceResult& r, std::string reason);

}  // namespace iobench::tracing
