#include "check/expect.h"

#include <fmt/format.h>
#include <seccomp.h>

#include <cctype>
#include <cmath>
#include <string_view>
#include <utility>

#include "base/error.h"
#include "base/quantity.h"
#include "tracer/counting_backend.h"
#include "tracer/tracer.h"
#include "tracer/write_calls.h"

namespace iobench {
namespace {

std::string trim(const std::string& s) {
  std::size_t a = s.find_first_not_of(" \t");
  std::size_t b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

MetricKind kind_of(const std::string& metric) {
  if (metric == "bytes") return MetricKind::kBytes;
  if (metric == "time_ns" || metric == "cpu_ns") return MetricKind::kTime;
  return MetricKind::kCount;
}

/// Whole numbers in full (a count or a byte size of 1e16 is read as digits, not 1e+16),
/// the rest in the shortest form that reads back exactly.
std::string format_value(double v) {
  if (v == std::floor(v)) return fmt::format("{:.0f}", v);
  return fmt::format("{}", v);
}

/// What was measured: a time, or a count kept exactly (a double rounds past 2^53).
struct Measured {
  double value = 0;
  std::optional<std::uint64_t> count;
};

Measured counted(std::uint64_t n) { return {static_cast<double>(n), n}; }
Measured timed(double ns) { return {ns, std::nullopt}; }

/// A whole bound and a count compare as integers; anything else as doubles.
bool passes(const Expectation& e, const Measured& m) {
  return e.count && m.count ? compare(*m.count, e.op, *e.count) : compare(m.value, e.op, e.value);
}

std::string text_of(const Measured& m) {
  return m.count ? fmt::format("{}", *m.count) : format_value(m.value);
}

ExpectationOutcome verdict(const Expectation& e, const std::string& subject,
                           std::optional<Measured> measured, const std::string& why_missing = "") {
  ExpectationOutcome out;
  out.subject = subject;
  if (measured) out.measured = measured->value;
  out.passed = measured && passes(e, *measured);
  const std::string rhs = e.count ? fmt::format("{}", *e.count) : format_value(e.value);
  out.expected = fmt::format("{} {}", to_string(e.op), rhs);
  out.check = subject + " " + out.expected;
  out.measured_text = measured ? fmt::format("measured {}", text_of(*measured))
                               : fmt::format("not measured: {}", why_missing);
  out.line = fmt::format("{} {} ({})", out.passed ? "PASS" : "FAIL", out.check, out.measured_text);
  return out;
}

/// Why the trace's counts cannot be judged (its backend lost some: TraceResult::lost), or "".
std::string incomplete(const TraceResult& t) {
  return t.lost.empty() ? "" : "counts incomplete: " + t.lost.front();
}

/// A metric the tracer counts (write_calls, a syscall's calls, bytes written), as opposed to
/// one the untraced runs time.
bool traced_count(const std::string& metric) {
  return metric != "time_ns" && metric != "cpu_ns" && metric != "page_faults";
}

Measured syscall_calls(const std::map<std::string, SyscallStats>& syscalls,
                       const std::string& name) {
  auto it = syscalls.find(name);
  return counted(it == syscalls.end() ? 0 : it->second.calls);
}

}  // namespace

bool judged_by(const Expectation& e, const TraceMeasures& m) noexcept {
  switch (e.kind) {
    case MetricKind::kCount:
      return true;
    case MetricKind::kBytes:
      return m.returns;
    case MetricKind::kTime:
      return m.times;
  }
  return false;
}

bool is_syscall_name(const std::string& name) {
  return seccomp_syscall_resolve_name(name.c_str()) != __NR_SCMP_ERROR;
}

void require_traced(const Expectation& e, bool trace_all) {
  if (trace_all || !is_syscall_name(e.metric) || is_write_family(e.metric)) return;
  throw Error(
      fmt::format("--expect '{}': {} is not traced (only the write family is, e.g. write, fsync, "
                  "io_uring_enter); add --trace-all to count it",
                  e.text, e.metric));
}

const char* to_string(CompareOp op) noexcept {
  switch (op) {
    case CompareOp::kEq:
      return "==";
    case CompareOp::kNe:
      return "!=";
    case CompareOp::kLt:
      return "<";
    case CompareOp::kLe:
      return "<=";
    case CompareOp::kGt:
      return ">";
    case CompareOp::kGe:
      return ">=";
  }
  return "?";
}

namespace {

template <typename T>
bool compare_values(T m, CompareOp op, T v) noexcept {
  switch (op) {
    case CompareOp::kEq:
      return m == v;
    case CompareOp::kNe:
      return m != v;
    case CompareOp::kLt:
      return m < v;
    case CompareOp::kLe:
      return m <= v;
    case CompareOp::kGt:
      return m > v;
    case CompareOp::kGe:
      return m >= v;
  }
  return false;
}

}  // namespace

bool compare(double measured, CompareOp op, double value) noexcept {
  return compare_values(measured, op, value);
}

bool compare(std::uint64_t measured, CompareOp op, std::uint64_t value) noexcept {
  return compare_values(measured, op, value);
}

namespace {

Error expect_error(const std::string& text, const std::string& why) {
  return Error(fmt::format("--expect '{}': {}", text, why));
}

/// The operators, two-character ones first so "<=" is not read as "<".
constexpr std::pair<std::string_view, CompareOp> kOperators[] = {
    {"==", CompareOp::kEq}, {"!=", CompareOp::kNe}, {"<=", CompareOp::kLe},
    {">=", CompareOp::kGe}, {"<", CompareOp::kLt},  {">", CompareOp::kGt}};

/// The operator: the first of < > = ! in the text, at `pos`. Sets e.op; returns its length.
std::size_t parse_operator(const std::string& text, std::size_t pos, Expectation& e) {
  if (pos == std::string::npos) throw expect_error(text, "no comparison (use == != < <= > >=)");
  for (const auto& [word, op] : kOperators) {
    if (std::string_view(text).substr(pos, word.size()) != word) continue;
    e.op = op;
    return word.size();
  }
  throw expect_error(
      text, fmt::format("'{}' at position {} is not a comparison (use == != < <= > >=)", text[pos],
                        pos + 1));
}

/// [STRATEGY.]METRIC before the operator: sets e.strategy, e.metric and e.kind.
void parse_subject(const std::string& lhs, Expectation& e) {
  if (lhs.empty())
    throw expect_error(e.text, "nothing before the comparison (a metric such as write_calls)");
  if (std::size_t dot = lhs.find('.'); dot != std::string::npos) {
    e.strategy = lhs.substr(0, dot);
    e.metric = lhs.substr(dot + 1);
    if (!valid_name(e.strategy))
      throw expect_error(e.text, fmt::format("'{}' is not a strategy name", e.strategy));
  } else {
    e.metric = lhs;
  }
  if (!valid_name(e.metric))
    throw expect_error(e.text, fmt::format("'{}' is not a metric", e.metric));
  e.kind = kind_of(e.metric);
}

Dimension dimension_of(MetricKind kind) {
  return kind == MetricKind::kTime    ? Dimension::kDuration
         : kind == MetricKind::kBytes ? Dimension::kSize
                                      : Dimension::kCount;
}

/// The scale of `unit` (after the number), which must fit the metric's kind: the words
/// every flag reads (base/quantity.h), so `time_ns<2ms` means what `--timeout 2ms` does.
double unit_scale(const std::string& unit, const Expectation& e) {
  if (unit.empty()) return 1;
  const UnitWord* found = find_unit(unit);
  if (!found)
    throw expect_error(e.text,
                       fmt::format("unknown unit '{}' (time: {}; size: {}; count: {})", unit,
                                   unit_list(Dimension::kDuration), unit_list(Dimension::kSize),
                                   unit_list(Dimension::kCount)));
  if (!fits(*found, dimension_of(e.kind)))
    throw expect_error(e.text, fmt::format("unit '{}' does not fit {} (a {})", unit, e.metric,
                                           e.kind == MetricKind::kTime    ? "time"
                                           : e.kind == MetricKind::kBytes ? "size"
                                                                          : "count"));
  return found->scale;
}

/// A whole value of a count or of bytes, exactly (e.count); one past 2^64-1 is out of range,
/// since no count can reach it. A fraction or a negative bound stays a double.
void parse_whole(const NumberWord& number, const std::string& rhs, double scale, Expectation& e) {
  if (e.kind == MetricKind::kTime) return;
  std::uint64_t whole = 0;
  switch (exact_whole(number.digits, static_cast<std::uint64_t>(scale), whole)) {
    case Whole::kOk:
      e.count = whole;
      break;
    case Whole::kTooBig:
      throw expect_error(
          e.text, fmt::format("'{}' is out of range (a count is at most {})", rhs, UINT64_MAX));
    case Whole::kNotWhole:
      break;
  }
}

/// The value after the operator, a number and an optional unit: sets e.value (and e.count).
void parse_value(const std::string& rhs, Expectation& e) {
  if (rhs.empty()) throw expect_error(e.text, "no value after the comparison");
  if (rhs.find_first_of("<>=!") != std::string::npos)
    throw expect_error(e.text, fmt::format("'{}' after the comparison is not a value", rhs));
  const std::optional<NumberWord> number = split_number(rhs);
  if (!number) throw expect_error(e.text, fmt::format("'{}' is not a number", rhs));
  if (number->out_of_range)
    throw expect_error(e.text, fmt::format("'{}' is out of range (past what a double holds)", rhs));
  const double scale = unit_scale(trim(std::string(number->rest)), e);
  e.value = number->number * scale;
  // nan compares false with everything and inf (also 1e308s, scaled) passes or fails alike.
  if (!std::isfinite(e.value))
    throw expect_error(e.text, fmt::format("'{}' is not a finite value", rhs));
  parse_whole(*number, rhs, scale, e);
}

}  // namespace

Expectation parse_expectation(const std::string& text) {
  Expectation e;
  e.text = text;
  const std::size_t pos = text.find_first_of("<>=!");
  const std::size_t len = parse_operator(text, pos, e);
  parse_subject(trim(text.substr(0, pos)), e);
  parse_value(trim(text.substr(pos + len)), e);
  return e;
}

std::vector<ExpectationOutcome> check_expectations(const std::vector<Expectation>& expectations,
                                                   const std::vector<StrategyResult>& results) {
  std::vector<ExpectationOutcome> out;
  for (const Expectation& e : expectations) {
    bool matched = false;
    for (const StrategyResult& r : results) {
      if (!e.strategy.empty() && e.strategy != r.strategy) continue;
      matched = true;
      const std::string subject = r.strategy + "." + e.metric;
      if (r.status != ResultStatus::kOk) {
        out.push_back(
            verdict(e, subject, std::nullopt, fmt::format("status {}", to_string(r.status))));
        continue;
      }
      const bool traced = r.trace && r.trace->available;
      if (traced && e.metric != "bytes" && traced_count(e.metric) &&
          !incomplete(*r.trace).empty()) {
        out.push_back(verdict(e, subject, std::nullopt, incomplete(*r.trace)));
      } else if (e.metric == "write_calls") {
        out.push_back(r.write_calls ? verdict(e, subject, counted(*r.write_calls))
                                    : verdict(e, subject, std::nullopt, "not traced"));
      } else if (e.metric == "bytes") {
        out.push_back(verdict(e, subject, counted(r.bytes)));
      } else if (e.metric == "time_ns") {
        out.push_back(verdict(e, subject, timed(r.time_ns.median)));
      } else if (e.metric == "cpu_ns") {
        out.push_back(verdict(e, subject, timed(r.cpu_ns.median)));
      } else if (e.metric == "page_faults") {
        out.push_back(verdict(e, subject, counted(r.minor_faults + r.major_faults)));
      } else if (traced) {
        out.push_back(verdict(e, subject, syscall_calls(r.trace->syscalls, e.metric)));
      } else {
        out.push_back(verdict(e, subject, std::nullopt, "not traced"));
      }
    }
    if (!matched) {
      ExpectationOutcome o = verdict(e, e.strategy + "." + e.metric, std::nullopt,
                                     fmt::format("strategy '{}' did not run", e.strategy));
      out.push_back(o);
    }
  }
  return out;
}

std::vector<ExpectationOutcome> check_expectations(const std::vector<Expectation>& expectations,
                                                   const TraceResult& t) {
  std::vector<ExpectationOutcome> out;
  for (const Expectation& e : expectations) {
    const std::string subject = e.metric;
    if (!t.available) {
      out.push_back(verdict(e, subject, std::nullopt, "not traced"));
      continue;
    }
    if (traced_count(e.metric) && !incomplete(t).empty()) {
      out.push_back(verdict(e, subject, std::nullopt, incomplete(t)));
    } else if (e.metric == "write_calls") {
      out.push_back(verdict(e, subject, counted(count_writes(t).calls)));
    } else if (e.metric == "bytes") {
      std::uint64_t bytes = 0;
      for (const auto& [name, st] : t.syscalls)
        if (is_write_family(name)) bytes += st.bytes;
      if (!measures(t).returns)  // count mode: no call's return seen
        out.push_back(verdict(e, subject, std::nullopt, "count mode sees no byte counts"));
      else
        out.push_back(verdict(e, subject, counted(bytes)));
    } else if (e.metric == "time_ns") {
      out.push_back(verdict(e, subject, timed(static_cast<double>(t.wall_ns))));
    } else {
      out.push_back(verdict(e, subject, syscall_calls(t.syscalls, e.metric)));
    }
  }
  return out;
}

}  // namespace iobench
