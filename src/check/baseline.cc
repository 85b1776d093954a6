#include "check/baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "base/error.h"
#include "strategies/knobs.h"
#include "strategies/strategy.h"
#include "tracer/tracer.h"

namespace iobench {
namespace {

using nlohmann::json;

std::string value_text(const json& v) {
  if (v.is_null()) return "default";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

bool BaselineComparison::regressed() const {
  return std::any_of(diffs.begin(), diffs.end(),
                     [](const BaselineDiff& d) { return d.regression; });
}

bool BaselineComparison::improved() const {
  return std::any_of(diffs.begin(), diffs.end(),
                     [](const BaselineDiff& d) { return d.improvement; });
}

bool BaselineComparison::failed() const {
  return std::any_of(diffs.begin(), diffs.end(), [](const BaselineDiff& d) { return d.failed; });
}

/// The member `key` of an object, or null: a const json's operator[] on a missing key is
/// undefined behaviour, and a baseline file is untrusted input.
const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

namespace {

using Bad = std::function<Error(const std::string&)>;

/// A count: null (not measured) or a whole number from 0 to 2^64-1. nlohmann reads -0 as a
/// signed integer and 1.0, 1e3 or 2^64 as floating point: a count is the value, whatever
/// the spelling, so -0 and 1.0 are counts and 1.5, -1 and 2^64 are not.
std::optional<std::uint64_t> count_of(const json& v, const std::string& where, const Bad& bad) {
  if (v.is_null()) return std::nullopt;
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() == 0) return 0;  // -0
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^64 is exact as a double; every double below it that has no fraction fits.
    if (d >= 0 && d < 18446744073709551616.0 && d == std::trunc(d))
      return static_cast<std::uint64_t>(d);
  }
  throw bad(
      fmt::format("{} is {}, not a count (a whole number from 0 to 2^64-1)", where, v.dump()));
}

/// A median: null (not measured) or a positive, finite number of nanoseconds (no run takes
/// 0 ns, and a 0 would make every change +0.0%).
std::optional<double> median_of(const json& time_ns, const std::string& where, const Bad& bad) {
  if (time_ns.is_null()) return std::nullopt;
  const json& median = member(time_ns, "median");
  if (!median.is_number() || !(median.get<double>() > 0) || !std::isfinite(median.get<double>()))
    throw bad(fmt::format("{}.time_ns.median is {}, not a positive number of nanoseconds", where,
                          median.dump()));
  return median.get<double>();
}

BaselineRow row_of(const json& r, const std::string& name, const Bad& bad) {
  BaselineRow row;
  const json& status = member(r, "status");
  static const ResultStatus kStatuses[] = {ResultStatus::kOk, ResultStatus::kUnsupported,
                                           ResultStatus::kFailed, ResultStatus::kTimeout};
  for (ResultStatus st : kStatuses)
    if (status.is_string() && status.get<std::string>() == to_string(st))
      row.status = to_string(st);
  if (row.status.empty())
    throw bad(fmt::format("{}.status is {}, not ok, unsupported, failed or timeout", name,
                          status.dump()));
  row.write_calls = count_of(member(r, "write_calls"), name + ".write_calls", bad);
  row.time_median_ns = median_of(member(r, "time_ns"), name, bad);
  const json& syscalls = member(r, "syscalls");
  if (!syscalls.is_null() && !syscalls.is_object())
    throw bad(fmt::format("{}.syscalls is not an object", name));
  if (syscalls.is_object()) {
    for (const auto& [sys, st] : syscalls.items()) {
      const std::string where = fmt::format("{}.syscalls.{}.calls", name, sys);
      // null is "not measured", as for write_calls; a syscall without `calls` says nothing.
      if (!st.is_object() || !st.contains("calls")) throw bad(where + " is missing");
      row.syscall_calls[sys] = count_of(member(st, "calls"), where, bad);
    }
  }
  return row;
}

}  // namespace

namespace {

/// The per-file counts a saved row holds: {path: count or null}, or null (not split by file).
std::optional<std::map<std::string, std::optional<std::uint64_t>>> file_calls_of(
    const json& files, const std::string& where, const Bad& bad) {
  if (files.is_null()) return std::nullopt;
  if (!files.is_object()) throw bad(where + " is not an object");
  std::map<std::string, std::optional<std::uint64_t>> out;
  for (const auto& [path, n] : files.items())
    out[path] = count_of(n, fmt::format("{}.{}", where, path), bad);
  return out;
}

/// The row of an `iobench-trace/1` document: its counts, and how the command ended.
BaselineRow trace_row_of(const json& doc, const std::string& name, const Bad& bad) {
  BaselineRow row;
  // A command that exited 0 is ok; a timeout is its own status; any other end a failure.
  const bool timed_out = member(doc, "timed_out") == true;
  const bool ok = member(doc, "exit_status") == 0 && member(doc, "error").is_null();
  row.status = to_string(timed_out ? ResultStatus::kTimeout
                         : ok      ? ResultStatus::kOk
                                   : ResultStatus::kFailed);
  row.write_calls = count_of(member(doc, "write_calls"), name + ".write_calls", bad);
  json counts = json::object();  // the shape row_of reads: {"syscalls": {NAME: {"calls"}}}
  counts["status"] = row.status;
  counts["syscalls"] = member(doc, "syscalls");
  row.syscall_calls = row_of(counts, name, bad).syscall_calls;
  return row;
}

/// A trace or compare baseline: the command's document and its `baseline` member, which
/// names each row (in results order) and holds its per-file counts.
void parse_program_rows(const json& doc, const json& saved, Baseline& b, const Bad& bad) {
  const json& rows = member(saved, "rows");
  if (!rows.is_array() || rows.empty()) throw bad("baseline.rows is missing");
  const json& results = member(doc, "results");
  if (b.kind == BaselineKind::kCompare && (!results.is_array() || results.size() != rows.size()))
    throw bad("baseline.rows and results differ in length");
  if (b.kind == BaselineKind::kTrace && rows.size() != 1)
    throw bad("baseline.rows holds more than the one traced program");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& name = member(rows[i], "name");
    if (!name.is_string() || name.get<std::string>().empty())
      throw bad("a baseline row has no name");
    const std::string n = name.get<std::string>();
    BaselineRow row =
        b.kind == BaselineKind::kTrace ? trace_row_of(doc, n, bad) : row_of(results[i], n, bad);
    row.file_calls = file_calls_of(member(rows[i], "file_calls"), n + ".file_calls", bad);
    if (!b.rows.emplace(n, std::move(row)).second)
      throw bad(fmt::format("program '{}' appears twice", n));
    b.order.push_back(n);
  }
}

/// What saved the document: its `baseline.kind`, else a run (a run's baseline saved before
/// the member existed). A trace or compare document without it is an export, not a baseline.
BaselineKind kind_of(const json& doc, const std::string& schema, const Bad& bad) {
  const json& kind = member(member(doc, "baseline"), "kind");
  for (BaselineKind k : {BaselineKind::kRun, BaselineKind::kTrace, BaselineKind::kCompare})
    if (kind == to_string(k)) {
      if (schema != (k == BaselineKind::kTrace ? "iobench-trace/1" : "iobench/1"))
        throw bad(fmt::format("a {} baseline in an {} document", to_string(k), schema));
      return k;
    }
  if (!kind.is_null())
    throw bad(fmt::format("baseline.kind is {}, not run, trace or compare", kind.dump()));
  const char* saved_by = schema == "iobench-trace/1"                            ? "iobench trace"
                         : member(member(doc, "config"), "commands").is_array() ? "iobench compare"
                                                                                : nullptr;
  if (saved_by)
    throw bad(fmt::format("an {} export, not a baseline (save one with {} --save-baseline)", schema,
                          saved_by));
  return BaselineKind::kRun;
}

/// Where the parser is while it reads a document, for naming the first key that appears twice
/// in one object (nlohmann keeps the last one silently, so a file could say two things).
struct KeyPath {
  struct Frame {
    bool object = true;
    std::set<std::string> keys;  // an object's keys so far
    std::string key;             // an object's member being read
    std::size_t index = 0;       // an array's element being read
  };
  std::vector<Frame> frames;
  std::string duplicate;  // "results[0].write_calls", or "" while none

