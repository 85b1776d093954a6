// What an --expect says, as a plain value the options carry: parsed by check/expect.cc
// (parse_expectation) and judged there. Here, below check/, so that the options can hold it.
#pragma once

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
  MetricKind kind = MetricKind::kCount;
};

}  // namespace iobench
