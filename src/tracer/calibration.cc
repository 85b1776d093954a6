#include "tracer/calibration.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "tracer/session.h"

namespace iobench::tracing {

namespace {

constexpr int kUntracedWarmup = 2000;
constexpr int kUntracedBatches = 31;
constexpr int kUntracedBatchCalls = 200;
constexpr std::size_t kTracedWarmup = 300;
constexpr std::size_t kTracedCalls = 3000;

/// The calibration call: a 1-byte write(2) to /dev/null. A write, so it takes the same
/// seccomp verdict, stop and fd lookup as the calls it stands for; to /dev/null, so its own
/// cost is small and steady and the difference is nearly all tracer.
inline void calibration_call(int fd) noexcept {
  static const char kByte = 'x';
  [[maybe_unused]] ssize_t n = ::write(fd, &kByte, 1);
}

}  // namespace

std::size_t calibration_calls() noexcept { return kTracedWarmup + kTracedCalls; }

void calibration_untraced(CalibrationShared* shared) noexcept {
  const int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    shared->error = errno;
    return;
  }
  shared->fd = fd;
  for (int i = 0; i < kUntracedWarmup; ++i) calibration_call(fd);
  // Batches, because one call (~100 ns) is too close to the clock's own cost; the median
  // batch, because a batch that took an interrupt says nothing about the call.
  std::int64_t batch_ns[kUntracedBatches];
  for (auto& b : batch_ns) {
    const std::int64_t t0 = monotonic_ns();
    for (int i = 0; i < kUntracedBatchCalls; ++i) calibration_call(fd);
    b = monotonic_ns() - t0;
  }
  std::nth_element(batch_ns, batch_ns + kUntracedBatches / 2, batch_ns + kUntracedBatches);
  shared->untraced_ps = batch_ns[kUntracedBatches / 2] * 1000 / kUntracedBatchCalls;
}

int calibration_traced(CalibrationShared* shared) noexcept {
  const int fd = shared->fd;
  if (fd < 0) return 1;
  for (std::size_t i = 0; i < kTracedWarmup + kTracedCalls; ++i) calibration_call(fd);
  return 0;
}

TracerCalibration estimate_calibration(std::int64_t untraced_ps,
                                       std::vector<std::int64_t> samples) {
  TracerCalibration c;
  c.traced = true;
  c.untraced_ns = static_cast<double>(untraced_ps) / 1000.0;
  if (samples.size() <= kTracedWarmup) return c;
  samples.erase(samples.begin(), samples.begin() + kTracedWarmup);
  c.samples = samples.size();
  std::vector<std::int64_t> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const auto n = sorted.size();
  const double median = static_cast<double>(sorted[n / 2]);
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  auto trimmed = [&](double lo, double hi) {
    const auto a = static_cast<std::size_t>(lo * static_cast<double>(n));
    const auto b = static_cast<std::size_t>(hi * static_cast<double>(n));
    return std::accumulate(sorted.begin() + static_cast<long>(a), sorted.begin() + static_cast<long>(b), 0.0) /
           static_cast<double>(b - a);
  };
  if (std::getenv("IOBENCH_CALIBRATION_DUMP") != nullptr) {
    std::fprintf(stderr,
                 "calib: untraced %.1f median %.0f mean %.0f trim10 %.0f trim0-99 %.0f trim0-95 %.0f "
                 "min %ld p10 %ld p90 %ld p99 %ld max %ld\n",
                 c.untraced_ns, median, mean, trimmed(0.1, 0.9), trimmed(0, 0.99), trimmed(0, 0.95),
                 sorted[0], sorted[n / 10], sorted[n * 9 / 10], sorted[n * 99 / 100], sorted[n - 1]);
  }
  c.traced_ns = median;
  c.overhead_ns = std::max<std::int64_t>(0, std::llround(c.traced_ns - c.untraced_ns));
  return c;
}

}  // namespace iobench::tracing
