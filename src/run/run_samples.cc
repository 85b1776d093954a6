#include "run/run_samples.h"

#include <algorithm>

#include "base/monotonic_clock.h"

namespace iobench {

void RunSamples::add(std::int64_t elapsed_ns, const rusage& usage, std::int64_t cpu_wait_ns) {
  times_.push_back(elapsed_ns);
  if (cpu_wait_ns >= 0) unwaited_.push_back(elapsed_ns - std::min(cpu_wait_ns, elapsed_ns));
  cpus_.push_back(to_ns(usage.ru_utime) + to_ns(usage.ru_stime));
  minflt_.push_back(usage.ru_minflt);
  majflt_.push_back(usage.ru_majflt);
  nvcsw_.push_back(usage.ru_nvcsw);
  nivcsw_.push_back(usage.ru_nivcsw);
}

void RunSamples::summarize_into(StrategyResult& result) const {
  result.time_ns = summarize(times_);
  result.cpu_ns = summarize(cpus_);
  result.time_less_cpu_waits_ns.reset();
  if (!unwaited_.empty() && unwaited_.size() == times_.size())
    result.time_less_cpu_waits_ns = static_cast<std::int64_t>(summarize(unwaited_).median);
  auto median = [](const std::vector<std::int64_t>& v) {
    return static_cast<std::uint64_t>(summarize(v).median);
  };
  result.minor_faults = median(minflt_);
  result.major_faults = median(majflt_);
  result.voluntary_cs = median(nvcsw_);
  result.involuntary_cs = median(nivcsw_);
}

}  // namespace iobench
