#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/result.h"

namespace iobench {

Stats summarize(std::vector<std::int64_t> samples) {
  Stats s;
  s.samples = samples;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.min = static_cast<double>(samples.front());
  s.max = static_cast<double>(samples.back());
  s.median =
      n % 2 ? static_cast<double>(samples[n / 2])
            : (static_cast<double>(samples[n / 2 - 1]) + static_cast<double>(samples[n / 2])) / 2;
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double sq = 0;
    for (auto v : samples)
      sq += (static_cast<double>(v) - s.mean) * (static_cast<double>(v) - s.mean);
    s.stddev = std::sqrt(sq / static_cast<double>(n - 1));  // sample stddev, as hyperfine reports
    std::vector<double> dev;
    dev.reserve(n);
    for (auto v : samples) dev.push_back(std::fabs(static_cast<double>(v) - s.median));
    std::sort(dev.begin(), dev.end());
    const double mad = n % 2 ? dev[n / 2] : (dev[n / 2 - 1] + dev[n / 2]) / 2;
    s.spread = 1.4826 * mad;
  }
  return s;
}

std::uint64_t FileStats::calls() const {
  std::uint64_t n = 0;
  for (const auto& [name, st] : syscalls) n += st.calls;
  return n;
}

std::uint64_t FileStats::bytes() const {
  std::uint64_t n = 0;
  for (const auto& [name, st] : syscalls) n += st.bytes;
  return n;
}

const char* to_string(ResultStatus s) {
  switch (s) {
    case ResultStatus::kOk:
      return "ok";
    case ResultStatus::kUnsupported:
      return "unsupported";
    case ResultStatus::kFailed:
      return "failed";
    case ResultStatus::kTimeout:
      return "timeout";
  }
  return "?";
}

const char* to_string(TraceMode mode) noexcept {
  return mode == TraceMode::kTiming ? "timing" : "count";
}

bool syscall_time_uncertain(const StrategyResult& r) {
  if (!r.syscall_time_ns || !r.write_calls || *r.write_calls == 0) return false;
  if (*r.syscall_time_ns <= 0 || r.syscall_time_ci95_ns >= *r.syscall_time_ns) return true;
  // Calls cannot take half as long again as the whole untraced run took: past that, the
  // correction failed, whatever its interval says.
  constexpr double kMostBelievable = 1.5;
  return r.time_ns.median > 0 &&
         static_cast<double>(*r.syscall_time_ns) > kMostBelievable * r.time_ns.median;
}

std::optional<double> traced_own_time_ns(const StrategyResult& r) {
  const TraceResult* t = r.trace ? &*r.trace : nullptr;
  if (t == nullptr || !t->tracing_cost_ns || !r.traced_time_ns) return std::nullopt;
  return static_cast<double>(*r.traced_time_ns - *t->tracing_cost_ns - t->cpu_wait_ns.value_or(0));
}

}  // namespace iobench
