#include "run/run_samples.h"

#include "base/monotonic_clock.h"

namespace iobench {

void RunSamples::add(std::int64_t elapsed_ns, const rusage& usage) {
  times_.push_back(elapsed_ns);
  cpus_.push_back(to_ns(usage.ru_utime) + to_ns(usage.ru_stime));
  minflt_.push_back(usage.ru_minflt);
  majflt_.push_back(usage.ru_majflt);
  nvcsw_.push_back(usage.ru_nvcsw);
  nivcsw_.push_back(usage.ru_nivcsw);
}

void RunSamples::summarize_into(StrategyResult& result) const {
  result.time_ns = summarize(times_);
  result.cpu_ns = summarize(cpus_);
  auto median = [](const std::vector<std::int64_t>& v) {
    return static_cast<std::uint64_t>(summarize(v).median);
  };
  result.minor_faults = median(minflt_);
  result.major_faults = median(majflt_);
  result.voluntary_cs = median(nvcsw_);
  result.involuntary_cs = median(nivcsw_);
}

}  // namespace iobench
