// Fair timings on a shared machine: the interleaved run order, --runs auto, and the noisy-row
// warning. The planning and the judgement are pure functions, tested on made-up samples; the
// real binary shows the same in its JSON.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "run/noise.h"
#include "run/run_plan.h"
#include "run_process.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::ScratchDir;

constexpr std::int64_t kMs = 1'000'000;

// ---- --runs N and --runs auto ----

TEST(RunPlan, AnExplicitCountIsExact) {
  EXPECT_EQ(runs_still_needed(3, 0, 0, 0), 3);
  EXPECT_EQ(runs_still_needed(3, 0, 0, 1000 * kMs), 3);  // a slow warm-up changes nothing
  EXPECT_EQ(runs_still_needed(3, 0, 0, 1), 3);           // nor a fast one
  EXPECT_EQ(runs_still_needed(3, 3, 30 * kMs, 0), 0);
}

TEST(RunPlan, AutoTakesFiveRunsAndTheTimedWorkAndStopsAtTheCap) {
  EXPECT_EQ(runs_still_needed(std::nullopt, 0, 0, 0), 5);            // nothing known yet
  EXPECT_EQ(runs_still_needed(std::nullopt, 0, 0, 1000 * kMs), 5);   // slow: five are enough
  EXPECT_EQ(runs_still_needed(std::nullopt, 0, 0, 10 * kMs), 20);    // 20 x 10 ms = 0.2 s
  EXPECT_EQ(runs_still_needed(std::nullopt, 0, 0, kMs / 100), 100);  // fast: capped
  EXPECT_EQ(runs_still_needed(std::nullopt, 5, 100 * kMs, 0), 5);    // short of 0.2 s: more
  EXPECT_EQ(runs_still_needed(std::nullopt, 5, 1000 * kMs, 0), 0);
  EXPECT_EQ(runs_still_needed(std::nullopt, 100, kMs, 0), 0);
  EXPECT_EQ(runs_still_needed(std::nullopt, 90, kMs, 0), 10);
}

// ---- the order ----

/// Whether every row's runs in `order` sit next to each other.
bool grouped(const std::vector<std::size_t>& order) {
  std::map<std::size_t, std::pair<std::size_t, std::size_t>> span;  // first, count
  for (std::size_t i = 0; i < order.size(); ++i) {
    auto [it, fresh] = span.try_emplace(order[i], i, 0);
    ++it->second.second;
    if (i - it->second.first + 1 != it->second.second) return false;
  }
  return true;
}

TEST(RunPlan, InterleavedOrderKeepsEveryRowsCountButMixesThem) {
  std::mt19937_64 rng(42);  // fixed: the test must not depend on luck
  const std::vector<std::size_t> order = run_order({20, 20, 3}, rng);
  EXPECT_EQ(std::count(order.begin(), order.end(), 0u), 20);
  EXPECT_EQ(std::count(order.begin(), order.end(), 1u), 20);
  EXPECT_EQ(std::count(order.begin(), order.end(), 2u), 3);
  EXPECT_FALSE(grouped(order));
}

TEST(RunPlan, ARowWithNothingToDoIsLeftOut) {
  std::mt19937_64 rng(42);
  EXPECT_EQ(run_order({0, 3, 0}, rng), (std::vector<std::size_t>{1, 1, 1}));
}

// ---- noisy rows ----

TEST(Noise, SteadySamplesAreNotNoisy) {
  const Stats s = summarize({100, 101, 102, 100, 101});
  EXPECT_FALSE(noisy(s));
  EXPECT_NEAR(s.spread, 1.4826, 1e-9);  // median 101, MAD 1
}

TEST(Noise, OneWildRunDoesNotMakeARowNoisy) {
  // stddev/mean would call this 74%; the robust spread (the table's ±) is 1.5%.
  const Stats s = summarize({100, 101, 102, 100, 101, 300});
  EXPECT_GT(s.stddev / s.mean, 0.5);
  EXPECT_NEAR(s.spread, 1.4826, 1e-9);
  EXPECT_FALSE(noisy(s));
}

TEST(Noise, AWideSpreadIsNoisy) {
  const Stats s = summarize({100, 130, 160, 190, 220});
  EXPECT_NEAR(s.spread, 1.4826 * 30, 1e-9);  // median 160, deviations 60 30 0 30 60
  EXPECT_TRUE(noisy(s));
  EXPECT_FALSE(noisy(summarize({100, 104, 108, 112, 116})));  // ±5.6%: under 10%
}

