// The tracer following its tracee (tracer/cpu_follow.h) on the real scheduler: it moves to
// the CPU the tracee last ran on, only itself, only every kEvery stops, and gets its own mask
// back after.
#include "tracer/cpu_follow.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>

namespace iobench::tracer_test {
namespace {

bool same_mask(const cpu_set_t& a, const cpu_set_t& b) { return CPU_EQUAL(&a, &b) != 0; }

/// A CPU of `mask` other than the one this thread runs on; -1 when there is none.
int another_cpu(const cpu_set_t& mask) {
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &mask) && cpu != ::sched_getcpu()) return cpu;
  return -1;
}

/// A child pinned to `cpu`, asleep there once this returns; killed and reaped on destruction.
class ParkedOn {
 public:
  explicit ParkedOn(int cpu) {
    int ends[2];
    if (::pipe(ends) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      const char ok = ::sched_setaffinity(0, sizeof(one), &one) == 0 ? 'y' : 'n';
      (void)!::write(ends[1], &ok, 1);
      ::pause();
      ::_exit(0);
    }
    ::close(ends[1]);
    char ok = 'n';
    if (::read(ends[0], &ok, 1) != 1 || ok != 'y') pinned_ = false;
    ::close(ends[0]);
  }
  ~ParkedOn() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  ParkedOn(const ParkedOn&) = delete;
  ParkedOn& operator=(const ParkedOn&) = delete;
  pid_t pid() const { return pid_; }
  bool pinned() const { return pid_ > 0 && pinned_; }

 private:
  pid_t pid_ = -1;
  bool pinned_ = true;
};

/// A child parked on a CPU other than this thread's (`other`), and this thread's mask.
class CpuFollow : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::sched_getaffinity(0, sizeof(original), &original), 0);
    other = another_cpu(original);
    if (other < 0) GTEST_SKIP() << "one CPU: nowhere to follow to";
    tracee.emplace(other);
    ASSERT_TRUE(tracee->pinned());
  }

  cpu_set_t original{};
  int other = -1;
  std::optional<ParkedOn> tracee;
};

TEST_F(CpuFollow, MovesTheTracerToTheTraceesCpuEveryKEveryStopsAndRestoresItsMask) {
  {
    tracing::CpuFollow follow(true);
    ASSERT_TRUE(follow.enabled());
    // Held off `other` until the follow moves it: left free, a busy machine's scheduler may
    // put this thread there first, and then there is nothing to follow.
    cpu_set_t away;
    CPU_ZERO(&away);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &original) && cpu != other) CPU_SET(cpu, &away);
    ASSERT_EQ(::sched_setaffinity(0, sizeof(away), &away), 0);
    for (unsigned i = 1; i < tracing::CpuFollow::kEvery; ++i) follow.after_stop(tracee->pid());
    cpu_set_t mask;
    ASSERT_EQ(::sched_getaffinity(0, sizeof(mask), &mask), 0);
    EXPECT_TRUE(same_mask(mask, away)) << "moved before the kEvery-th stop";
    follow.after_stop(tracee->pid());
    EXPECT_EQ(follow.moves(), 1);
    EXPECT_EQ(::sched_getcpu(), other);
    ASSERT_EQ(::sched_getaffinity(0, sizeof(mask), &mask), 0);
    EXPECT_EQ(CPU_COUNT(&mask), 1);
    EXPECT_TRUE(CPU_ISSET(other, &mask));
    for (unsigned i = 0; i < tracing::CpuFollow::kEvery; ++i) follow.after_stop(tracee->pid());
    EXPECT_EQ(follow.moves(), 1) << "moved again to where it already was";
    cpu_set_t tracee_mask;
    ASSERT_EQ(::sched_getaffinity(tracee->pid(), sizeof(tracee_mask), &tracee_mask), 0);
    EXPECT_EQ(CPU_COUNT(&tracee_mask), 1) << "the tracee's own mask is its own";
  }
  cpu_set_t after;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(same_mask(after, original)) << "the tracer's mask was not restored";
}

TEST_F(CpuFollow, OffItNeverMoves) {
  tracing::CpuFollow follow(false);
  for (unsigned i = 0; i < 2 * tracing::CpuFollow::kEvery; ++i) follow.after_stop(tracee->pid());
  EXPECT_EQ(follow.moves(), 0);
  cpu_set_t mask;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(mask), &mask), 0);
  EXPECT_TRUE(same_mask(mask, original));
}

}  // namespace
}  // namespace iobench::tracer_test
