#include "run/noise.h"

namespace iobench {

bool noisy(const Stats& times) {
  return times.samples.size() >= 3 && times.median > 0 &&
         times.spread > kNoisySpread * times.median;
}

}  // namespace iobench
