// Which calls of one syscall the tracer times (takes the exit stop for) and which it only
// counts. Every call until kFullyTimed of them were timed, then a sample of one call in
// each block of k, in phases: kPhaseTimed blocks at each k, k doubling from phase to phase.
// The sample thus spreads over the whole run, however long, while the calls timed grow only
// with log(N) (about 10,000 at N = 100,000; 2,000 more at each further ×4). Each timed call
// stands for the k calls of its block: its weight in the Horvitz-Thompson sums (tally.h),
// without which the early, densely timed calls would dominate.
//
// Where in its block the sampled call falls is drawn at random (a fixed seed: the same
// calls are timed in every run of the same program). A fixed place — every k-th call —
// aliases with a program's own period: one alternating a 12-byte header and a 4 KiB body
// would have only headers timed at every even k, and its bytes read as a third of the truth.
//
// The call before each sampled one is timed too, as a primer whose time is dropped: a timed
// call costs the tracee more than the probe's share when the call before it was timed
// (the tracer's extra stops evict more of the caches it runs on), and the calibration that
// corrects it times every call. Without the primer a sampled call read about a tenth below
// its untraced cost while a fully timed run read it right. (When the call before is the
// previous block's sampled one, it is its own primer.)
#pragma once

#include <cstdint>

namespace iobench::tracing {

class Sampler {
 public:
  static constexpr std::uint64_t kFullyTimed = 3000;
  static constexpr std::uint64_t kPhaseTimed = 1500;
  /// next()'s answer for a primer: time it, keep nothing.
  static constexpr std::uint32_t kPrimer = 0xffffffff;

  /// `all`: time every call (--time-all).
  explicit Sampler(bool all = false) noexcept : all_(all) { sampled_ = block_ + pick(stride_); }

  /// Called once per call, in call order: the call's weight if it is to be timed, kPrimer if
  /// it is to be timed for the next one's sake, else 0.
  std::uint32_t next() noexcept {
    const std::uint64_t i = seen_++;
    if (all_ || i < kFullyTimed) return 1;
    if (i + 1 == sampled_) return kPrimer;
    if (i != sampled_) return 0;
    const std::uint32_t weight = stride_;
    block_ += stride_;
    if (++timed_in_phase_ == kPhaseTimed) {
      timed_in_phase_ = 0;
      stride_ *= 2;
    }
    sampled_ = block_ + pick(stride_);
    return weight;
  }

 private:
  /// A place in a block of k (a power of 2): splitmix64, for its well-mixed low bits.
  std::uint64_t pick(std::uint32_t k) noexcept {
    std::uint64_t z = (rng_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (z ^ (z >> 31)) & (k - 1);
  }

  bool all_;
  std::uint64_t seen_ = 0;
  std::uint32_t stride_ = 2;           // k of the current phase
  std::uint64_t block_ = kFullyTimed;  // where the current block starts
  std::uint64_t sampled_ = 0;          // the call of the current block to time
  std::uint64_t timed_in_phase_ = 0;
  std::uint64_t rng_ = 0;
};

}  // namespace iobench::tracing
