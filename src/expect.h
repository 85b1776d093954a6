// --expect 'EXPR': a check on a measured value, for regression tests.
// EXPR is [STRATEGY.]METRIC OP VALUE, e.g. `buffered.write_calls<=20`, `write==1000`,
// `time_ns<2ms`, `bytes>=64KiB`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "result.h"

namespace iobench {

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

enum class MetricKind { kCount, kBytes, kTime };

struct Expectation {
  std::string text;      // as the user wrote it
  std::string strategy;  // empty: every row (bench) or the command (trace)
  std::string metric;    // write_calls, bytes, time_ns, cpu_ns, page_faults, or a syscall name
  CompareOp op = CompareOp::kEq;
  double value = 0;
  MetricKind kind = MetricKind::kCount;
};

/// Throws Error (exit 2) with a message that points at the bad part.
Expectation parse_expectation(const std::string& text);

/// One verdict line.
struct ExpectationOutcome {
  std::string subject;  // "buffered.write_calls"
  bool passed = false;
  std::optional<double> measured;  // nullopt: not measured (e.g. not traced)
  std::string line;                // "PASS buffered.write_calls <= 20 (measured 17)"
};

/// Checks expectations against benchmark rows. An expectation without a strategy applies to
/// every row; one that names a strategy that did not run fails.
std::vector<ExpectationOutcome> check_expectations(const std::vector<Expectation>& expectations,
                                                   const std::vector<StrategyResult>& results);

/// Checks expectations against one traced command.
std::vector<ExpectationOutcome> check_expectations(const std::vector<Expectation>& expectations,
                                                   const TraceResult& trace);

/// True for a syscall of this machine's ABI (libseccomp's table).
bool is_syscall_name(const std::string& name);

/// Throws Error (exit 2) when `e` names a syscall the tracer will not stop on: without
/// --trace-all only the write family is traced, and anything else would measure 0.
void require_traced(const Expectation& e, bool trace_all);

bool compare(double measured, CompareOp op, double value) noexcept;
const char* to_string(CompareOp op) noexcept;

}  // namespace iobench
