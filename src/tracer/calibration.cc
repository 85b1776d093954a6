// Calibration. A short traced child makes one call, a one-line append to an unnamed
// temporary file, in alternating batches: 100 untraced, timed by the child itself, then
// 100 traced, timed by the tracer from resume to exit stop exactly as run() times real
// calls (same pinning, same stops, same fd lookup and bookkeeping). Both batches write the
// same open file; the untraced ones go through a second fd that the calibration filter
// lets through. overhead = median over the pairs of (traced mean - untraced mean).
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
//
// Small print: the untraced batches pass through the filter's ALLOW path (tens of ns of
// BPF that a real untraced run does not pay), so that much of the filter's cost stays in
// the corrected times. When the filter is refused every call stops, on either fd; the
// traced batches are then paired with untraced batches timed before the filter was tried.
#include "tracer/calibration.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <numeric>

#include "base/monotonic_clock.h"

namespace iobench::tracing {

namespace {

constexpr int kUntracedWarmup = 2000;
constexpr std::size_t kTracedWarmup = 300;
constexpr int kBatchCalls = 100;  // untraced: ~40 us a batch, far above the clock's cost

constexpr char kLine[] = "calibration\n";

inline void write_line(int fd) noexcept {
  [[maybe_unused]] const ssize_t n = ::write(fd, kLine, sizeof(kLine) - 1);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<long>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

std::size_t calibration_traced_calls() noexcept {
  return kTracedWarmup + kCalibrationPairs * kBatchCalls;
}

void calibration_prepare(CalibrationShared* shared) noexcept {
  int fd = ::open(shared->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);  // no O_TMPFILE there
  // A fixed number, known to the filter built before fork; whatever the child inherited
  // there is the child's own copy and never used.
  if (fd < 0 || ::dup2(fd, kCalibrationUntracedFd) != kCalibrationUntracedFd) {
    shared->error = errno;
    return;
  }
  shared->fd = fd;
  for (int i = 0; i < kUntracedWarmup; ++i) write_line(kCalibrationUntracedFd);
  for (auto& batch_ns : shared->prefilter_batch_ns) {
    const std::int64_t t0 = monotonic_ns();
    for (int i = 0; i < kBatchCalls; ++i) write_line(kCalibrationUntracedFd);
    batch_ns = monotonic_ns() - t0;
  }
}

int calibration_run(CalibrationShared* shared) noexcept {
  const int traced = shared->fd;
  if (traced < 0) return 1;
  for (std::size_t i = 0; i < kTracedWarmup; ++i) write_line(traced);
  for (auto& batch_ns : shared->untraced_batch_ns) {
    const std::int64_t t0 = monotonic_ns();
    for (int i = 0; i < kBatchCalls; ++i) write_line(kCalibrationUntracedFd);
    batch_ns = monotonic_ns() - t0;
    for (int i = 0; i < kBatchCalls; ++i) write_line(traced);
  }
  return 0;
}

TracerCalibration estimate_calibration(const CalibrationShared& shared,
                                       const std::vector<std::int64_t>& samples, bool paired) {
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
    const double t = std::accumulate(first, first + kBatchCalls, 0.0) / kBatchCalls;
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
  c.overhead_ns = std::max<std::int64_t>(0, std::llround(median(overhead)));
  return c;
}

}  // namespace iobench::tracing
