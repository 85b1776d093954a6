#include "run/run_plan.h"

#include <algorithm>

namespace iobench {

int runs_still_needed(std::optional<int> requested, int done, std::int64_t done_ns,
                      std::int64_t estimate_ns) {
  if (requested) return std::max(0, *requested - done);
  if (done >= kAutoMaxRuns) return 0;
  const std::int64_t goal = kAutoMinTimedWork.count();
  const std::int64_t per_run = done > 0 ? done_ns / done : estimate_ns;
  int more = kAutoMinRuns - done;
  if (done_ns < goal && per_run > 0) {
    const std::int64_t for_time = (goal - done_ns + per_run - 1) / per_run;  // rounded up
    more = static_cast<int>(
        std::min<std::int64_t>(std::max<std::int64_t>(more, for_time), kAutoMaxRuns));
  }
  return std::clamp(more, 0, kAutoMaxRuns - done);
}

std::vector<std::size_t> run_order(const std::vector<int>& needed, std::mt19937_64& rng) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < needed.size(); ++i)
    order.insert(order.end(), static_cast<std::size_t>(std::max(0, needed[i])), i);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

}  // namespace iobench
