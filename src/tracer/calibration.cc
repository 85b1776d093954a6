// Calibration. A short traced child makes one call, a one-line append to an unnamed
// temporary file, in alternating batches: 100 untraced, timed by the child itself, then
// 100 traced, timed by the tracer exactly as run() times real calls (same pinning, same
// stops, same fd lookup and bookkeeping): the tracee's own CPU time from resume to exit
// stop (run_delay.h, IntervalSample), which the tracer's work and everyone's waits for a
// CPU leave out; a busy machine moves it far less than the wall-clock interval. Both batches write
// the same open file: the untraced ones through the fd the parent opened, which the calibration
// filter lets through, the traced ones through the child's duplicate of it.
// overhead = median over the pairs of (traced mean - untraced mean).
//
// Why pairs: on a shared host (this VM) the whole CPU slows down by ~40% for stretches of
// 10-100 ms. A traced half measured in one such stretch and an untraced half in another
// was the largest error seen; a pair is a fraction of a millisecond apart.
//
// Why a file and not /dev/null: the tracer's work between two calls evicts the tracee's
// cache lines, and a file write, with its longer kernel path, pays more for that (about
// 150 ns a call here). Calibrating on the kind of call iobench measures makes that cost
// part of the overhead instead of a bias in every corrected time.
//
// Why batch means and a median: a batch mean keeps the call's ordinary variation, as the
// sum in run() does; the median drops the pairs an interrupt or a preemption landed in.
// Its standard error (from the pairs' median absolute deviation) is reported with it.
//
// The child times its untraced batches in CPU time (CLOCK_THREAD_CPUTIME_ID), as the tracer
// times the traced calls.
//
// The filter's own cost: the paired untraced batches pass through the filter's ALLOW path,
// the slow syscall entry a filtered task takes, which a real untraced run does not pay. Two
// twins time it paired (filter_twins.h: 40-50 ns a write here); it is taken off the paired
// untraced batches, which then are the call's untraced cost, and added to the overhead.
// Only when the twins fail is it the difference to the batches timed before the filter was
// loaded, milliseconds away: that read 0-205 ns, moving the residual with it. When the
// filter is refused every call stops, on either fd; the traced batches are then paired with
// the batches timed before the filter was tried.
//
// Why one block: the calibration measures what a stop costs the tracee, not what the
// filesystem charges for space, so it must not need any: on a nearly full --dir its appends
// failed with ENOSPC and were timed as if they had written. The parent writes the file's
// first line (the only allocation), and before every batch the child truncates the file back
// to that line and seeks to its end: every timed call is still an append (the file grows, as
// a strategy's does) within a block already there, and the file never holds more than
// 12 + 3 x 1200 bytes (a 4 KiB page or block). Every call's result is checked; the first
// failure ends the calibration and becomes its reason (TracerCalibration::failure).
#include "tracer/calibration.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <utility>

#include "base/monotonic_clock.h"
#include "tracer/filter_twins.h"
#include "tracer/probe.h"
#include "tracer/tally.h"
#include "tracer/task_info.h"