TEST(Noise, TooFewSamplesAreNeverJudged) {
  EXPECT_FALSE(noisy(summarize({100, 300})));
  EXPECT_FALSE(noisy(summarize({})));
}

// ---- the real binary ----

nlohmann::json run_json(const std::vector<std::string>& extra) {
  ScratchDir dir;
  std::vector<std::string> args = {
      "--lines", "10",    "--strategy", "format-only,single-write", "--no-trace", "--format",
      "json",    "--dir", dir.path()};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessOutput r = iobench(args);
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

/// Whether a row's sample positions are one unbroken stretch of the run order.
bool contiguous(const nlohmann::json& result) {
  const auto order = result["run_order"].get<std::vector<int>>();
  const auto [lo, hi] = std::minmax_element(order.begin(), order.end());
  return static_cast<std::size_t>(*hi - *lo + 1) == order.size();
}

TEST(FairTimings, DefaultRunsInterleaveStrategiesAndNoInterleaveGroupsThem) {
  // 20 + 20 shuffled runs leave one row's runs together with probability 21 / C(40,20) < 1e-9.
  const auto mixed = run_json({"--runs", "20"});
  EXPECT_EQ(mixed["config"]["interleave"], true);
  std::vector<int> all;
  for (const auto& r : mixed["results"]) {
    ASSERT_EQ(r["run_order"].size(), 20u) << r;
    EXPECT_FALSE(contiguous(r)) << r["strategy"] << r["run_order"];
    for (int i : r["run_order"]) all.push_back(i);
  }
  std::sort(all.begin(), all.end());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], static_cast<int>(i));

  const auto grouped = run_json({"--runs", "20", "--no-interleave"});
  EXPECT_EQ(grouped["config"]["interleave"], false);
  for (const auto& r : grouped["results"]) EXPECT_TRUE(contiguous(r)) << r["run_order"];
  EXPECT_EQ(grouped["results"][0]["run_order"][0], 0);  // today's order: the first row first
}

TEST(FairTimings, ExplicitRunsAreExactAndAutoGivesFastRowsMore) {
  const auto three = run_json({"--runs", "3"});
  EXPECT_EQ(three["config"]["runs"], 3);
  for (const auto& r : three["results"]) EXPECT_EQ(r["time_ns"]["samples"].size(), 3u) << r;

  const auto automatic = run_json({});
  EXPECT_EQ(automatic["config"]["runs"], "auto");
  for (const auto& r : automatic["results"]) {
    EXPECT_GE(r["time_ns"]["samples"].size(), 5u) << r;
    EXPECT_LE(r["time_ns"]["samples"].size(), static_cast<std::size_t>(kAutoMaxRuns)) << r;
    EXPECT_TRUE(r["noisy"].is_boolean()) << r;
  }
  // Formatting 10 lines takes far less than 0.2 s / 5: the fast row gets more samples.
  EXPECT_GT(automatic["results"][0]["time_ns"]["samples"].size(), 5u);
}

TEST(FairTimings, AStrategysWaitForACpuIsMeasuredAndLeftOutOfItsShareBase) {
  // iobench and its children on this one CPU, beside a spinning thread of ours.
  cpu_set_t one, old;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(old), &old), 0);
  CPU_ZERO(&one);
  CPU_SET(::sched_getcpu(), &one);
  ASSERT_EQ(::sched_setaffinity(0, sizeof(one), &one), 0);
  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  ScratchDir dir;
  ProcessOutput r = iobench({"--lines", "50000", "--strategy", "unbuffered", "--no-trace",
                             "--runs", "3", "--format", "json", "--dir", dir.path()});
  stop = true;
  spinner.join();
  ::sched_setaffinity(0, sizeof(old), &old);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto row = nlohmann::json::parse(r.out)["results"][0];
  ASSERT_TRUE(row["time_less_cpu_waits_ns"].is_number()) << row;
  const double wall = row["time_ns"]["median"], unwaited = row["time_less_cpu_waits_ns"];
  // Sharing its CPU with the spinner, the strategy waits for it about half its wall time.
  EXPECT_LT(unwaited, 0.8 * wall);
  EXPECT_GT(unwaited, 0.1 * wall);
}

}  // namespace
}  // namespace iobench
