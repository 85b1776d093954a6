// The shared line formatter, and the plain std::to_chars loop it is held to (README
// "Performance": format-only should stay within 1.2x of the loop). All three write the
// same bytes into the same reused 64 KiB buffer; only the machinery around to_chars differs.
#include <benchmark/benchmark.h>

#include <charconv>
#include <cstring>

#include "microbench.h"
#include "strategies/support/line_format.h"

namespace iobench::microbench {
namespace {

constexpr std::size_t kBufferSize = std::size_t{64} * 1024;  // format-only's buffer

/// format_line, one line at a time, as the line-per-call strategies use it.
void BM_FormatLine(benchmark::State& state) {
  const auto lines = static_cast<std::uint64_t>(state.range(0));
  alignas(64) static char buf[kBufferSize];
  for ([[maybe_unused]] auto _ : state) {
    std::size_t used = 0;
    for (std::uint64_t i = 0; i < lines; ++i) {
      if (kBufferSize - used < kMaxLineBytes) used = 0;
      used += format_line(buf + used, i);
    }
    benchmark::DoNotOptimize(buf);
    benchmark::ClobberMemory();
  }
  set_line_rates(state, lines);
}

/// LineStream::fill into a reused buffer: exactly format-only's loop, without its child.
void BM_LineStream(benchmark::State& state) {
  const auto lines = static_cast<std::uint64_t>(state.range(0));
  alignas(64) static char buf[kBufferSize];
  for ([[maybe_unused]] auto _ : state) {
    LineStream stream(0, lines);
    while (!stream.done()) {
      benchmark::DoNotOptimize(stream.fill(buf, sizeof buf));
      benchmark::ClobberMemory();
    }
  }
  set_line_rates(state, lines);
}

/// The reference: the loop anyone would write first, with nothing shared.
void BM_ToCharsLoop(benchmark::State& state) {
  const auto lines = static_cast<std::uint64_t>(state.range(0));
  alignas(64) static char buf[kBufferSize];
  for ([[maybe_unused]] auto _ : state) {
    char* p = buf;
    for (std::uint64_t i = 0; i < lines; ++i) {
      if (buf + kBufferSize - p < static_cast<std::ptrdiff_t>(kMaxLineBytes)) {
        benchmark::ClobberMemory();
        p = buf;
      }
      std::memcpy(p, "Line ", 5);
      p = std::to_chars(p + 5, p + 25, i).ptr;
      *p++ = '\n';
    }
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
  set_line_rates(state, lines);
}

}  // namespace

void register_format_benchmarks() {
  for (auto* bm : {benchmark::RegisterBenchmark("format/format_line", BM_FormatLine),
                   benchmark::RegisterBenchmark("format/line_stream", BM_LineStream),
                   benchmark::RegisterBenchmark("format/to_chars_loop", BM_ToCharsLoop)}) {
    bm->Arg(1000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace iobench::microbench