  /// The path of the member `key` of the innermost object: results[0].syscalls.write.
  std::string path_to(const std::string& key) const {
    std::string out;
    for (std::size_t i = 0; i + 1 < frames.size(); ++i)
      out += frames[i].object ? (out.empty() ? "" : ".") + frames[i].key
                              : fmt::format("[{}]", frames[i].index);
    return out.empty() ? key : out + "." + key;
  }
  void next_element() {
    if (!frames.empty() && !frames.back().object) ++frames.back().index;
  }
  bool on(json::parse_event_t event, const json& parsed) {
    using Event = json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        frames.push_back({.object = event == Event::object_start, .keys = {}, .key = {}});
        break;
      case Event::object_end:
      case Event::array_end:
        if (!frames.empty()) frames.pop_back();
        next_element();
        break;
      case Event::key:
        if (frames.empty()) break;
        frames.back().key = parsed.get<std::string>();
        if (!frames.back().keys.insert(frames.back().key).second && duplicate.empty())
          duplicate = path_to(frames.back().key);
        break;
      case Event::value:
        next_element();
        break;
    }
    return true;  // keep everything: the document is judged whole afterwards
  }
};

/// The document, refused when it is not JSON or a key appears twice in one object.
json parse_document(const std::string& text, const Bad& bad) {
  KeyPath where;
  json doc = json::parse(
      text,
      [&where](int, json::parse_event_t event, json& parsed) { return where.on(event, parsed); },
      /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw bad("not valid JSON");
  if (!where.duplicate.empty())
    throw bad(
        fmt::format("{} appears twice (a key may appear once in an object)", where.duplicate));
  return doc;
}

}  // namespace

