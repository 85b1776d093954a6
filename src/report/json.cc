// JSON documents `iobench/1` and `iobench-trace/1`: contracts for users' scripts, so names
// and meanings only ever grow. Unknown values are null, never 0.
#include <algorithm>
#include <type_traits>
#include <variant>
#include <nlohmann/json.hpp>

#include "cli/knobs.h"
#include "report/json_result.h"
#include "report/reporter.h"
#include "tracer/tracer.h"
#include "tracer/write_calls.h"

namespace iobench {
namespace {

using nlohmann::json;

json latency_json(const std::optional<LatencySummary>& l) {
  if (!l) return nullptr;
  return {{"p50", l->p50}, {"p90", l->p90}, {"p99", l->p99}, {"p999", l->p999}, {"max", l->max}};
}

/// [low, high] of a time's 95% interval, floored at 0.
json interval_json(std::int64_t ns, std::int64_t ci95_ns) {
  return json::array({std::max<std::int64_t>(0, ns - ci95_ns), ns + ci95_ns});
}

json syscalls_json(const std::map<std::string, SyscallStats>& syscalls, TraceMode mode) {
  json out = json::object();
  const bool timed = mode == TraceMode::kTiming;  // count mode never sees a return value
  for (const auto& [name, st] : syscalls) {
    const bool measured = timed && st.timed_calls > 0;
    out[name] = {{"calls", st.calls},
                 {"errors", timed ? json(st.errors) : json(nullptr)},
                 // io_uring_enter returns SQEs consumed, fsync nothing: bytes unknown.
                 {"bytes", timed && moves_data(name) ? json(st.bytes) : json(nullptr)},
                 {"time_ns", timed ? json(st.time_ns) : json(nullptr)},
                 {"timed_calls", timed ? json(st.timed_calls) : json(nullptr)},
                 {"estimated", timed ? json(st.estimated()) : json(nullptr)},
                 {"time_ci95_ns",
                  measured ? interval_json(st.time_ns, st.time_ci95_ns) : json(nullptr)},
                 {"latency_ns", timed ? latency_json(st.latency) : json(nullptr)}};
    // A call of another ABI than the native one ("write (i386)"): which, for scripts that
    // would rather not parse the key. Absent for native calls, so documents only grow.
    if (const std::string_view abi = syscall_abi(name); !abi.empty()) out[name]["abi"] = abi;
  }
  return out;
}

json files_json(const TraceResult& t) {
  json out = json::array();
  const bool timed = t.mode == TraceMode::kTiming;
  for (const FileStats& f : t.files) {
    // Written to only through calls that return no byte count (a ring, fsync): unknown.
    const bool counted = std::any_of(f.syscalls.begin(), f.syscalls.end(),
                                     [](const auto& s) { return moves_data(s.first); });
    out.push_back({{"path", f.path},
                   {"calls", f.calls()},
                   {"bytes", timed && counted ? json(f.bytes()) : json(nullptr)},
                   {"syscalls", syscalls_json(f.syscalls, t.mode)}});
  }
  return out;
}

json stats_json(const Stats& s) {
  return {{"median", s.median}, {"mean", s.mean}, {"stddev", s.stddev},
          {"min", s.min},       {"max", s.max},   {"samples", s.samples}};
}

template <typename T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

json runs_json(int runs) { return runs > 0 ? json(runs) : json("auto"); }

json result_json(const StrategyResult& r) {
  const bool measured = !r.time_ns.samples.empty();
  json j = {
      {"strategy", r.strategy},
      {"dir", r.dir.empty() ? json(nullptr) : json(r.dir)},
      {"filesystem", r.filesystem.empty() ? json(nullptr) : json(r.filesystem)},
      {"status", to_string(r.status)},
      {"error", r.error.empty() ? json(nullptr) : json(r.error)},
      {"bytes", r.bytes},
      {"verified", optional_json(r.verified)},
      {"time_ns", measured ? stats_json(r.time_ns) : json(nullptr)},
      // Each sample's place among all timed runs, and whether they vary too much to trust.
      {"run_order", measured ? json(r.run_order) : json(nullptr)},
      {"noisy", measured ? json(r.noisy) : json(nullptr)},
      {"cpu_ns", measured ? json{{"median", r.cpu_ns.median}} : json(nullptr)},
      {"page_faults",
       measured ? json{{"minor", r.minor_faults}, {"major", r.major_faults}} : json(nullptr)},
      {"context_switches",
       measured ? json{{"voluntary", r.voluntary_cs}, {"involuntary", r.involuntary_cs}}
                : json(nullptr)},
      {"syscalls", json::object()},
      {"files", json::array()},
      {"write_calls", optional_json(r.write_calls)},
      {"syscall_time_ns", optional_json(r.syscall_time_ns)},
      {"traced_time_ns", optional_json(r.traced_time_ns)},
      {"syscall_time_ci95_ns", nullptr},
      {"timed_calls", nullptr},
      {"syscall_share", optional_json(r.syscall_share)},
      {"latency_ns", nullptr},
      {"trace_backend", r.trace ? json(r.trace->backend) : json(nullptr)},
  };
  if (r.trace && r.trace->available) {
    j["syscalls"] = syscalls_json(r.trace->syscalls, r.trace->mode);
    j["files"] = files_json(*r.trace);
    if (r.trace->mode == TraceMode::kCount) {
      j["syscall_time_ns"] = nullptr;
    } else if (r.syscall_time_ns) {
      j["syscall_time_ci95_ns"] = interval_json(*r.syscall_time_ns, r.syscall_time_ci95_ns);
      j["timed_calls"] = r.timed_calls;
      j["latency_ns"] = latency_json(r.latency);
    }
  }
  return j;
}

json knob_json(const KnobValue& v) {
  return std::visit(
      [](const auto& x) -> json {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>)
          return nullptr;
        else
          return x;
      },
      v);
}

json config_json(const BenchReport& rep) {
  json config = {
      {"lines", rep.lines},
      {"bytes", rep.bytes},
      {"dir", rep.dir},
      {"filesystem", rep.filesystem},
      {"runs", runs_json(rep.runs)},
      {"warmup", rep.warmup},
      {"interleave", rep.interleave},
      {"tracer",
       {{"enabled", rep.traced},
        {"mode", rep.trace_mode == TraceMode::kTiming ? "timing" : "count"},
        {"backend", rep.tracer_backend},
        {"pinned", rep.traced ? json(rep.pinned) : json(nullptr)},
        {"overhead_ns", rep.traced && rep.trace_mode == TraceMode::kTiming
                            ? json(rep.tracer_overhead_ns)
                            : json(nullptr)}}}};
  // The knobs: one loop over the table, so every JSON document carries all of them.
  for (const Knob& k : all_knobs()) config[std::string(k.name)] = knob_json(k.value(rep.params));
  return config;
}

std::string render_json(const BenchReport& rep) {
  json results = json::array();
  for (const auto& r : rep.results) results.push_back(result_json(r));
  json doc = {
      {"schema", "iobench/1"},
      {"iobench",
       {{"version", rep.version}, {"build_type", rep.build_type}, {"compiler", rep.host.compiler}}},
      {"host", {{"kernel", rep.host.kernel}, {"cpu", rep.host.cpu}, {"cpus", rep.host.cpus}}},
      {"config", config_json(rep)},
      {"results", results},
  };
  if (!rep.commands.empty()) {
    // `iobench compare`: rows are commands; the strategies' knobs and line count mean nothing.
    json& config = doc["config"];
    for (const char* k : {"lines", "bytes", "dir", "filesystem"}) config[k] = nullptr;
    for (const Knob& k : all_knobs()) config[std::string(k.name)] = nullptr;
    json commands = json::array();
    for (const auto& c : rep.commands)
      commands.push_back({{"name", c.name}, {"command", c.command}});
    config["commands"] = commands;
  }
  return doc.dump(2) + "\n";
}

std::string render_trace_json(const TraceReport& rep) {
  const TraceResult& t = rep.trace;
  const std::uint64_t write_calls = count_writes(t).calls;
  json exit_status = t.term_signal ? json(128 + t.term_signal) : json(t.exit_code);
  json doc = {
      {"schema", "iobench-trace/1"},
      {"command", rep.command},
      {"traced", t.available},
      {"mode", t.mode == TraceMode::kTiming ? "timing" : "count"},
      {"backend", t.backend},
      {"pinned", t.pinned},
      {"overhead_ns",
       t.mode == TraceMode::kTiming && t.available ? json(t.overhead_ns) : json(nullptr)},
      {"syscalls", t.available ? syscalls_json(t.syscalls, t.mode) : json(nullptr)},
      {"files", t.available ? files_json(t) : json(nullptr)},
      {"write_calls", t.available ? json(write_calls) : json(nullptr)},
      {"wall_ns", t.wall_ns},
      {"busy_share", t.mode == TraceMode::kTiming && t.available ? json(t.busy_share) : json(nullptr)},
      {"exit_status", exit_status},
      {"signal", t.term_signal ? json(t.term_signal) : json(nullptr)},
      {"timed_out", t.timed_out},
      {"error", rep.error.empty() ? json(nullptr) : json(rep.error)},
  };
  if (rep.per_process) {
    json procs = json::array();
    for (const auto& p : t.processes)
      procs.push_back({{"pid", p.pid}, {"syscalls", syscalls_json(p.syscalls, t.mode)}});
    doc["processes"] = procs;
  }
  return doc.dump(2) + "\n";
}

}  // namespace iobench
