// Who counts a traced run, behind one interface: ptrace + seccomp (Tracer: counts, bytes,
// times, files) or the kernel's perf tracepoint counters (PerfCounter: counts only), each
// declaring what it measures (backend_traits.h). The list of them is tracer/backends.cc;
// make_counting_backend builds one from it, for the runner, `trace`, `compare` and the API,
// which never choose a backend themselves, and everyone else asks the traits.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "tracer/backend_traits.h"

namespace iobench {

struct TracerOptions;

class CountingBackend {
 public:
  virtual ~CountingBackend() = default;
  /// Forks, runs child_main (it may exec; it must not throw) counted, and returns once the
  /// child and every descendant are gone; a tree still running after `timeout` is killed.
  /// The result's `backend` is its traits' name.
  virtual TraceResult run(const std::function<int()>& child_main,
                          std::optional<std::chrono::nanoseconds> timeout) = 0;
  /// The tracer's cost per call subtracted from syscall times; 0 when nothing is timed
  /// (count mode) or nothing subtracted.
  virtual std::int64_t overhead_ns() = 0;
};

/// One line of the backend list (tracer/backends.cc).
struct Backend {
  const BackendTraits* traits;
  std::unique_ptr<CountingBackend> (*make)(const TracerOptions&);
  /// Why it cannot run here for this process, in one line; empty when it can. Null: it always
  /// runs (ptrace runs the child untraced where it is refused, and the result says why).
  std::string (*unavailable)();
  /// What naming it in --tracer does before `unavailable` is asked (perf mounts tracefs, as
  /// perf does); auto never calls it, for it may change the machine. Returns why it failed,
  /// or empty. Null: nothing to set up.
  std::string (*set_up)() = nullptr;
};

/// Every backend, in the order --tracer lists them.
std::span<const Backend> backends() noexcept;
/// The backend --tracer names, or null.
const Backend* find_backend(std::string_view name) noexcept;
/// The backend that runs anywhere and gives everything: an untraced run names it (ptrace).
const Backend& fallback_backend() noexcept;

/// What a traced run asks of its backend.
struct BackendNeeds {
  bool times = false;     // timing mode
  bool per_file = false;  // a program's write_calls (a strategy's child writes only its file)
  bool per_process = false;
  bool every_syscall = false;
  bool first_interrupt = false;  // `trace`: the first Ctrl-C is the command's (README "Ctrl-C")
};
bool gives(const BackendTraits& traits, const BackendNeeds& needs) noexcept;

/// --tracer auto: the cheapest backend that gives what the run needs and can run here. A
/// cheaper one that would have but cannot run is `passed_over`, with `why`.
struct AutoChoice {
  const Backend* backend = nullptr;
  const Backend* passed_over = nullptr;
  std::string why;
};
AutoChoice choose_backend(const BackendNeeds& needs);

/// The backend `options.backend` names (resolved from --tracer before anything ran).
std::unique_ptr<CountingBackend> make_counting_backend(const TracerOptions& options);

/// What a run measured: its backend's traits in its mode (count mode sees no return and
/// times nothing). Reporters ask this, never the backend's name or the mode.
struct TraceMeasures {
  bool times = false;    // time_ns, timed_calls, latency (unknown when time_unavailable_reason)
  bool returns = false;  // errors and bytes
  bool per_file = false;
  bool per_process = false;
  bool tracer_cost_subtracted = false;
};
TraceMeasures measures(const BackendTraits& traits, TraceMode mode) noexcept;
/// The traits of the backend called `name` (a TraceResult's or a record's); an unknown name
/// measured nothing.
const BackendTraits& traits_named(std::string_view name) noexcept;
/// The traits of the backend that made `t`.
const BackendTraits& traits_of(const TraceResult& t) noexcept;
TraceMeasures measures(const TraceResult& t) noexcept;
/// The cost per call taken out of `t`'s times, when its backend subtracts one and they are
/// known; nullopt otherwise.
std::optional<std::int64_t> subtracted_cost_ns(const TraceResult& t) noexcept;

}  // namespace iobench
