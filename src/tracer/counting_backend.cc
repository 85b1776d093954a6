#include "tracer/counting_backend.h"

#include "tracer/perf_counter.h"

namespace iobench {
namespace {

class PtraceBackend final : public CountingBackend {
 public:
  explicit PtraceBackend(const TracerOptions& options) : tracer_(options) {}
  TraceResult run(const std::function<int()>& child_main,
                  std::optional<std::chrono::nanoseconds> timeout) override {
    return tracer_.run(child_main, timeout);
  }
  std::int64_t overhead_ns() override {
    // Count mode subtracts nothing, so it need not pay for a calibration.
    return tracer_.options().mode == TraceMode::kTiming ? tracer_.overhead_ns() : 0;
  }

 private:
  Tracer tracer_;
};

class PerfBackend final : public CountingBackend {
 public:
  explicit PerfBackend(const TracerOptions& options) : counter_(options.foreign_abis) {}
  TraceResult run(const std::function<int()>& child_main,
                  std::optional<std::chrono::nanoseconds> timeout) override {
    return counter_.run(child_main, timeout);
  }
  std::int64_t overhead_ns() override { return 0; }

 private:
  PerfCounter counter_;
};

}  // namespace

const char* to_string(TracerBackend backend) noexcept {
  return backend == TracerBackend::kPerf ? "perf" : "ptrace";
}

std::unique_ptr<CountingBackend> make_counting_backend(const TracerOptions& options) {
  if (options.backend == TracerBackend::kPerf) return std::make_unique<PerfBackend>(options);
  return std::make_unique<PtraceBackend>(options);
}

}  // namespace iobench
