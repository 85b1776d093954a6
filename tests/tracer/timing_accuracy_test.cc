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
#include <thread>

#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

constexpr int kWrites = 100'000;        // beside the load: a demo-sized run
constexpr int kSegmentWrites = 20'000;  // quiet: short, so the host's speed holds
constexpr int kSegments = 9;            // comparable segments wanted per attempt
constexpr int kMaxSegments = 24;        // tried per attempt
constexpr int kMinSegments = 5;         // comparable segments a verdict needs

/// One traced run between two untraced references of the same one-line write.
struct Attempt {
  double corrected = 0, before = 0, after = 0;
  bool uncertain = false;
  double reference() const { return (before + after) / 2; }
  /// The references agree: the host kept its speed through the run. On a shared host a
  /// write's untraced cost itself moves by half for milliseconds to seconds (cache
  /// contention from other guests; a pure ALU loop does not move), so a truth measured across
  /// such a change is another machine's.
  bool steady() const { return std::max(before, after) < 1.15 * std::min(before, after); }
};

/// Calibrates where it writes, as the product does for a strategy's directory.
class TimingAccuracy : public TracerTest {
 protected:
  /// Traces `writes` one-line writes between two untraced references, back to back.
  Attempt attempt(int writes) {
    Attempt a;
    a.before = untraced_write_ns(dir_.file("untraced"), writes);
    Command cmd({PROGRAM_WRITER, dir_.file("traced"), std::to_string(writes)});
    const TraceResult r = tracer_.run(cmd.fn(), std::chrono::seconds(120));
    a.after = untraced_write_ns(dir_.file("untraced"), writes);
    EXPECT_EQ(r.exit_code, 0);
    const SyscallStats& w = r.syscalls.at("write");
    EXPECT_EQ(w.calls, static_cast<std::uint64_t>(writes));
    a.corrected = static_cast<double>(w.time_ns) / writes;
    a.uncertain = w.time_uncertain();
    std::printf(
        "[ accuracy ] corrected %.0f ns/write (timed %llu, ±%.0f), untraced %.0f and %.0f: "
        "ratio %.2f%s\n",
        a.corrected, static_cast<unsigned long long>(w.timed_calls),
        static_cast<double>(w.time_ci95_ns) / writes, a.before, a.after,
        a.corrected / a.reference(),
        a.uncertain  ? " (uncertain: shown as —)"
        : a.steady() ? ""
                     : " (host changed speed)");
    return a;
  }

  static TracerOptions options_in(const TempDir& dir) {
    TracerOptions o;
    o.calibration_dir = dir.path();
    return o;
  }
  TempDir dir_;
  Tracer tracer_{options_in(dir_)};
};

// The median ratio of the comparable segments (steady, and not "—", which the product says
// itself) within 25% of 1, in one attempt of three. The issue's own bar (±15% in each of 10
// demo runs) is tools/accuracy.sh's.
TEST_F(TimingAccuracy, CorrectedWriteTimeMatchesTheUntracedCost) {
  bool within = false;
  for (int i = 0; i < 3 && !within; ++i) {
    std::vector<double> ratios;
    for (int s = 0; s < kMaxSegments && ratios.size() < kSegments; ++s) {
      const Attempt a = attempt(kSegmentWrites);
      if (!a.uncertain && a.steady()) ratios.push_back(a.corrected / a.reference());
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
  double quiet = 0;
  for (int i = 0; i < 3; ++i) quiet += untraced_write_ns(dir_.file("untraced"), kWrites) / 3;
  bool held = false;
  for (int i = 0; i < 3 && !held; ++i) {
    OnOffLoad load;
    const Attempt a = attempt(kWrites);
    const double ratio = a.corrected / quiet;  // the truth is the quiet machine's
    std::printf("[ accuracy ] against the quiet truth %.0f ns/write: ratio %.2f\n", quiet, ratio);
    held = a.uncertain || (a.corrected > 0 && ratio > 0.5 && ratio < 2.0);
  }
  EXPECT_TRUE(held) << "a number 0 or 2x off the truth in every attempt";
}

}  // namespace
}  // namespace iobench::tracer_test
