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

}  // namespace iobench::tracing
