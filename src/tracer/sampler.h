// Which calls of one syscall the tracer times (takes the exit stop for) and which it only
// counts. Every call until kFullyTimed of them were timed, then a systematic 1-in-k sample
// in phases: kPhaseTimed calls at each k, k doubling from phase to phase. The sample thus
// spreads over the whole run, however long, while the calls timed grow only with log(N)
// (about 10,000 at N = 100,000; 2,000 more at each further ×4). Each timed call stands for
// the k calls of its stride: its weight in the Horvitz-Thompson sums (tally.h), without
// which the early, densely timed calls would dominate.
#pragma once

#include <cstdint>

namespace iobench::tracing {

class Sampler {
 public:
  static constexpr std::uint64_t kFullyTimed = 3000;
  static constexpr std::uint64_t kPhaseTimed = 1500;

  /// `all`: time every call (--time-all).
  explicit Sampler(bool all = false) noexcept : all_(all) {}

  /// Called once per call, in call order: the call's weight if it is to be timed, else 0.
  std::uint32_t next() noexcept {
    if (all_ || seen_ < kFullyTimed) {
      ++seen_;
      return 1;
    }
    ++seen_;
    if (--countdown_ > 0) return 0;
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
  std::uint32_t countdown_ = 1;  // calls until the next timed one
  std::uint64_t timed_in_phase_ = 0;
};

}  // namespace iobench::tracing
