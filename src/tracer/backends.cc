// The counting backends: one explicit list, one line each. Not self-registering: a static
// library silently drops an object file that only registers itself (STYLE.md, fio), and the
// order --tracer lists them in is this list's, on purpose. Adding a backend: its file pair
// in tracer/ (a CountingBackend and its BackendTraits), one line here, its CMake source.
#include <algorithm>
#include <array>
#include <vector>

#include "tracer/bpf_backend.h"
#include "tracer/counting_backend.h"
#include "tracer/cross_check.h"
#include "tracer/perf_counter.h"
#include "tracer/tracer.h"

namespace iobench {
namespace {

template <class Engine>
std::unique_ptr<CountingBackend> make(const TracerOptions& options) {
  return std::make_unique<Engine>(options);
}

const std::array kBackends{
    Backend{&kPtraceTraits, make<Tracer>, nullptr},
    Backend{&kPerfTraits, make<PerfCounter>, perf_counting_unavailable, set_up_perf_counting},
    Backend{&kBpfTraits, make<BpfBackend>, bpf_backend_unavailable},
};

// What a TraceResult with an unknown backend name measured: nothing.
constexpr BackendTraits kUnknownTraits{};

}  // namespace

std::span<const Backend> backends() noexcept { return kBackends; }

const Backend* find_backend(std::string_view name) noexcept {
  for (const Backend& b : kBackends)
    if (name == b.traits->name) return &b;
  return nullptr;
}

const Backend& fallback_backend() noexcept { return kBackends.front(); }

bool gives(const BackendTraits& traits, const BackendNeeds& needs) noexcept {
  return (traits.times || !needs.times) && (traits.per_file || !needs.per_file) &&
         (traits.per_process || !needs.per_process) &&
         (traits.every_syscall || !needs.every_syscall) &&
         (traits.passes_first_interrupt || !needs.first_interrupt);
}

AutoChoice choose_backend(const BackendNeeds& needs) {
  std::vector<const Backend*> fit;
  for (const Backend& b : kBackends)
    if (b.traits->automatic && gives(*b.traits, needs)) fit.push_back(&b);
  std::stable_sort(fit.begin(), fit.end(), [](const Backend* a, const Backend* b) {
    return a->traits->call_cost_ns < b->traits->call_cost_ns;
  });
  AutoChoice choice;
  for (const Backend* b : fit) {
    std::string why = b->unavailable != nullptr ? b->unavailable() : std::string();
    if (why.empty()) {
      choice.backend = b;
      return choice;
    }
    if (choice.passed_over == nullptr) {
      choice.passed_over = b;
      choice.why = std::move(why);
    }
  }
  choice.backend = &fallback_backend();  // runs anywhere, untraced where it is refused
  return choice;
}

std::unique_ptr<CountingBackend> make_counting_backend(const TracerOptions& options) {
  if (options.cross_check) return make_cross_check(options);  // a decorator, not a backend
  for (const Backend& b : kBackends)
    if (b.traits == options.backend) return b.make(options);
  return fallback_backend().make(options);
}

TraceMeasures measures(const BackendTraits& traits, TraceMode mode) noexcept {
  const bool timing = mode == TraceMode::kTiming;  // count mode: one stop, no return seen
  return TraceMeasures{.times = traits.times && timing,
                       .returns = traits.returns && timing,
                       .per_file = traits.per_file,
                       .per_process = traits.per_process,
                       .tracer_cost_subtracted = traits.subtracts_tracer_cost && timing};
}

const BackendTraits& traits_named(std::string_view name) noexcept {
  const Backend* b = find_backend(name);
  return b != nullptr ? *b->traits : kUnknownTraits;
}

const BackendTraits& traits_of(const TraceResult& t) noexcept { return traits_named(t.backend); }

TraceMeasures measures(const TraceResult& t) noexcept { return measures(traits_of(t), t.mode); }

std::optional<std::int64_t> subtracted_cost_ns(const TraceResult& t) noexcept {
  if (!t.available || !measures(t).tracer_cost_subtracted || !t.time_unavailable_reason.empty())
    return std::nullopt;
  if (t.ptrace && t.ptrace->calibration_skipped) return std::nullopt;  // nothing was timed
  if (t.ptrace) return t.ptrace->overhead_ns;
  if (t.bpf) return t.bpf->bias_ns;
  return std::nullopt;
}

}  // namespace iobench
