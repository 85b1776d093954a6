// Sampled timing: which calls are timed, how they are weighted, the latency histogram, and
// traced runs in which counts stay exact while times come from a sample.
#include <algorithm>
#include <cmath>

#include "tracer/latency_histogram.h"
#include "tracer/sampler.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

using tracing::LatencyHistogram;
using tracing::Sampler;
using tracing::SignedHistogram;

struct Simulated {
  std::uint64_t timed = 0, last_timed = 0, primers = 0;
  std::uint64_t unprimed = 0;  // sampled calls (weight > 1) whose call before was not timed
  double weight = 0;
};

Simulated simulate(std::uint64_t calls, bool all = false) {
  Sampler s(all);
  Simulated out;
  std::uint32_t before = 0;
  for (std::uint64_t i = 0; i < calls; ++i) {
    const std::uint32_t w = s.next();
    if (w == Sampler::kPrimer) {
      ++out.primers;
    } else if (w > 0) {
      ++out.timed;
      out.weight += w;
      out.last_timed = i;
      if (w > 1 && before == 0) ++out.unprimed;
    }
    before = w;
  }
  return out;
}

TEST(Sampler, TimesTheFirstCallsThenASampleSpreadOverTheRun) {
  EXPECT_EQ(simulate(Sampler::kFullyTimed).timed, Sampler::kFullyTimed);
  for (std::uint64_t n : {10'000ULL, 100'000ULL, 300'000ULL, 1'000'000ULL}) {
    SCOPED_TRACE(n);
    const Simulated s = simulate(n);
    EXPECT_LT(s.timed, n);
    EXPECT_LE(s.timed, 16'000u);  // the budget: grows with log(N) only
    // Spread to the end, not bunched at the start; the weights stand for every call.
    EXPECT_GT(s.last_timed, n - n / 20);
    EXPECT_NEAR(s.weight, static_cast<double>(n), static_cast<double>(n) * 0.01);
  }
  EXPECT_EQ(simulate(100'000, true).timed, 100'000u);  // --time-all
  EXPECT_EQ(simulate(100'000, true).primers, 0u);
}

// A sampled call is timed in the context the calibration measured: right after a timed call.
TEST(Sampler, TimesTheCallBeforeEachSampledOneAsAPrimer) {
  const Simulated s = simulate(100'000);
  EXPECT_EQ(s.unprimed, 0u);
  // One each at most: a sampled call right after the block before's is primed by it.
  EXPECT_LE(s.primers, s.timed - Sampler::kFullyTimed);
  EXPECT_GT(s.primers, (s.timed - Sampler::kFullyTimed) * 9 / 10);
  EXPECT_EQ(simulate(Sampler::kFullyTimed).primers, 0u);
}

// A program with a period of its own (a 12-byte header, then a 4 KiB body) is sampled in
// both parts: the sampled call's place in its block is drawn, not every k-th (sampler.h).
TEST(Sampler, ASampleDoesNotAliasWithTheProgramsPeriod) {
  // Every 64th call big: about 23 of a phase's 1,500 samples at k = 512 hit one, so a
  // sample's own spread is wider there. Every k-th call would time no body at all, or only
  // bodies (off by a factor of 8 to 300 either way).
  for (const auto& [period, tolerance] : {std::pair{2u, 0.05}, {4u, 0.05}, {64u, 0.25}}) {
    SCOPED_TRACE(period);
    Sampler s;
    constexpr std::uint64_t kCalls = 1'000'000;
    double estimate = 0, truth = 0;
    for (std::uint64_t i = 0; i < kCalls; ++i) {
      const double bytes = i % period == 0 ? 4096 : 12;
      truth += bytes;
      const std::uint32_t w = s.next();
      if (w != 0 && w != Sampler::kPrimer) estimate += w * bytes;
    }
    EXPECT_NEAR(estimate, truth, truth * tolerance);
  }
}

TEST(LatencyHistogram, KeepsTwoSignificantDigitsInFixedBuckets) {
  for (std::int64_t v = 0; v < (std::int64_t{1} << 30); v = v * 9 / 8 + 1) {
    const int b = LatencyHistogram::bucket(v);
    ASSERT_LE(LatencyHistogram::bucket_low(b), v) << v;
    ASSERT_GT(LatencyHistogram::bucket_low(b + 1), v) << v;
    const double width =
        static_cast<double>(LatencyHistogram::bucket_low(b + 1) - LatencyHistogram::bucket_low(b));
    ASSERT_LE(width, std::max(1.0, static_cast<double>(v) / 64)) << v;
  }
  // 1..10000 ns uniformly: the quantiles land within 1.6% of the truth, in order.
  LatencyHistogram h;
  for (int v = 1; v <= 10000; ++v) h.add(v, 1.0);
  EXPECT_DOUBLE_EQ(h.weight(), 10000);
  EXPECT_EQ(h.max(), 10000);
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    EXPECT_NEAR(static_cast<double>(h.quantile(q)), q * 10000, q * 10000 * 0.016) << q;
  }
  // A weight counts as that many calls.
  LatencyHistogram w;
  w.add(100, 1.0);
  w.add(5000, 99.0);
  EXPECT_NEAR(static_cast<double>(w.quantile(0.5)), 5000, 80);
}

// The robust location of paired CPU times (tally.h): signed values, weighted, and a few
// spikes of tens of microseconds (a host stealing the CPU) that must not move it.
TEST(SignedHistogram, TrimmedMeanIgnoresRareSpikesOfEitherSign) {
  SignedHistogram h;
  for (int i = 0; i < 900; ++i) h.add(300 + i % 21 - 10, 1.0);  // 290..310 ns
  for (int i = 0; i < 30; ++i) h.add(-20000, 1.0);              // the probe was hit
  for (int i = 0; i < 70; ++i) h.add(30000, 1.0);               // the call was hit
  EXPECT_DOUBLE_EQ(h.weight(), 1000);
  EXPECT_NEAR(h.quantile(0.5), 300, 6);
  EXPECT_LT(h.quantile(0.01), -19000);
  EXPECT_NEAR(h.trimmed_mean(0.1), 300, 6);  // the plain mean is 1,770 ns
  // A weight counts as that many calls, and negative bulk values stay negative.
  SignedHistogram w;
  w.add(-500, 99.0);
  w.add(100000, 1.0);
  EXPECT_NEAR(w.trimmed_mean(0.1), -500, 10);
}

using Sampling = TracerTest;

constexpr std::uint64_t kManyWrites = 30'000;  // past the fully timed start, deep into the sample

TEST_F(Sampling, CountsStayExactWhileTimesComeFromASample) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  Command cmd({PROGRAM_WRITER, dir.file("out"), std::to_string(kManyWrites)});
  const TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0);
  const SyscallStats& w = r.syscalls.at("write");
  EXPECT_EQ(w.calls, kManyWrites);
  EXPECT_EQ(w.timed_calls, simulate(kManyWrites).timed);  // one thread: deterministic
  EXPECT_TRUE(w.estimated());
  EXPECT_EQ(w.errors, 0u);
  // Every write is one 12-byte line, so the scaled-up bytes are the exact bytes.
  EXPECT_EQ(w.bytes, kManyWrites * kLineBytes);
  EXPECT_EQ(file_calls(r, dir.file("out")), kManyWrites);
  ASSERT_TRUE(w.latency.has_value());
  const LatencySummary& l = *w.latency;
  EXPECT_LE(l.p50, l.p90);
  EXPECT_LE(l.p90, l.p99);
  EXPECT_LE(l.p99, l.p999);
  EXPECT_LE(l.p999, l.max);
  EXPECT_GT(l.max, 0);
}

TEST_F(Sampling, TimeAllTimesEveryCall) {
  TempDir dir;
  TracerOptions o;
  o.time_all = true;
  Tracer tracer(o);
  constexpr std::uint64_t kN = 20'000;
  Command cmd({PROGRAM_WRITER, dir.file("out"), std::to_string(kN)});
  const TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.syscalls.at("write").calls, kN);
  EXPECT_EQ(r.syscalls.at("write").timed_calls, kN);
  EXPECT_FALSE(r.syscalls.at("write").estimated());
}

TEST_F(Sampling, FourThreadsGiveIdenticalCountsInTwentyRuns) {
  TempDir dir;
  constexpr std::uint64_t kPerThread = 2'000;  // 8,000 writes: past the fully timed part
  const auto traced = [&](Tracer& tracer) {
    Command cmd({PROGRAM_THREADS_WRITER, dir.file("out"), std::to_string(kPerThread)});
    const TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(60));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(calls(r.syscalls, "write"), 4 * kPerThread);
    EXPECT_EQ(file_calls(r, dir.file("out")), 4 * kPerThread);
    EXPECT_EQ(r.processes.size(), 1u);
    if (!r.processes.empty()) {
      EXPECT_EQ(calls(r.processes[0].syscalls, "write"), 4 * kPerThread);
    }
    return r;
  };
  // The counts, run after run: count mode stops the same way at every call.
  TracerOptions count_only;
  count_only.mode = TraceMode::kCount;
  Tracer counter(count_only);
  for (int run = 0; run < 20; ++run) {
    SCOPED_TRACE(run);
    (void)traced(counter);
  }
  // And the sample's size, the same whichever thread makes which call.
  Tracer timer(TracerOptions{});
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE(run);
    const TraceResult r = traced(timer);
    EXPECT_EQ(r.syscalls.at("write").timed_calls, simulate(4 * kPerThread).timed);
  }
}

}  // namespace
}  // namespace iobench::tracer_test
