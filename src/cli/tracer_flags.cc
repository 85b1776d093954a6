#include "cli/tracer_flags.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "base/error.h"
#include "cli/cli_values.h"
#include "tracer/counting_backend.h"

namespace iobench {
namespace {

/// "ptrace, perf": --tracer's words, from the backend list.
std::string backend_names() {
  std::string out;
  for (const Backend& b : backends())
    out += (out.empty() ? "" : ", ") + std::string(b.traits->name);
  return out;
}

/// The flag that asks for what `traits` lacks, or null when it gives all `needs` but times.
const char* missing_flag(const BackendTraits& traits, const BackendNeeds& needs) {
  if (needs.every_syscall && !traits.every_syscall) return "--trace-all";
  if (needs.per_process && !traits.per_process) return "--per-process";
  return nullptr;
}

/// --tracer NAME, checked now, so that an unusable backend stops us before anything has run.
const BackendTraits* named_backend(const std::string& name, const BackendNeeds& needs,
                                   bool traced) {
  const Backend* b = find_backend(name);
  if (b == nullptr)
    throw Error("--tracer: unknown backend '" + name + "' (" + backend_names() + ", auto)");
  const BackendTraits& t = *b->traits;
  if (needs.times && !t.times)
    throw Error(fmt::format("--tracer {} counts only; add --count-only", t.name));
  if (const char* flag = missing_flag(t, needs))
    throw Error(fmt::format("--tracer {} counts the write family only; drop {}", t.name, flag));
  if (!traced) return fallback_backend().traits;  // --no-trace: nothing to count
  if (b->set_up != nullptr)
    if (std::string why = b->set_up(); !why.empty())
      throw Error(fmt::format("--tracer {}: {}", t.name, why));
  if (b->unavailable != nullptr)
    if (std::string why = b->unavailable(); !why.empty())
      throw Error(fmt::format("--tracer {}: {}", t.name, why));
  return &t;
}

/// --tracer auto: the cheapest backend that gives what the run needs (choose_backend): perf
/// for a strategy's --count-only runs and the kernel clock for its timed ones when the
/// kernel lets us, ptrace otherwise. A program's
/// write_calls leave out its stdout, pipes and sockets (README "What counts as a write"), so
/// it needs a per-file split, and a backend without one must be asked for.
const BackendTraits* auto_backend(const BackendNeeds& needs, bool traced) {
  if (!traced) return fallback_backend().traits;
  const AutoChoice choice = choose_backend(needs);
  if (choice.passed_over != nullptr && choice.passed_over->traits->note_when_passed_over)
    fmt::print(stderr, "iobench: note: {} unavailable ({}); counting with {}\n",
               choice.passed_over->traits->noun, choice.why, choice.backend->traits->name);
  return choice.backend->traits;
}

/// "Who counts: ptrace (ptrace + seccomp), perf (...) or auto (...)", from the backend list.
std::string tracer_help() {
  std::string out = "Who counts: ";
  for (const Backend& b : backends())
    out += fmt::format("{} ({}), ", b.traits->name, b.traits->help);
  out.erase(out.size() - 2);
  // What auto picks (choose_backend), in words: the list's costs and traits decide it.
  return out +
         " or auto (default: for a strategy's run perf when --count-only, bpf when timed, "
         "where they may run; else ptrace)";
}

/// --cross-check: ptrace's estimate is what it checks, whatever auto would have chosen.
void cross_checked(const std::string& named, TracerOptions& t) {
  if (named != "auto" && t.backend != &kPtraceTraits)
    throw Error(
        fmt::format("--cross-check holds ptrace's times to the kernel clock's; drop "
                    "--tracer {}",
                    t.backend->name));
  t.backend = &kPtraceTraits;
  t.cross_check = true;
}

}  // namespace

void TracerFlags::add(CLI::App& app) {
  app.add_flag("--count-only", count_only, "Count calls with one stop each; no times, no bytes");
  app.add_flag("--trace-all", trace_all, "Trace every syscall, not just the write family");
  app.add_flag("--pin", pin, "Pin the tracer to its CPU (the traced program is never pinned)");
  app.add_flag("--no-pin", no_pin, "Do not pin the tracer (the default)");
  app.add_flag("--time-all", time_all,
               "Time every call (two stops each), not a sample spread over the run "
               "(the first 3,000 of each syscall, then 1 in k)")
      ->excludes("--count-only");
  app.add_option("--tracer", backend, tracer_help())->type_name(choices(tracer_words()));
  app.add_flag("--cross-check", cross_check,
               "Time the calls with ptrace and the kernel clock (eBPF) at once; print the ratio "
               "of ptrace's estimate to the kernel's time (root or CAP_BPF + CAP_PERFMON)")
      ->excludes("--count-only");
}

TracerOptions TracerFlags::options(bool traced, bool per_process, bool program,
                                   bool first_interrupt) const {
  TracerOptions t;
  t.mode = count_only ? TraceMode::kCount : TraceMode::kTiming;
  t.trace_all = trace_all;
  t.time_all = time_all;
  t.pin = pin && !no_pin;
  const BackendNeeds needs{.times = !count_only,
                           .per_file = program,
                           .per_process = per_process,
                           .every_syscall = trace_all,
                           .first_interrupt = first_interrupt};
  t.backend =
      backend == "auto" ? auto_backend(needs, traced) : named_backend(backend, needs, traced);
  if (cross_check && traced) cross_checked(backend, t);
  return t;
}

}  // namespace iobench
