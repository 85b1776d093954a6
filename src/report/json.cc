// JSON documents `iobench/1` and `iobench-trace/1`: contracts for users' scripts, so names
// and meanings only ever grow. Unknown values are null, never 0.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>
#include <variant>

#include "report/code_points.h"
#include "report/escape.h"
#include "report/json_result.h"
#include "report/reporter.h"
#include "report/table_parts.h"
#include "strategies/knobs.h"
#include "tracer/counting_backend.h"
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

/// `m`: what the backend measured in its mode; `times`: false when the tracer's cost was not
/// calibrated, so no time is known.
json syscalls_json(const std::map<std::string, SyscallStats>& syscalls, const TraceMeasures& m,
                   bool times = true) {
  json out = json::object();
  const bool timed = m.times;
  for (const auto& [name, st] : syscalls) {
    const bool known = timed && times;  // times were measured, not only return values
    const bool measured = known && st.timed_calls > 0;
    const bool returned = m.returns && !st.returns_unknown;  // some call's return was seen
    // io_uring_enter returns SQEs consumed, fsync nothing: bytes unknown.
    const bool bytes = returned && moves_data(name);
    out[name] = {
        {"calls", st.calls},
        {"errors", returned ? json(st.errors) : json(nullptr)},
        {"bytes", bytes ? json(st.bytes) : json(nullptr)},
        // Scaled from the timed calls' returns, not counted (tracer/tally.h).
        {"errors_estimated", returned ? json(st.returns_estimated()) : json(nullptr)},
        {"bytes_estimated", bytes ? json(st.returns_estimated()) : json(nullptr)},
        {"time_ns", known ? json(st.time_ns) : json(nullptr)},
        {"timed_calls", timed ? json(st.timed_calls) : json(nullptr)},
        {"estimated", timed ? json(st.estimated()) : json(nullptr)},
        {"time_ci95_ns", measured ? interval_json(st.time_ns, st.time_ci95_ns) : json(nullptr)},
        {"latency_ns", known ? latency_json(st.latency) : json(nullptr)}};
    // A call of another ABI than the native one ("write (i386)"): which, for scripts that
    // would rather not parse the key. Absent for native calls, so documents only grow.
    if (const std::string_view abi = syscall_abi(name); !abi.empty()) out[name]["abi"] = abi;
  }
  return out;
}

bool times_known(const TraceResult& t) { return t.time_unavailable_reason.empty(); }

/// Why the times are null: the reason, or null when they were measured (or never could be).
json unavailable_json(const TraceResult& t) {
  return times_known(t) ? json(nullptr) : json(t.time_unavailable_reason);
}

/// `files` (the run's, or one process's) of the run `t`.
json files_json(const std::vector<FileStats>& files, const TraceResult& t) {
  json out = json::array();
  const TraceMeasures m = measures(t);
  for (const FileStats& f : files) {
    // Written to only through calls that return no byte count (a ring, fsync): unknown.
    const SyscallStats moved = data_moved(f);
    const bool counted = m.returns && moved.calls > 0 && !moved.returns_unknown;
    out.push_back({{"path", f.path},
                   {"calls", f.calls()},
                   {"bytes", counted ? json(moved.bytes) : json(nullptr)},
                   {"bytes_estimated", counted ? json(moved.returns_estimated()) : json(nullptr)},
                   {"syscalls", syscalls_json(f.syscalls, m, times_known(t))}});
  }
  return out;
}

json files_json(const TraceResult& t) { return files_json(t.files, t); }

/// --cross-check's figures (base/result.h CrossCheck); each null when it was not measured.
json cross_check_json(const CrossCheck& c) {
  const bool ok = c.unavailable_reason.empty();
  const auto known = [ok](auto v) { return ok ? json(v) : json(nullptr); };
  return {
      {"unavailable", ok ? json(nullptr) : json(c.unavailable_reason)},
      {"calls", known(c.calls)},
      {"kernel_calls", known(c.kernel_calls)},
      {"estimate_ns", known(c.estimate_ns)},
      {"estimate_ci95_ns", ok ? interval_json(c.estimate_ns, c.estimate_ci95_ns) : json(nullptr)},
      {"kernel_ns", known(c.kernel_ns)},
      {"kernel_ci95_ns", ok ? interval_json(c.kernel_ns, c.kernel_ci95_ns) : json(nullptr)},
      {"kernel_bias_ns", known(c.kernel_bias_ns)},
      {"ratio", known(c.ratio)},
      {"ratio_ci95",
       ok ? json::array({c.ratio - c.ratio_ci95, c.ratio + c.ratio_ci95}) : json(nullptr)}};
}