namespace iobench::tracing {

namespace {

constexpr int kUntracedWarmup = 2000;
constexpr std::size_t kTracedWarmup = 300;
constexpr int kBatchCalls = 100;  // untraced: ~40 us a batch, far above the clock's cost
constexpr std::size_t kTwinWarmup = 5;

constexpr char kLine[] = "calibration\n";
constexpr auto kLineSize = static_cast<ssize_t>(sizeof(kLine) - 1);
// A call's off-CPU time counts as its own sleep only beyond the tracer's latency by more
// than this quantile of it and this floor: below, a sleep cannot be told from jitter.
constexpr double kSleepQuantile = 0.999;
constexpr std::int64_t kMinSleepNs = 10000;

// Calls between two rewinds: the traced warm-up's 300 lines, 3,600 bytes, fit one page.
constexpr int kMaxCallsPerRewind = 300;

/// Records the first failed call; the calibration stops at the next check.
void note_failure(CalibrationShared* s, const char* call, int err) noexcept {
  if (s->error != 0) return;
  s->error = err;
  s->failed_call = call;
}

/// One append. A short write to a regular file means the space ran out.
inline bool write_line(CalibrationShared* s, int fd) noexcept {
  const ssize_t n = ::write(fd, kLine, kLineSize);
  if (n == kLineSize) return true;
  note_failure(s, "write", n < 0 ? errno : ENOSPC);
  return false;
}

/// Back to the parent's one line, the offset at its end: the next calls append within the
/// block that line took (the header's "Why one block"). On the untraced fd: ftruncate is a
/// call the filter stops on, and a stop there is left out of the samples (unsampled_fd).
bool rewind(CalibrationShared* s) noexcept {
  if (::ftruncate(s->untraced_fd, kLineSize) != 0) {
    note_failure(s, "ftruncate", errno);
    return false;
  }
  if (::lseek(s->untraced_fd, kLineSize, SEEK_SET) != kLineSize) {
    note_failure(s, "lseek", errno);
    return false;
  }
  return true;
}

/// `calls` appends on `fd`; false once one failed.
bool write_lines(CalibrationShared* s, int fd, int calls) noexcept {
  bool ok = true;
  for (int i = 0; i < calls; ++i) ok = write_line(s, fd) && ok;
  return ok;
}

/// A batch of untraced appends, timed in CPU time (as the tracer times the traced calls: a
/// wait for the CPU is nobody's cost); -1 when a call failed.
std::int64_t timed_batch(CalibrationShared* s) noexcept {
  const std::int64_t t0 = thread_cpu_ns();
  const bool ok = write_lines(s, s->untraced_fd, kBatchCalls);
  const std::int64_t ns = thread_cpu_ns() - t0;
  return ok ? ns : -1;
}

/// A twin's batch (filter_twins.h). Under the filter ftruncate would fail, no tracer taking
/// its stop: the unfiltered twin rewinds for both, the file growing by one batch between.
std::int64_t twin_batch(void* arg, bool filtered) noexcept {
  auto* s = static_cast<CalibrationShared*>(arg);
  if (!filtered && !rewind(s)) return -1;
  return timed_batch(s);
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const auto at = v.begin() + static_cast<long>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), at, v.end());
  return *at;
}

/// The middle value, or the mean of the two middle ones.
double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t n = v.size();
  std::nth_element(v.begin(), v.begin() + static_cast<long>(n / 2), v.end());
  const double upper = v[n / 2];
  if (n % 2 == 1) return upper;
  return (*std::max_element(v.begin(), v.begin() + static_cast<long>(n / 2)) + upper) / 2;
}

/// The mean of `v` less its kRobustTrim share at either end.
double trimmed_mean(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto cut = static_cast<long>(kRobustTrim * static_cast<double>(v.size()));
  const auto first = v.begin() + cut, last = v.end() - cut;
  return first < last ? std::accumulate(first, last, 0.0) / static_cast<double>(last - first) : 0;
}

/// Standard error of the median of `v`, from its median absolute deviation (robust to the
/// pairs a preemption landed in): 1.2533 σ / √n, σ ≈ 1.4826 MAD for normal noise.
double median_se(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = median(v);
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - m));
  return 1.2533 * 1.4826 * median(dev) / std::sqrt(static_cast<double>(v.size()));
}

/// What a probed call's interval holds above the call's untraced cost once the probe's level
/// is taken off (probe.h): mostly the caches the tracer's work evicted, which a file write
/// refills and the probe's empty call does not. Per pair, as the overhead, with the probe
/// level followed through the samples exactly as the session follows it.
void estimate_residual(const std::vector<IntervalSample>& samples,
                       const std::vector<double>& untraced, double filter_cost,
                       TracerCalibration& c) {
  std::vector<double> residual, probes;
  for (std::size_t p = 0; p < kCalibrationPairs; ++p) {
    const auto first = samples.begin() + static_cast<long>(kTracedWarmup + p * kBatchCalls);
    std::vector<double> paired;
    for (auto it = first; it != first + kBatchCalls; ++it) {
      if (it->probe < 0) continue;
      paired.push_back(static_cast<double>(it->cpu - it->probe));
      probes.push_back(static_cast<double>(it->probe));
    }
    // The run's estimate is a trimmed mean of these (tally.h): so is what it is held to.
    if (paired.size() > kBatchCalls / 2)
      residual.push_back(trimmed_mean(std::move(paired)) - (untraced[p] - filter_cost));
  }
  if (residual.size() < kCalibrationPairs / 2) return;  // probes failed: none to correct
  c.residual_ns = std::llround(median(residual));
  c.residual_se_ns = median_se(residual);
  c.probe_level_ns = median(std::move(probes));
  c.probed = true;
}

}  // namespace

