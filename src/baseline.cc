#include "baseline.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "error.h"

namespace iobench {
namespace {

using nlohmann::json;

// The workload's knobs: differences are shown, not refused, since comparing
// configurations is a main use.
constexpr const char* kConfigKeys[] = {"buffer_size", "stdio_buffer", "batch", "queue_depth",
                                       "map_window"};

std::string value_text(const json& v) {
  if (v.is_null()) return "default";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::optional<double> number(const json& v) {
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

std::string show(std::optional<double> v, bool time) {
  if (!v) return "—";
  if (time) return format_duration(*v);
  return format_count(static_cast<std::uint64_t>(*v));
}

}  // namespace

bool BaselineComparison::regressed() const {
  for (const auto& d : diffs)
    if (d.regression) return true;
  return false;
}

/// The member `key` of an object, or null: a const json's operator[] on a missing key is
/// undefined behaviour, and a baseline file is untrusted input.
const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

Baseline parse_baseline(const std::string& text, const std::string& origin) {
  auto bad = [&](const std::string& why) { return Error(fmt::format("--baseline {}: {}", origin, why)); };
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw bad("not valid JSON");
  const json& schema = member(doc, "schema");
  if (!schema.is_string() || schema.get<std::string>() != "iobench/1")
    throw bad("not an iobench/1 document (save one with --save-baseline)");
  Baseline b;
  const json& config = member(doc, "config");
  const json& lines = member(config, "lines");
  if (!lines.is_number_unsigned()) throw bad("config.lines is missing");
  b.lines = lines.get<std::uint64_t>();
  for (const char* k : kConfigKeys)
    if (config.contains(k)) b.config[k] = value_text(member(config, k));
  const json& results = member(doc, "results");
  if (!results.is_array()) throw bad("results is missing");
  for (const json& r : results) {
    const json& name = member(r, "strategy");
    if (!name.is_string()) throw bad("a result has no strategy name");
    BaselineRow row;
    const json& status = member(r, "status");
    row.status = status.is_string() ? status.get<std::string>() : "";
    row.write_calls = number(member(r, "write_calls"));
    row.time_median_ns = number(member(member(r, "time_ns"), "median"));
    const json& syscalls = member(r, "syscalls");
    if (syscalls.is_object())
      for (const auto& [sys, st] : syscalls.items())
        if (auto calls = number(member(st, "calls"))) row.syscall_calls[sys] = *calls;
    if (b.rows.emplace(name.get<std::string>(), row).second) b.order.push_back(name.get<std::string>());
  }
  return b;
}

Baseline load_baseline(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("--baseline {}: cannot read it", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_baseline(ss.str(), path);
}

BaselineComparison compare_with_baseline(const Baseline& before, const BenchReport& after,
                                         std::optional<std::uint64_t> count_tolerance,
                                         double time_tolerance) {
  if (before.lines != after.lines)
    throw Error(fmt::format("baseline not comparable: it wrote {} lines, this run {}", before.lines, after.lines));
  for (const auto& name : before.order) {
    bool found = false;
    for (const auto& r : after.results) found = found || r.strategy == name;
    if (!found) throw Error(fmt::format("baseline not comparable: strategy '{}' is in the baseline but did not run", name));
  }
  for (const auto& r : after.results)
    if (!before.rows.count(r.strategy))
      throw Error(fmt::format("baseline not comparable: strategy '{}' ran but is not in the baseline", r.strategy));

  BaselineComparison cmp;
  const std::map<std::string, std::string> now = {
      {"buffer_size", std::to_string(after.params.buffer_size)},
      {"stdio_buffer", after.params.stdio_buffer ? std::to_string(after.params.stdio_buffer) : "default"},
      {"batch", std::to_string(after.params.batch)},
      {"queue_depth", std::to_string(after.params.queue_depth)},
      {"map_window", std::to_string(after.params.map_window)}};
  for (const auto& [key, value] : now) {
    auto it = before.config.find(key);
    if (it != before.config.end() && it->second != value)
      cmp.config_changes.push_back(fmt::format("{} {} → {}", key, it->second, value));
  }

  const double slack = count_tolerance ? static_cast<double>(*count_tolerance) : 0.0;
  for (const auto& r : after.results) {
    const BaselineRow& b = before.rows.at(r.strategy);
    auto count_diff = [&](const std::string& metric, std::optional<double> was, std::optional<double> is) {
      if (!was && !is) return;
      BaselineDiff d{r.strategy, metric, show(was, false), show(is, false), "", false};
      if (was && is) {
        double delta = *is - *was;
        d.change = delta == 0 ? "=" : fmt::format("{:+.0f}", delta);
        d.regression = std::fabs(delta) > slack;
      } else {
        d.change = "not measured on one side";
      }
      cmp.diffs.push_back(d);
    };
    if (b.status != to_string(r.status)) {
      cmp.diffs.push_back({r.strategy, "status", b.status, to_string(r.status), "changed",
                           r.status == ResultStatus::kFailed || r.status == ResultStatus::kTimeout});
    }
    count_diff("write_calls", b.write_calls,
               r.write_calls ? std::optional<double>(static_cast<double>(*r.write_calls)) : std::nullopt);
    if (r.trace && r.trace->available) {
      std::map<std::string, double> calls;
      for (const auto& [name, st] : r.trace->syscalls) calls[name] = static_cast<double>(st.calls);
      for (const auto& [name, n] : b.syscall_calls) calls.try_emplace(name, 0.0);
      for (const auto& [name, n] : calls) {
        auto was = b.syscall_calls.count(name) ? b.syscall_calls.at(name) : 0.0;
        if (was == n) continue;  // unchanged syscalls would only repeat write_calls
        count_diff(name, was, n);
      }
    }
    if (b.time_median_ns && r.status == ResultStatus::kOk && !r.time_ns.samples.empty()) {
      double was = *b.time_median_ns, is = r.time_ns.median;
      double change = was > 0 ? is / was - 1 : 0;
      cmp.diffs.push_back({r.strategy, "time (median)", format_duration(was), format_duration(is),
                           fmt::format("{:+.1f}%", 100 * change), change > time_tolerance});
    }
  }
  return cmp;
}

std::string render_comparison(const BaselineComparison& cmp) {
  std::string out = "\nbaseline comparison";
  if (!cmp.config_changes.empty()) {
    out += " (configuration changed: ";
    for (std::size_t i = 0; i < cmp.config_changes.size(); ++i)
      out += (i ? ", " : "") + cmp.config_changes[i];
    out += ")";
  }
  out += "\n";
  std::size_t w0 = 8, w1 = 6, w2 = 6, w3 = 5;
  auto width = [](const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  for (const auto& d : cmp.diffs) {
    w0 = std::max(w0, width(d.strategy + "." + d.metric));
    w1 = std::max(w1, width(d.before));
    w2 = std::max(w2, width(d.after));
    w3 = std::max(w3, width(d.change));
  }
  auto pad = [&](const std::string& s, std::size_t w, bool right) {
    std::string p(w - std::min(w, width(s)), ' ');
    return right ? p + s : s + p;
  };
  out += pad("metric", w0, false) + "  " + pad("before", w1, true) + "  " + pad("after", w2, true) +
         "  " + pad("change", w3, true) + "\n";
  for (const auto& d : cmp.diffs) {
    out += pad(d.strategy + "." + d.metric, w0, false) + "  " + pad(d.before, w1, true) + "  " +
           pad(d.after, w2, true) + "  " + pad(d.change, w3, true);
    if (d.regression) out += "  REGRESSION";
    out += "\n";
  }
  return out;
}

}  // namespace iobench
