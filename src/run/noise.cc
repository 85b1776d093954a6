#include "run/noise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace iobench {
namespace {

/// The q-quantile of sorted values, linearly interpolated between neighbours (as numpy's
/// default), so 5 samples still give distinct quartiles.
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

Noise assess_noise(const std::vector<std::int64_t>& samples) {
  Noise n;
  if (samples.size() < 3) return n;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  const double median = quantile(v, 0.5);
  if (median <= 0) return n;
  const double p25 = quantile(v, 0.25), p75 = quantile(v, 0.75), iqr = p75 - p25;
  n.spread = iqr / median;
  n.variation = n.spread;
  for (double x : v) {
    const double off = std::abs(x - median) / median;
    if ((x < p25 - 1.5 * iqr || x > p75 + 1.5 * iqr) && off > kNoisySpread) {
      ++n.outliers;
      n.variation = std::max(n.variation, off);
    }
  }
  return n;
}

std::string noise_warning(const std::string& name, const Noise& noise) {
  std::string outliers;
  if (noise.outliers > 0)
    outliers = fmt::format(" ({} outlier{} beyond 1.5 IQR)", noise.outliers,
                           noise.outliers == 1 ? "" : "s");
  return fmt::format(
      "timings of {} vary by {:.0f}%{}: the machine may be busy; results may be "
      "noisy",
      name, noise.variation * 100, outliers);
}

}  // namespace iobench
