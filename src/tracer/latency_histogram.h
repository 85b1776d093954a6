// A bounded log-linear histogram of weighted nanosecond values (HDR-style): 64 buckets per
// power of two, so every value is kept to within 1.6% (about two significant digits), in
// fixed memory whatever the number of calls, with no per-call storage.
#pragma once

#include <cstdint>
#include <vector>

namespace iobench::tracing {

class LatencyHistogram {
 public:
  /// Adds `ns` (clamped to [0, 2^40)) with `weight`: the calls a sampled call stands for.
  void add(std::int64_t ns, double weight);
  /// Total weight: the calls the recorded ones stand for.
  double weight() const noexcept { return weight_; }
  std::int64_t max() const noexcept { return max_; }
  /// The smallest bucket value with at least q of the weight at or below it (q in [0, 1]),
  /// the bucket's midpoint, never above max(); 0 when empty.
  std::int64_t quantile(double q) const noexcept;

  static int bucket(std::int64_t ns) noexcept;
  static std::int64_t bucket_low(int index) noexcept;

 private:
  std::vector<double> weights_;  // sized on first add
  double weight_ = 0;
  std::int64_t max_ = 0;
};

/// Weighted values of either sign (two histograms of magnitudes), for a robust location.
class SignedHistogram {
 public:
  void add(std::int64_t ns, double weight);
  double weight() const noexcept { return below_.weight() + above_.weight(); }
  /// The value with q of the weight at or below it.
  double quantile(double q) const noexcept;
  /// The mean of the middle (1 - 2 * trim) of the weight: what is left when the `trim` share
  /// at either end is dropped. 0 when empty.
  double trimmed_mean(double trim) const noexcept;

 private:
  LatencyHistogram below_, above_;  // magnitudes of the negative values, and the rest
};

}  // namespace iobench::tracing
