#include "tracer/latency_histogram.h"

#include <algorithm>
#include <bit>

namespace iobench::tracing {

namespace {

constexpr int kSubBits = 6;  // 64 buckets per power of two
constexpr std::int64_t kSub = std::int64_t{1} << kSubBits;
constexpr int kMaxBits = 40;  // 2^40 ns: 18 minutes, longer than any one call we time
constexpr int kBuckets =
    static_cast<int>(2 * kSub) + (kMaxBits - kSubBits - 1) * static_cast<int>(kSub);

}  // namespace

int LatencyHistogram::bucket(std::int64_t ns) noexcept {
  const auto v = static_cast<std::uint64_t>(
      std::clamp<std::int64_t>(ns, 0, (std::int64_t{1} << kMaxBits) - 1));
  if (v < static_cast<std::uint64_t>(2 * kSub)) return static_cast<int>(v);  // exact below 128
  // shift >= 1 keeps the top kSubBits+1 bits: v >> shift is in [kSub, 2 kSub).
  const int shift = std::bit_width(v) - kSubBits - 1;
  return static_cast<int>(2 * kSub) + (shift - 1) * static_cast<int>(kSub) +
         static_cast<int>((v >> shift) - static_cast<std::uint64_t>(kSub));
}

std::int64_t LatencyHistogram::bucket_low(int index) noexcept {
  if (index < 2 * kSub) return index;
  const int shift = (index - static_cast<int>(2 * kSub)) / static_cast<int>(kSub) + 1;
  const std::int64_t mantissa = kSub + (index - 2 * kSub) % kSub;
  return mantissa << shift;
}

void LatencyHistogram::add(std::int64_t ns, double weight) {
  if (weights_.empty()) weights_.assign(kBuckets, 0.0);
  weights_[static_cast<std::size_t>(bucket(ns))] += weight;
  weight_ += weight;
  max_ = std::max(max_, ns);
}

std::int64_t LatencyHistogram::quantile(double q) const noexcept {
  if (weight_ <= 0) return 0;
  const double target = std::clamp(q, 0.0, 1.0) * weight_;
  double seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += weights_[static_cast<std::size_t>(i)];
    if (seen >= target && weights_[static_cast<std::size_t>(i)] > 0) {
      const std::int64_t low = bucket_low(i);
      const std::int64_t high = i + 1 < kBuckets ? bucket_low(i + 1) : low + 1;
      return std::min(max_, low + (high - low) / 2);
    }
  }
  return max_;
}

void SignedHistogram::add(std::int64_t ns, double weight) {
  if (ns < 0) {
    below_.add(-ns, weight);
  } else {
    above_.add(ns, weight);
  }
}

double SignedHistogram::quantile(double q) const noexcept {
  const double neg = below_.weight(), all = weight();
  if (all <= 0) return 0;
  const double at = q * all;
  if (at < neg) return -static_cast<double>(below_.quantile(1 - at / neg));
  return above_.weight() > 0 ? static_cast<double>(above_.quantile((at - neg) / above_.weight()))
                             : 0;
}

double SignedHistogram::trimmed_mean(double trim) const noexcept {
  // The mean of the quantile function over [trim, 1 - trim], in fine steps.
  constexpr int kSteps = 200;
  double sum = 0;
  for (int i = 0; i < kSteps; ++i) {
    sum += quantile(trim + (1 - 2 * trim) * (i + 0.5) / kSteps);
  }
  return sum / kSteps;
}

}  // namespace iobench::tracing
