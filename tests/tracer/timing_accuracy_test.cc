// The corrected syscall time against the untraced truth, quiet and beside a load that comes
// and goes. Not timed assertions: a tolerance on a ratio, each check retried a few times,
// and "unmeasurable" accepted only where the product says so itself (time_uncertain()).
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <optional>
#include <thread>

#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

constexpr int kWrites = 100'000;
constexpr int kAttempts = 5;

struct Attempt {
  double corrected = 0, reference = 0;
  bool uncertain = false;
  double ratio() const { return corrected / reference; }
};

/// Traces kWrites one-line writes; the reference is the untraced cost measured just before
/// and just after, so a load that comes and goes weighs on both alike.
Attempt attempt(Tracer& tracer, const TempDir& dir) {
  Attempt a;
  const double before = untraced_write_ns(dir.file("untraced"), kWrites);
  Command cmd({PROGRAM_WRITER, dir.file("traced"), std::to_string(kWrites)});
  const TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(120));
  a.reference = (before + untraced_write_ns(dir.file("untraced"), kWrites)) / 2;
  EXPECT_EQ(r.exit_code, 0);
  const SyscallStats& w = r.syscalls.at("write");
  EXPECT_EQ(w.calls, static_cast<std::uint64_t>(kWrites));
  a.corrected = static_cast<double>(w.time_ns) / kWrites;
  a.uncertain = w.time_uncertain();
  std::printf(
      "[ accuracy ] corrected %.0f ns/write (timed %llu, ±%.0f), untraced %.0f ns/write, "
      "ratio %.2f%s\n",
      a.corrected, static_cast<unsigned long long>(w.timed_calls),
      static_cast<double>(w.time_ci95_ns) / kWrites, a.reference, a.ratio(),
      a.uncertain ? " (uncertain: shown as —)" : "");
  return a;
}

using TimingAccuracy = TracerTest;

constexpr int kSegmentWrites = 20'000;
constexpr int kSegments = 9;      // comparable segments wanted per attempt
constexpr int kMaxSegments = 24;  // tried per attempt
constexpr int kMinSegments = 5;   // comparable segments a verdict needs

/// The corrected time over the untraced one, measured back to back in a short segment: on a
/// shared host a write's untraced cost itself moves by half for milliseconds to seconds
/// (cache contention from other guests; a pure ALU loop does not move), so a truth measured
/// a second away from the traced run is another machine's. Nullopt when the segment is no
/// comparison: its two references disagree (the host changed speed meanwhile), or the
/// product itself calls the time uncertain ("—").
std::optional<double> segment_ratio(Tracer& tracer, const TempDir& dir) {
  const double before = untraced_write_ns(dir.file("untraced"), kSegmentWrites);
  Command cmd({PROGRAM_WRITER, dir.file("traced"), std::to_string(kSegmentWrites)});
  const TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(120));
  const double after = untraced_write_ns(dir.file("untraced"), kSegmentWrites);
  EXPECT_EQ(r.exit_code, 0);
  const SyscallStats& w = r.syscalls.at("write");
  EXPECT_EQ(w.calls, static_cast<std::uint64_t>(kSegmentWrites));
  const double corrected = static_cast<double>(w.time_ns) / kSegmentWrites;
  const double ratio = corrected / ((before + after) / 2);
  const bool steady = std::max(before, after) < 1.15 * std::min(before, after);
  std::printf("[ segment  ] corrected %.0f ns/write, untraced %.0f and %.0f: ratio %.2f%s\n",
              corrected, before, after, ratio,
              w.time_uncertain() ? " (uncertain)"
              : steady           ? ""
                                 : " (host changed speed)");
  if (w.time_uncertain() || !steady) return std::nullopt;
  return ratio;
}

// The median ratio of the comparable segments within 25% of 1, in one attempt of three.
// The issue's own bar (±15% in each of 10 demo runs) is tools/accuracy.sh's.
TEST_F(TimingAccuracy, CorrectedWriteTimeMatchesTheUntracedCost) {
  TempDir dir;
  TracerOptions options;
  options.calibration_dir = dir.path();
  Tracer tracer(options);
  bool within = false;
  for (int i = 0; i < 3 && !within; ++i) {
    std::vector<double> ratios;
    for (int s = 0; s < kMaxSegments && ratios.size() < kSegments; ++s) {
      if (const auto ratio = segment_ratio(tracer, dir)) ratios.push_back(*ratio);
    }
    if (ratios.size() < kMinSegments) continue;
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    const double median = ratios[ratios.size() / 2];
    std::printf("[ accuracy ] median ratio of %zu segments: %.2f\n", ratios.size(), median);
    within = median > 0.75 && median < 1.25;
  }
  EXPECT_TRUE(within) << "no attempt's median segment within 25% of the untraced cost";
}

/// Busy 50 ms, asleep 50 ms, on every CPU, until destroyed.
class OnOffLoad {
 public:
  OnOffLoad() {
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned c = 0; c < cpus; ++c) {
      threads_.emplace_back([this, c] {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(c, &set);
        ::pthread_setaffinity_np(::pthread_self(), sizeof(set), &set);
        while (!stop_.load()) {
          const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
          while (std::chrono::steady_clock::now() < end) {
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      });
    }
  }
  ~OnOffLoad() {
    stop_ = true;
    for (auto& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// Beside the load: never a number that is 0 or off by 2x; "—" (uncertain) is allowed, as
// the product says it itself. Retried: one attempt in three must hold.
TEST_F(TimingAccuracy, BesideAnOnOffLoadNeverAWrongNumber) {
  TempDir dir;
  TracerOptions options;
  options.calibration_dir = dir.path();
  Tracer tracer(options);
  double quiet = 0;
  for (int i = 0; i < 3; ++i) quiet += untraced_write_ns(dir.file("untraced"), kWrites) / 3;
  bool held = false;
  for (int i = 0; i < 3 && !held; ++i) {
    OnOffLoad load;
    Attempt a = attempt(tracer, dir);
    a.reference = quiet;  // the truth is the quiet machine's
    std::printf("[ accuracy ] against the quiet truth %.0f ns/write: ratio %.2f\n", quiet,
                a.ratio());
    held = a.uncertain || (a.corrected > 0 && a.ratio() > 0.5 && a.ratio() < 2.0);
  }
  EXPECT_TRUE(held) << "a number 0 or 2x off the truth in every attempt";
}

}  // namespace
}  // namespace iobench::tracer_test
