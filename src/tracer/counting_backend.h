// Who counts a traced run, behind one interface: ptrace + seccomp (Tracer: counts, bytes,
// times, files) or the kernel's perf tracepoint counters (PerfCounter: counts only). Built
// once from the options by make_counting_backend; the runner, `trace` and `compare` run
// their child through it and never choose a backend themselves.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "base/result.h"
#include "tracer/tracer.h"

namespace iobench {

class CountingBackend {
 public:
  virtual ~CountingBackend() = default;
  /// Forks, runs child_main (it may exec; it must not throw) counted, and returns once the
  /// child and every descendant are gone; a tree still running after `timeout` is killed.
  /// The contract of Tracer::run and PerfCounter::run.
  virtual TraceResult run(const std::function<int()>& child_main,
                          std::optional<std::chrono::nanoseconds> timeout) = 0;
  /// The tracer's cost per call subtracted from syscall times; 0 when nothing is timed
  /// (count mode, perf).
  virtual std::int64_t overhead_ns() = 0;
};

/// "ptrace" or "perf", as JSON's config.tracer.backend and TraceResult::backend spell it.
const char* to_string(TracerBackend backend) noexcept;

/// The backend `options.backend` names (resolved from --tracer before anything ran).
std::unique_ptr<CountingBackend> make_counting_backend(const TracerOptions& options);

}  // namespace iobench