std::size_t calibration_traced_calls() noexcept {
  return kTracedWarmup + kCalibrationPairs * kBatchCalls;
}

UniqueFd open_calibration_target(const std::string& dir, std::string& failure) {
  // Unnamed, so nothing is left behind whatever kills us; where the filesystem has no
  // O_TMPFILE, a named file unlinked at once.
  UniqueFd fd(::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
  if (!fd && (errno == EOPNOTSUPP || errno == EISDIR)) {
    std::string name = dir + "/.iobench-calibration-XXXXXX";
    fd = UniqueFd(::mkostemp(name.data(), O_CLOEXEC));
    if (fd) ::unlink(name.c_str());
  }
  if (!fd) {
    failure = fmt::format("cannot create its file in {}: {}", dir, std::strerror(errno));
    return fd;
  }
  const ssize_t n = ::write(fd.get(), kLine, kLineSize);
  if (n != kLineSize) {
    failure = fmt::format("cannot write its one block in {}: {}", dir,
                          std::strerror(n < 0 ? errno : ENOSPC));
    return UniqueFd();
  }
  return fd;
}

std::string calibration_failure(const CalibrationShared& shared, const std::string& dir,
                                const TraceResult& result, std::size_t samples) {
  if (shared.error != 0)
    return fmt::format("{} on its file in {}: {}",
                       shared.failed_call != nullptr ? shared.failed_call : "a call", dir,
                       std::strerror(shared.error));
  if (result.timed_out) return "it timed out";
  if (result.term_signal != 0)
    return fmt::format("it was killed by signal {} ({})", result.term_signal,
                       ::strsignal(result.term_signal));
  if (result.exit_code != 0) return fmt::format("it exited with status {}", result.exit_code);
  return fmt::format("the tracer timed {} of its {} calls", samples, calibration_traced_calls());
}

void measure_filter_cost(CalibrationShared* shared, const SeccompFilter& filter) {
  CalibrationShared twin = *shared;  // copied into each twin: a failure stays there
  const std::vector<std::int64_t> pairs =
      filter_twin_pairs(filter, twin_batch, &twin, kCalibrationPairs, kTwinWarmup);
  if (pairs.size() < kCalibrationPairs) return;
  std::vector<double> per_call;
  per_call.reserve(pairs.size());
  for (const std::int64_t ns : pairs) per_call.push_back(static_cast<double>(ns) / kBatchCalls);
  shared->filter_cost_ns = std::max(0.0, median(std::move(per_call)));
}

void calibration_prepare(CalibrationShared* shared) noexcept {
  // The lowest free fd: any number would do for the traced calls, which the filter stops
  // on whatever their fd (only the parent's one is let through).
  shared->traced_fd = ::fcntl(shared->untraced_fd, F_DUPFD_CLOEXEC, 0);
  if (shared->traced_fd < 0) {
    note_failure(shared, "fcntl(F_DUPFD_CLOEXEC)", errno);
    return;
  }
  for (int done = 0; done < kUntracedWarmup; done += kBatchCalls) {
    if (!rewind(shared) || !write_lines(shared, shared->untraced_fd, kBatchCalls)) return;
  }
  for (auto& batch_ns : shared->prefilter_batch_ns) {
    if (!rewind(shared)) return;
    batch_ns = timed_batch(shared);
    if (batch_ns < 0) return;
  }
}

int calibration_run(CalibrationShared* shared) noexcept {
  const int traced = shared->traced_fd;
  if (shared->error != 0 || traced < 0) return 1;
  static_assert(kTracedWarmup <= kMaxCallsPerRewind);
  if (!rewind(shared) || !write_lines(shared, traced, static_cast<int>(kTracedWarmup))) return 1;
  // One rewind a pair, before its untraced half: that half then starts after a stop, as it
  // did after the last pair's traced calls, and the traced half's calls all follow one.
  static_assert(2 * kBatchCalls <= kMaxCallsPerRewind);
  for (std::size_t p = 0; p < kCalibrationPairs; ++p) {
    if (!rewind(shared)) return 1;
    shared->untraced_batch_ns[p] = timed_batch(shared);
    if (shared->untraced_batch_ns[p] < 0) return 1;
    if (!write_lines(shared, traced, kBatchCalls)) return 1;  // timed by the tracer
  }
  return 0;
}

TracerCalibration estimate_calibration(const CalibrationShared& shared,
                                       const std::vector<IntervalSample>& samples, bool paired) {
  TracerCalibration c;
  c.traced = true;
  if (samples.size() != calibration_traced_calls()) return c;
  std::vector<double> prefilter;
  for (const std::int64_t ns : shared.prefilter_batch_ns) {
    prefilter.push_back(static_cast<double>(ns) / kBatchCalls);
  }
  const double untraced_before = median(prefilter);
  std::vector<double> untraced, traced, overhead;
  for (std::size_t p = 0; p < kCalibrationPairs; ++p) {
    const auto first = samples.begin() + static_cast<long>(kTracedWarmup + p * kBatchCalls);
    const double t = std::accumulate(first, first + kBatchCalls, 0.0,
                                     [](double sum, const IntervalSample& s) {
                                       return sum + static_cast<double>(s.cpu);
                                     }) /
                     kBatchCalls;
    // Without the filter the "untraced" batches stopped too: pair with the batches timed
    // before the filter instead.
    const double u =
        paired ? static_cast<double>(shared.untraced_batch_ns[p]) / kBatchCalls : untraced_before;
    traced.push_back(t);
    untraced.push_back(u);
    overhead.push_back(t - u);
  }
  c.samples = kCalibrationPairs * kBatchCalls;
  c.untraced_ns = median(untraced);
  c.traced_ns = median(traced);
  const double filter_cost = !paired ? 0.0
                             : shared.filter_cost_ns >= 0
                                 ? shared.filter_cost_ns
                                 : std::max(0.0, median(untraced) - untraced_before);
  c.overhead_ns = std::max<std::int64_t>(0, std::llround(median(overhead) + filter_cost));
  c.overhead_se_ns = median_se(overhead);
  estimate_residual(samples, untraced, filter_cost, c);
  std::vector<double> off;
  for (auto it = samples.begin() + kTracedWarmup; it != samples.end(); ++it) {
    off.push_back(static_cast<double>(it->off));
  }
  c.off_median_ns = std::llround(median(off));
  c.off_threshold_ns = std::max<std::int64_t>(
      kMinSleepNs, std::llround(quantile(off, kSleepQuantile)) - c.off_median_ns);
  return c;
}

std::optional<Overhead> residual_in_regime(const std::vector<TracerCalibration>& history,
                                           double level) {
  std::vector<double> residual, se;
  for (const TracerCalibration& c : history) {
    const bool same =
        c.probe_level_ns <= kSameRegime * level && level <= kSameRegime * c.probe_level_ns;
    if (level > 0 && !same) continue;
    residual.push_back(static_cast<double>(c.residual_ns));
    se.push_back(c.residual_se_ns);
  }
  if (residual.empty()) return std::nullopt;
  const std::size_t n = residual.size();
  const double m = median(residual);
  std::vector<double> dev;
  dev.reserve(n);
  for (const double x : residual) dev.push_back(std::fabs(x - m));
  // One calibration's spread: from two, half their difference; from more, 1.4826 MAD.
  const double spread = n == 1 ? 0 : n == 2 ? dev[0] : 1.4826 * median(dev);
  return Overhead{m, std::hypot(median(se), spread)};
}

std::uint64_t record_held_calls(const std::vector<TimedCall>& held, const TracerCalibration& c,
                                std::uint64_t probed) {
  const Subtraction s{.sleep = SleepRule{c.off_median_ns, c.off_threshold_ns},
                      .overhead_ns = c.overhead_ns,
                      .residual_ns = c.residual_ns};
  for (TimedCall call : held) {
    call.probed = call.probed && c.probed;
    record_timed_call(call, s);
  }
  return c.probed ? probed : 0;
}

}  // namespace iobench::tracing
