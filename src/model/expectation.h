// What an --expect says, as a plain value the options carry: parsed by check/expect.cc
// (parse_expectation) and judged there. Here, below check/, so that the options can hold it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace iobench {

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

enum class MetricKind { kCount, kBytes, kTime };

struct Expectation {
  std::string text;      // as the user wrote it
  std::string strategy;  // empty: every row (bench) or the command (trace)
  std::string metric;    // write_calls, bytes, time_ns, cpu_ns, page_faults, or a syscall name
  CompareOp op = CompareOp::kEq;
  double value = 0;
  /// The value exactly, when it is a whole number from 0 to 2^64-1 of a count or of bytes:
  /// a count is compared with it as an integer (a double holds 2^53 exactly, not 2^64-1).
  std::optional<std::uint64_t> count;
  MetricKind kind = MetricKind::kCount;
};

}  // namespace iobench
