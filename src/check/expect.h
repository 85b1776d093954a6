// --expect 'EXPR': a check on a measured value, for regression tests.
// EXPR is [STRATEGY.]METRIC OP VALUE, e.g. `buffered.write_calls<=20`, `write==1000`,
// `time_ns<2ms`, `bytes>=64KiB`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/expectation.h"
#include "tracer/counting_backend.h"

namespace iobench {

/// Throws Error (exit 2) with a message that points at the bad part.
Expectation parse_expectation(const std::string& text);

/// One verdict line.
struct ExpectationOutcome {
  std::string subject;  // "buffered.write_calls"
  bool passed = false;
  std::optional<double> measured;  // nullopt: not measured (e.g. not traced)
  std::string line;                // "PASS buffered.write_calls <= 20 (measured 17)"
  std::string check;               // "buffered.write_calls <= 20": the line's check alone
  std::string expected;            // "<= 20"
  std::string measured_text;       // "measured 17" or "not measured: not traced"
};

/// Checks expectations against benchmark rows. An expectation without a strategy applies to
/// every row; one that names a strategy that did not run fails.
std::vector<ExpectationOutcome> check_expectations(const std::vector<Expectation>& expectations,
                                                   const std::vector<StrategyResult>& results);

/// Checks expectations against one traced command.
std::vector<ExpectationOutcome> check_expectations(const std::vector<Expectation>& expectations,
                                                   const TraceResult& trace);

/// Whether a run that measures `m` (measures()) can judge `e`: every run counts calls; bytes
/// need each call's return and a time the calls' times, which a count-mode run never sees.
bool judged_by(const Expectation& e, const TraceMeasures& m) noexcept;

/// True for a syscall of this machine's ABI (libseccomp's table).
bool is_syscall_name(const std::string& name);

/// Throws Error (exit 2) when `e` names a syscall the tracer will not stop on: without
/// --trace-all only the write family is traced, and anything else would measure 0.
void require_traced(const Expectation& e, bool trace_all);

bool compare(double measured, CompareOp op, double value) noexcept;
/// Counts exactly: every value from 0 to 2^64-1 is its own.
bool compare(std::uint64_t measured, CompareOp op, std::uint64_t value) noexcept;
const char* to_string(CompareOp op) noexcept;

}  // namespace iobench
