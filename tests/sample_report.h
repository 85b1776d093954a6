// A fixed set of results, as a real 100,000-line run produces them, for layout tests: the
// numbers never move, so the table they render can be compared byte for byte.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "report/reporter.h"

namespace iobench::testing {

inline StrategyResult sample_row(const std::string& name, std::uint64_t calls,
                                 std::vector<std::int64_t> times, std::int64_t syscall_ns,
                                 std::uint64_t faults) {
  StrategyResult r;
  r.strategy = name;
  r.bytes = 1088890;
  r.verified = true;
  r.time_ns = summarize(times);
  std::vector<std::int64_t> cpu;
  for (auto t : times) cpu.push_back(t + 100000);
  r.cpu_ns = summarize(cpu);
  r.minor_faults = faults;
  TraceResult t;
  t.available = true;
  t.mode = TraceMode::kTiming;
  r.trace = t;
  r.write_calls = calls;
  r.syscall_time_ns = syscall_ns;
  // As the runner derives it from the traced run (runner.cc): here, against the median.
  if (r.time_ns.median > 0)
    r.syscall_share = std::min(1.0, static_cast<double>(syscall_ns) / r.time_ns.median);
  return r;
}

inline RunRecord sample_report() {
  RunRecord rep;
  rep.host = {"6.18.44-test", "Test CPU @ 2.00GHz", 2, "g++ 12"};
  rep.build_type = "Release";
  rep.version = "0.1.0";
  rep.lines = 100000;
  rep.bytes = 1088890;
  rep.dir = "/tmp";
  rep.filesystem = "ext4";
  rep.runs = 5;
  rep.warmup = 1;
  rep.traced = true;
  rep.pinned = true;
  rep.tracer_overhead_ns = 3600;
  rep.block_size = 4096;
  rep.results = {
      sample_row("unbuffered", 100000, {51590000, 50100000, 55000000, 49000000, 60000000}, 54850000,
                 30),
      sample_row("unbuffered-pieces", 300000,
                 {162130000, 150000000, 170000000, 158000000, 180000000}, 0, 40),
      sample_row("stdio", 266, {2880000, 2800000, 2950000, 2900000, 2870000}, 193300, 49),
      sample_row("buffered", 17, {784200, 700000, 800000, 850000, 790000}, 147500, 61),
      sample_row("io_uring", 1, {1240000, 1200000, 1300000, 1250000, 1230000}, 254600, 334),
      sample_row("mmap", 0, {1140000, 1100000, 1200000, 1150000, 1130000}, 0, 307),
      sample_row("format-only", 0, {517400, 500000, 530000, 520000, 510000}, 0, 55),
  };
  rep.results[1].syscall_time_ns.reset();  // a time lost in the subtraction: "—"
  StrategyResult failed;
  failed.strategy = "writev";
  failed.status = ResultStatus::kFailed;
  failed.error = "wrong bytes at offset 42";
  rep.results.push_back(failed);
  return rep;
}

}  // namespace iobench::testing
