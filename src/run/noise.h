// hyperfine's warning, for iobench's rows: when a row's timed runs disagree too much to
// trust its median (a busy machine, a frequency change), say so rather than print it as fact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace iobench {

/// Above this share of the median, a row's timings are called noisy.
constexpr double kNoisySpread = 0.10;

struct Noise {
  /// (p75 - p25) / median. The interquartile range, not stddev/mean: one wild sample would
  /// inflate stddev, and outliers are counted separately below, so this is the steady spread.
  double spread = 0;
  /// Samples beyond 1.5 IQR outside the quartiles (Tukey's fences) and also more than
  /// kNoisySpread from the median: with near-identical samples the IQR is tiny, and a 2%
  /// blip beyond it is no reason to distrust a row.
  std::size_t outliers = 0;
  /// The larger of `spread` and the farthest outlier's distance from the median, as a share.
  double variation = 0;
  bool noisy() const { return variation > kNoisySpread; }
};

/// Judges a row's samples (any unit). Fewer than 3 samples are never called noisy: there is
/// nothing to compare them with.
Noise assess_noise(const std::vector<std::int64_t>& samples);

/// "timings of NAME vary by 23% (1 outlier beyond 1.5 IQR): the machine may be busy; results
/// may be noisy" (no "iobench: warning: " prefix, no newline).
std::string noise_warning(const std::string& name, const Noise& noise);

}  // namespace iobench
