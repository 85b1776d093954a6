// How traced programs end, stop and are refused: exit codes, signals, group stops,
// timeouts, and environments that forbid ptrace or seccomp.
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <csignal>
#include <cstring>
#include <thread>

#include "base/interrupt.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

using Lifecycle = TracerTest;

TEST_F(Lifecycle, ExitCodeOfTheProgram) {
  TempDir dir;
  Tracer tracer(TracerOptions{TraceMode::kCount});
  Command cmd({PROGRAM_WRITER, dir.file("out"), "10", "7"});
  const TraceResult r = tracer.run(cmd.fn());
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.term_signal, 0);
  EXPECT_EQ(calls(r.syscalls, "write"), 10u);
}

TEST_F(Lifecycle, ReturnValueOfChildMain) {
  Tracer tracer(TracerOptions{TraceMode::kCount});
  EXPECT_EQ(tracer.run([] { return 42; }).exit_code, 42);
}

TEST_F(Lifecycle, KilledBySignal) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  Command cmd({PROGRAM_WRITER, dir.file("out"), "10", "-15"});
  const TraceResult r = tracer.run(cmd.fn());
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(calls(r.syscalls, "write"), 10u);
}

TEST_F(Lifecycle, StopsItselfAndIsContinued) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  const std::string out = dir.file("out");
  Command cmd({PROGRAM_STOP_SELF, out, "50"});
  const TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(90));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0) << "the helper never saw the group stop";
  EXPECT_EQ(file_calls(r, out), 100u);
  EXPECT_EQ(count_lines(out), 100u);
}

TEST_F(Lifecycle, TimeoutKillsTheWholeTree) {
  // Both would wait forever: run() returns only because the timeout killed them, and the
  // leftover check after the test proves the grandchild is gone too.
  Tracer tracer(TracerOptions{});
  const TraceResult r = tracer.run(
      [] {
        if (::fork() == 0) ::pause();  // a grandchild that would wait forever
        ::pause();
        return 0;
      },
      std::chrono::milliseconds(300));
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_EQ(r.exit_code, -1);
}

TEST_F(Lifecycle, WaitsForDescendantsThenTimesOutOnThem) {
  // The child exits at once; its child lingers. run() waits for every tracee (strace -f
  // does too), so the timeout ends it: long, so that the child has exited by then however
  // busy the machine.
  Tracer tracer(TracerOptions{TraceMode::kCount});
  const TraceResult r = tracer.run(
      [] {
        if (::fork() == 0) ::pause();
        return 3;
      },
      std::chrono::seconds(10));
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.term_signal, 0);
}

/// Whether this thread may be pinned to the CPU it runs on (a cpuset could forbid it): asked
/// of the kernel directly, so that a tracer that silently stops pinning fails the test below.
bool can_pin_here() {
  cpu_set_t mask, one;
  if (::sched_getaffinity(0, sizeof(mask), &mask) != 0) return false;
  const int cpu = ::sched_getcpu();
  if (cpu < 0 || !CPU_ISSET(cpu, &mask)) return false;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  const bool ok = ::sched_setaffinity(0, sizeof(one), &one) == 0;
  ::sched_setaffinity(0, sizeof(mask), &mask);
  return ok;
}

/// What a traced child sees during the run: its own CPUs and its tracer's (its parent's).
struct Seen {
  std::atomic<int> child_cpus{0}, tracer_cpus{0};
};

bool traced_run_sees(bool pin, Seen* out) {
  TracerOptions options{TraceMode::kCount};
  options.pin = pin;
  Tracer tracer(options);
  SharedMapping<Seen> seen;
  const TraceResult r = tracer.run([&seen] {
    cpu_set_t mine, tracer_mask;
    ::sched_getaffinity(0, sizeof(mine), &mine);
    seen->child_cpus.store(CPU_COUNT(&mine));
    ::sched_getaffinity(::getppid(), sizeof(tracer_mask), &tracer_mask);
    seen->tracer_cpus.store(CPU_COUNT(&tracer_mask));
    return 0;
  });
  out->child_cpus.store(seen->child_cpus.load());
  out->tracer_cpus.store(seen->tracer_cpus.load());
  return r.ptrace && r.ptrace->pinned;
}

TEST_F(Lifecycle, PinsOnlyTheTracerForTheRunAndRestoresTheMaskAfter) {
  if (!can_pin_here()) GTEST_SKIP() << "this process may not pin itself (a cpuset forbids it)";
  cpu_set_t before, after;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(before), &before), 0);
  Seen seen;
  EXPECT_TRUE(traced_run_sees(true, &seen)) << "--pin asked for it and it is allowed here";
  // The traced program is never pinned: it sees what it would have seen untraced.
  EXPECT_EQ(seen.child_cpus.load(), CPU_COUNT(&before));
  EXPECT_EQ(seen.tracer_cpus.load(), 1) << "the tracer runs on its one CPU";
  ASSERT_EQ(::sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  EXPECT_FALSE(traced_run_sees(false, &seen)) << "without --pin nothing is pinned";
  EXPECT_EQ(seen.child_cpus.load(), CPU_COUNT(&before));
  EXPECT_EQ(seen.tracer_cpus.load(), CPU_COUNT(&before));
}