const char* command_name(BaselineKind kind) noexcept {
  switch (kind) {
    case BaselineKind::kTrace:
      return "iobench trace";
    case BaselineKind::kCompare:
      return "iobench compare";
    case BaselineKind::kRun:
      break;
  }
  return "iobench";
}

const char* to_string(BaselineKind kind) noexcept {
  switch (kind) {
    case BaselineKind::kTrace:
      return "trace";
    case BaselineKind::kCompare:
      return "compare";
    case BaselineKind::kRun:
      break;
  }
  return "run";
}

Baseline parse_baseline(const std::string& text, const std::string& origin) {
  const Bad bad = [&](const std::string& why) {
    return Error(fmt::format("--baseline {}: {}", origin, why));
  };
  const json doc = parse_document(text, bad);
  const json& schema = member(doc, "schema");
  if (!schema.is_string() ||
      (schema.get<std::string>() != "iobench/1" && schema.get<std::string>() != "iobench-trace/1"))
    throw bad("not an iobench/1 document (save one with --save-baseline)");
  Baseline b;
  b.kind = kind_of(doc, schema.get<std::string>(), bad);
  const json& exact = member(member(doc, "baseline"), "exact_counts");
  if (!exact.is_null() && !exact.is_boolean())
    throw bad(fmt::format("baseline.exact_counts is {}, not true or false", exact.dump()));
  b.exact_counts = exact == true;
  if (b.kind != BaselineKind::kRun) {
    parse_program_rows(doc, member(doc, "baseline"), b, bad);
    return b;
  }
  const json& config = member(doc, "config");
  const json& lines = member(config, "lines");
  if (lines.is_null()) throw bad("config.lines is missing");
  b.lines = *count_of(lines, "config.lines", bad);
  for (const Knob& knob : all_knobs())
    if (const std::string k(knob.name); config.contains(k))
      b.config[k] = value_text(member(config, k.c_str()));
  const json& results = member(doc, "results");
  if (!results.is_array()) throw bad("results is missing");
  for (const json& r : results) {
    const json& name = member(r, "strategy");
    if (!name.is_string()) throw bad("a result has no strategy name");
    const std::string strategy = name.get<std::string>();
    if (!b.rows.emplace(strategy, row_of(r, strategy, bad)).second)
      throw bad(fmt::format("strategy '{}' appears twice", strategy));
    b.order.push_back(strategy);
  }
  return b;
}

}  // namespace iobench