json stats_json(const Stats& s) {
  return {{"median", s.median}, {"mean", s.mean}, {"stddev", s.stddev},  {"spread", s.spread},
          {"min", s.min},       {"max", s.max},   {"samples", s.samples}};
}

template <typename T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

bool invalid_string(const json& v) {
  return v.is_string() && !is_utf8(v.get_ref<const std::string&>());
}

/// A string's or an array's `_raw` sibling: every string in escape_text's form, so one rule
/// decodes all of it; other values as they are.
json raw_json(const json& v) {
  if (v.is_string()) return escape_text(v.get_ref<const std::string&>());
  json out = json::array();
  for (const json& e : v) out.push_back(e.is_string() ? raw_json(e) : e);
  return out;
}

/// Makes every string in `j` valid UTF-8 and adds the `_raw` siblings (see dump_json).
void make_utf8(json& j) {
  if (j.is_array()) {
    for (json& e : j) {
      if (invalid_string(e)) e = replace_invalid_utf8(e.get_ref<const std::string&>());
      make_utf8(e);
    }
    return;
  }
  if (!j.is_object()) return;
  json raw = json::object();
  for (auto& [key, value] : j.items()) {
    const bool holds_invalid =
        invalid_string(value) ||
        (value.is_array() && std::any_of(value.begin(), value.end(), invalid_string));
    if (holds_invalid) raw[key + "_raw"] = raw_json(value);
    if (invalid_string(value)) value = replace_invalid_utf8(value.get_ref<const std::string&>());
    make_utf8(value);
  }
  for (auto& [key, value] : raw.items()) j[key] = std::move(value);
}

/// nlohmann escapes the C0 controls but writes DEL, the C1 controls (U+0080..U+009F; a
/// terminal may take U+009B for a CSI) and the format characters (a bidi override, a
/// zero-width space: code_points.h) as they are: as \u escapes, the same JSON, so a
/// document printed on a terminal can neither drive it nor show a name reordered or hidden.
/// Outside strings JSON has no such bytes.
std::string escape_invisible(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) {  // dump() wrote none (make_utf8 and its replace handler): kept if it did
      out += text[i++];
      continue;
    }
    const char32_t cp = decode_utf8(std::string_view(text).substr(i, n));
    if (cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || is_format_character(cp)) {
      if (cp <= 0xFFFF) {
        out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(cp));
      } else {  // past the BMP, JSON's \u is a UTF-16 surrogate pair
        const std::uint32_t v = cp - 0x10000;
        out += fmt::format("\\u{:04x}\\u{:04x}", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
      }
    } else {
      out.append(text, i, n);
    }
    i += n;
  }
  return out;
}

}  // namespace

std::string dump_json(json doc) {
  make_utf8(doc);
  // The keys are iobench's own; `replace` only keeps a stray one from throwing.
  return escape_invisible(doc.dump(2, ' ', false, json::error_handler_t::replace)) + "\n";
}

