#include "cli/tracer_flags.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "base/error.h"
#include "tracer/perf_counter.h"

namespace iobench {
namespace {

/// --tracer: perf only counts (no times, bytes, files or other syscalls), so auto takes it
/// for a strategy's --count-only runs alone, when the kernel lets us, and ptrace/seccomp
/// otherwise: a program's write_calls leave out its stdout, pipes and sockets, which counters
/// cannot tell apart (README "What counts as a write"), so for `trace` and `compare` perf
/// must be asked for. `needs_ptrace` names what only ptrace can give (--trace-all,
/// --per-process), or is null.
TracerBackend resolve_backend(const std::string& name, bool count_only, bool traced, bool program,
                              const char* needs_ptrace) {
  if (name != "auto" && name != "ptrace" && name != "perf")
    throw Error("--tracer: unknown backend '" + name + "' (ptrace, perf, auto)");
  if (name == "ptrace") return TracerBackend::kPtrace;
  if (name == "perf") {
    if (!count_only) throw Error("--tracer perf counts only; add --count-only");
    if (needs_ptrace != nullptr)
      throw Error(fmt::format("--tracer perf counts the write family only; drop {}", needs_ptrace));
    if (!traced) return TracerBackend::kPtrace;  // --no-trace: nothing to count
    // Checked now, so an unusable backend stops us before anything has run.
    if (std::string why = perf_counting_unavailable(); !why.empty())
      throw Error("--tracer perf: " + why);
    return TracerBackend::kPerf;
  }
  if (!count_only || !traced || program || needs_ptrace != nullptr) return TracerBackend::kPtrace;
  if (std::string why = perf_counting_unavailable(); !why.empty()) {
    fmt::print(stderr, "iobench: note: perf counters unavailable ({}); counting with ptrace\n",
               why);
    return TracerBackend::kPtrace;
  }
  return TracerBackend::kPerf;
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
  app.add_option("--tracer", backend,
                 "Who counts: ptrace (ptrace + seccomp), perf (kernel tracepoint counters: "
                 "--count-only, root, tracefs) or auto (default: perf for a strategy's "
                 "--count-only run when available, else ptrace)");
}

TracerOptions TracerFlags::options(bool traced, bool per_process, bool program) const {
  TracerOptions t;
  t.mode = count_only ? TraceMode::kCount : TraceMode::kTiming;
  t.trace_all = trace_all;
  t.time_all = time_all;
  t.pin = pin && !no_pin;
  const char* needs_ptrace = trace_all ? "--trace-all" : per_process ? "--per-process" : nullptr;
  t.backend = resolve_backend(backend, count_only, traced, program, needs_ptrace);
  return t;
}

}  // namespace iobench
