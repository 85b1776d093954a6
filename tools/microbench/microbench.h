// iobench-microbench: the Google Benchmark suite behind README "Performance".
// Each file registers one group; main.cc parses iobench's own flags and runs them.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "strategies/support/line_format.h"

namespace iobench::microbench {

/// Flags of our own, taken off the command line before Google Benchmark sees it.
struct Config {
  std::string dir;    // --iobench_dir: where the strategies' files go (default $TMPDIR or /tmp)
  bool trace = true;  // --iobench_trace=0: no syscall counters (skips one traced run per case)
};

/// lines/s as items_per_second, bytes/s as bytes_per_second, and the time per line.
inline void set_line_rates(benchmark::State& state, std::uint64_t lines) {
  const auto n = static_cast<std::int64_t>(lines);
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(expected_bytes(lines)));
  // Seconds per line (printed with an SI prefix: "5.4ns"), from the same clock as the rates.
  state.counters["per_line"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(n),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void register_format_benchmarks();
void register_strategy_benchmarks(const Config& config);
void register_tracer_benchmarks(const Config& config);

}  // namespace iobench::microbench
