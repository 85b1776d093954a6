// Which calls of one syscall the tracer times (takes the exit stop for) and which it only
// counts. Every call until kFullyTimed of them were timed, then a systematic 1-in-k sample
// in phases: kPhaseTimed calls at each k, k doubling from phase to phase. The sample thus
// spreads over the whole run, however long, while the calls timed grow only with log(N)
// (about 10,000 at N = 100,000; 2,000 more at each further ×4). Each timed call stands for
// the k calls of its stride: its weight in the Horvitz-Thompson sums (tally.h), without
// which the early, densely timed calls would dominate.
//
// The call before each sampled one is timed too, as a primer whose time is dropped: a timed
// call costs the tracee more than the probe's share when the call before it was timed
// (the tracer's extra stops evict more of the caches it runs on), and the calibration that
// corrects it times every call. Without the primer a sampled call read about a tenth below
// its untraced cost while a fully timed run read it right.
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
  explicit Sampler(bool all = false) noexcept : all_(all) {}

  /// Called once per call, in call order: the call's weight if it is to be timed, kPrimer if
  /// it is to be timed for the next one's sake, else 0.
  std::uint32_t next() noexcept {
    if (all_ || seen_ < kFullyTimed) {
      ++seen_;
      return 1;
    }
    ++seen_;
    if (--countdown_ > 1) return 0;
    if (countdown_ == 1) return kPrimer;
    const std::uint32_t weight = stride_;
    if (++timed_in_phase_ == kPhaseTimed) {
      timed_in_phase_ = 0;
      stride_ *= 2;
    }
    countdown_ = stride_;
    return weight;
  }

 private:
  bool all_;
  std::uint64_t seen_ = 0;
  std::uint32_t stride_ = 2;     // k of the current phase
  std::uint32_t countdown_ = 2;  // calls until the next sampled one
  std::uint64_t timed_in_phase_ = 0;
};

}  // namespace iobench::tracing
