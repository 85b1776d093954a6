// The idle spinners (tracer/idle_spinners.h) on the real scheduler: one per CPU, each on its
// own CPU at SCHED_IDLE (so the traced program preempts them at once), woken by stops, gone
// when the tracer is done; when they park, on an injected clock (ParkWatch).
#include "tracer/idle_spinners.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../wait_for.h"

namespace iobench::tracing {
namespace {

using iobench::testing::wait_until;

/// This process's threads at SCHED_IDLE: the spinners (nothing else here asks for it).
std::vector<pid_t> idle_threads() {
  std::vector<pid_t> tids;
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  while (const dirent* e = ::readdir(dir)) {
    const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
    if (tid > 0 && ::sched_getscheduler(tid) == SCHED_IDLE) tids.push_back(tid);
  }
  ::closedir(dir);
  return tids;
}

/// The state letter of /proc/self/task/TID/stat ('R' running, 'S' sleeping), or '?'.
char state_of(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() ? stat[paren + 2] : '?';
}

int cpu_count() {
  cpu_set_t mask;
  return ::sched_getaffinity(0, sizeof(mask), &mask) == 0 ? CPU_COUNT(&mask) : 0;
}

TEST(IdleSpinners, OnePerCpuAtTheIdlePolicyParkedWithoutStopsAndGoneAfter) {
  if (cpu_count() < 2) GTEST_SKIP() << "one CPU: the tracer starts no spinner";
  {
    IdleSpinners spinners(true);
    EXPECT_EQ(spinners.count(), static_cast<std::size_t>(cpu_count()));
    std::vector<pid_t> tids;
    ASSERT_TRUE(wait_until([&] { return (tids = idle_threads()).size() == spinners.count(); }))
        << idle_threads().size() << " threads at SCHED_IDLE, " << spinners.count() << " expected";
    std::set<int> cpus;
    for (const pid_t tid : tids) {
      cpu_set_t mask;
      ASSERT_EQ(::sched_getaffinity(tid, sizeof(mask), &mask), 0);
      ASSERT_EQ(CPU_COUNT(&mask), 1) << "spinner " << tid << " is not pinned";
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &mask)) cpus.insert(c);
    }
    EXPECT_EQ(cpus.size(), tids.size()) << "two spinners share a CPU";
    // When they park is ParkWatch's (below): a spinner at SCHED_IDLE on a busy machine may
    // never run long enough to see the pause. Stops coming: a spinner is woken and runs.
    EXPECT_TRUE(wait_until([&] {
      spinners.touch();
      for (const pid_t tid : tids)
        if (state_of(tid) == 'R') return true;
      return false;
    })) << "no spinner woke for the stops";
  }
  EXPECT_TRUE(idle_threads().empty()) << "a spinner outlived the tracer's run";
}

TEST(ParkWatch, ParksAfterAPauseInTheStopsWhileItRan) {
  constexpr std::int64_t kLook = 10'000;  // a look every 10 us: it has its CPU
  ParkWatch w(0, 0);
  std::int64_t now = 0;
  while (now < ParkWatch::kLingerNs) EXPECT_FALSE(w.should_park(0, now += kLook)) << now;
  EXPECT_TRUE(w.should_park(0, now += kLook));
}

TEST(ParkWatch, AStopOrALongAbsenceStartsThePauseAgain) {
  constexpr std::int64_t kLook = 10'000;
  // A stop just before the pause would be long enough: a whole pause more from there.
  ParkWatch w(0, 0);
  std::int64_t now = 0;
  while (now + kLook < ParkWatch::kLingerNs) EXPECT_FALSE(w.should_park(0, now += kLook));
  EXPECT_FALSE(w.should_park(1, now += kLook));
  const std::int64_t stop = now;
  while (!w.should_park(1, now += kLook)) {
  }
  EXPECT_GT(now - stop, ParkWatch::kLingerNs);
  // Off its CPU since the last look (the program and the tracer ran there): busy, not idle.
  ParkWatch v(0, 0);
  EXPECT_FALSE(v.should_park(0, 10 * ParkWatch::kLingerNs));
  EXPECT_FALSE(v.should_park(0, 10 * ParkWatch::kLingerNs + kLook));
}

TEST(IdleSpinners, NoneOnOneCpuOrWhenOff) {
  EXPECT_EQ(IdleSpinners(false).count(), 0u);
  cpu_set_t original;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(original), &original), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(::sched_getcpu(), &one);
  ASSERT_EQ(::sched_setaffinity(0, sizeof(one), &one), 0);
  const std::size_t n = IdleSpinners(true).count();
  ::sched_setaffinity(0, sizeof(original), &original);
  EXPECT_EQ(n, 0u) << "tracer and tracee take turns on one CPU: nothing to keep awake";
}

}  // namespace
}  // namespace iobench::tracing