TEST_F(Lifecycle, InterruptKillsTheTreeAndThrows) {
  // In a helper process: the interrupt flag, once set, stays set for the whole process.
  struct Report {
    bool threw_interrupted;
    char leftovers[256];
  };
  SharedMapping<Report> report;
  const pid_t helper = ::fork();
  if (helper == 0) {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    install_interrupt_handlers();
    const pthread_t main_thread = ::pthread_self();
    SharedMapping<std::atomic<pid_t>> paused;  // the traced child, once it waits
    std::thread interrupter([main_thread, &paused] {
      // Interrupt once the child has forked and sits in pause() (state S): mid-run, not before.
      while (paused->load() == 0 || process_state(paused->load()) != 'S') ::usleep(1000);
      ::pthread_kill(main_thread, SIGINT);  // to this thread: its waitpid must see EINTR
    });
    try {
      Tracer tracer(TracerOptions{TraceMode::kCount});
      tracer.run([&paused] {
        if (::fork() == 0) ::pause();
        paused->store(::getpid());
        ::pause();
        return 0;
      });
    } catch (const Interrupted&) {
      report->threw_interrupted = true;
    } catch (...) {
    }
    interrupter.join();
    (void)std::snprintf(report->leftovers, sizeof(report->leftovers), "%s", leftovers().c_str());
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(helper, &status, 0), helper);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_TRUE(report->threw_interrupted);
  EXPECT_STREQ(report->leftovers, "");
}

/// What a helper process saw from Tracer::run inside a seccomp policy.
struct HelperReport {
  bool done, available, seccomp;
  int exit_code, term_signal;
  std::uint64_t writes, file_writes, bytes;
  char reason[128];
};

/// Forks a helper that installs `policy`, then traces "writer out 100" in timing mode.
HelperReport run_in_policy(const std::function<bool(scmp_filter_ctx)>& policy, const TempDir& dir) {
  SharedMapping<HelperReport> report;
  const std::string out = dir.file("out");
  const pid_t helper = ::fork();
  if (helper == 0) {
    scmp_filter_ctx ctx = ::seccomp_init(SCMP_ACT_ALLOW);
    if (!policy(ctx) || ::seccomp_load(ctx) != 0) ::_exit(2);
    ::seccomp_release(ctx);
    try {
      Tracer tracer(TracerOptions{});
      Command cmd({PROGRAM_WRITER, out, "100"});
      const TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(20));
      HelperReport* h = report.get();
      h->available = r.available;
      h->seccomp = r.ptrace->seccomp;
      h->exit_code = r.exit_code;
      h->term_signal = r.term_signal;
      h->writes = calls(r.syscalls, "write");
      h->file_writes = file_calls(r, out);
      h->bytes = r.syscalls.count("write") ? r.syscalls.at("write").bytes : 0;
      (void)std::snprintf(h->reason, sizeof(h->reason), "%s", r.unavailable_reason.c_str());
      h->done = true;
    } catch (const std::exception& e) {
      (void)std::snprintf(report->reason, sizeof(report->reason), "threw: %s", e.what());
    }
    ::_exit(0);
  }
  int status = 0;
  EXPECT_EQ(::waitpid(helper, &status, 0), helper);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return *report.get();
}

TEST_F(Lifecycle, PtraceRefusedRunsTheChildUntraced) {
  TempDir dir;
  const HelperReport h = run_in_policy(
      [](scmp_filter_ctx ctx) {
        return ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ptrace), 0) == 0;
      },
      dir);
  ASSERT_TRUE(h.done) << h.reason;
  EXPECT_FALSE(h.available);
  EXPECT_STREQ(h.reason, "ptrace: Operation not permitted");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_EQ(h.writes, 0u);
  EXPECT_EQ(count_lines(dir.file("out")), 100u);  // it ran all the same
}

TEST_F(Lifecycle, FilterRefusedFallsBackToStoppingOnEverySyscall) {
  TempDir dir;
  const HelperReport h = run_in_policy(
      [](scmp_filter_ctx ctx) {
        return ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 0) == 0 &&
               ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prctl), 1,
                                  SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP)) == 0;
      },
      dir);
  ASSERT_TRUE(h.done) << h.reason;
  EXPECT_TRUE(h.available);
  EXPECT_FALSE(h.seccomp);
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_EQ(h.writes, 100u);
  EXPECT_EQ(h.file_writes, 100u);
  EXPECT_EQ(h.bytes, 100 * kLineBytes);
}

}  // namespace
}  // namespace iobench::tracer_test