json runs_json(std::optional<int> runs) { return runs ? json(*runs) : json("auto"); }

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
      {"counts_lost", r.trace && r.trace->available ? json(r.trace->lost) : json(nullptr)},
      {"syscall_time_ns", optional_json(r.syscall_time_ns)},
      {"traced_time_ns", optional_json(r.traced_time_ns)},
      {"syscall_time_ci95_ns", nullptr},
      {"timed_calls", nullptr},
      {"syscall_share", optional_json(r.syscall_share)},
      {"tracing_cost_ns", r.trace ? optional_json(r.trace->tracing_cost_ns) : json(nullptr)},
      {"time_less_cpu_waits_ns", optional_json(r.time_less_cpu_waits_ns)},
      {"cpu_wait_ns", r.trace ? optional_json(r.trace->cpu_wait_ns) : json(nullptr)},
      {"latency_ns", nullptr},
      {"trace_backend", r.trace ? json(r.trace->backend) : json(nullptr)},
      {"syscall_time_unavailable", nullptr},
  };
  if (r.trace && r.trace->available) {
    const TraceMeasures m = measures(*r.trace);
    j["syscalls"] = syscalls_json(r.trace->syscalls, m, times_known(*r.trace));
    j["syscall_time_unavailable"] = unavailable_json(*r.trace);
    j["files"] = files_json(*r.trace);
    if (!m.times) {
      j["syscall_time_ns"] = nullptr;
    } else if (r.syscall_time_ns) {
      j["syscall_time_ci95_ns"] = interval_json(*r.syscall_time_ns, r.syscall_time_ci95_ns);
      j["timed_calls"] = r.timed_calls;
      j["latency_ns"] = latency_json(r.latency);
    }
  }
  // Only under --cross-check: every other document stays as it was.
  if (r.trace && r.trace->cross_check) j["cross_check"] = cross_check_json(*r.trace->cross_check);
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

json config_json(const RunRecord& rep) {
  const TraceMeasures m = measures(traits_named(rep.tracer_backend), rep.trace_mode);
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
        {"mode", to_string(rep.trace_mode)},
        {"backend", rep.tracer_backend},
        {"pinned", rep.traced ? json(rep.pinned) : json(nullptr)},
        {"overhead_ns", rep.traced && m.tracer_cost_subtracted && !tracer_uncalibrated(rep)
                            ? json(rep.tracer_overhead_ns)
                            : json(nullptr)}}}};
  // The knobs: one loop over the table, so every JSON document carries all of them.
  for (const Knob& k : all_knobs()) config[std::string(k.name)] = knob_json(k.value(rep.params));
  return config;
}

std::string render_json(const RunRecord& rep) {
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
  return dump_json(std::move(doc));
}

std::string render_trace_json(const TraceRecord& rep) {
  const TraceResult& t = rep.trace;
  const TraceMeasures m = measures(t);
  const std::optional<std::int64_t> cost = subtracted_cost_ns(t);
  const std::uint64_t write_calls = count_writes(t).calls;
  json exit_status = t.term_signal ? json(128 + t.term_signal) : json(t.exit_code);
  const bool counted = t.available && !rep.never_ran;  // a failed exec has no counts, not 0s
  json doc = {
      {"schema", "iobench-trace/1"},
      {"command", rep.command},
      {"traced", t.available},
      {"mode", to_string(t.mode)},
      {"backend", t.backend},
      {"pinned", t.ptrace && t.ptrace->pinned},
      {"overhead_ns", cost ? json(*cost) : json(nullptr)},
      {"time_unavailable", counted ? unavailable_json(t) : json(nullptr)},
      {"syscalls", counted ? syscalls_json(t.syscalls, m, times_known(t)) : json(nullptr)},
      {"files", counted ? files_json(t) : json(nullptr)},
      {"write_calls", counted ? json(write_calls) : json(nullptr)},
      {"counts_lost", counted ? json(t.lost) : json(nullptr)},
      {"wall_ns", t.wall_ns},
      {"busy_share", m.times && counted && t.ptrace ? json(t.ptrace->busy_share) : json(nullptr)},
      {"exit_status", exit_status},
      {"signal", t.term_signal ? json(t.term_signal) : json(nullptr)},
      {"timed_out", t.timed_out},
      {"error", rep.error.empty() ? json(nullptr) : json(rep.error)},
  };
  if (rep.per_process) {
    json procs = json::array();
    for (const auto& p : t.processes)
      procs.push_back({{"pid", p.pid},
                       {"name", p.name.empty() ? json(nullptr) : json(p.name)},
                       {"syscalls", syscalls_json(p.syscalls, m, times_known(t))},
                       {"files", files_json(p.files, t)}});
    doc["processes"] = rep.never_ran ? json(nullptr) : procs;
  }
  if (t.cross_check) doc["cross_check"] = cross_check_json(*t.cross_check);
  return dump_json(std::move(doc));
}

}  // namespace iobench
