// The kernel clock on real programs: exact counts, errors, bytes, every call timed, threads,
// forks, the i386 ABI, and the file behind each write named by the kernel.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "bpf_test_util.h"
#include "tracer/bpf/clock_abi.h"
#include "tracer/latency_histogram.h"

namespace iobench::tracer_test {
namespace {

TEST(BpfClock, HistogramHasTheTracersBuckets) {
  // The program computes LatencyHistogram::bucket itself; the count of buckets must agree.
  constexpr std::int64_t kTop = (std::int64_t{1} << 40) - 1;
  EXPECT_EQ(tracing::LatencyHistogram::bucket(kTop) + 1, CLOCK_BUCKETS);
}

TEST(BpfClock, SaysWhetherItWasBuilt) {
  EXPECT_EQ(tracing::bpf_clock_built(), IOBENCH_HAVE_BPF != 0);
  if (!tracing::bpf_clock_built()) {
    EXPECT_NE(tracing::bpf_clock_unavailable_reason().find("built without"), std::string::npos);
  }
}

TEST(BpfClock, CountsTimesAndBytesEveryWriteOfAWriter) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const std::string out = dir.file("out");
  const auto r = run_under_bpf({PROGRAM_WRITER, out, "1000"});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  const auto* w = find_call(r, SYS_write);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->calls, 1000u);
  EXPECT_EQ(w->timed, 1000u);  // every call timed, no sampling
  EXPECT_EQ(w->errors, 0u);
  EXPECT_EQ(w->bytes, 1000 * kLineBytes);
  EXPECT_GT(w->total_ns, 0);
  ASSERT_TRUE(w->latency.has_value());
  EXPECT_EQ(w->latency->weight(), 1000.0);
  // Half the calls take at least the median, so it is at most twice the mean; a few stalled
  // calls (another guest's, an interrupt's) may lift the mean far above it.
  const double mean = static_cast<double>(w->total_ns) / 1000;
  EXPECT_GT(w->latency->quantile(0.5), 0);
  EXPECT_LT(w->latency->quantile(0.5), mean * 4);
  const auto files = files_of(r, out);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].calls, 1000u);
  EXPECT_EQ(files[0].bytes, 1000 * kLineBytes);
  EXPECT_TRUE(S_ISREG(files[0].mode));
  EXPECT_EQ(files[0].nr, SYS_write);
}

TEST(BpfClock, CountsErrorsAndTheirMissingFile) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const std::string out = dir.file("out");
  const auto r = run_under_bpf({PROGRAM_FAILING_WRITER, out, "500"});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  const auto* w = find_call(r, SYS_write);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->calls, 500u);
  EXPECT_EQ(w->errors, 2u);
  EXPECT_EQ(w->bytes, 498 * kLineBytes);
  const auto files = files_of(r, out);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].calls, 498u);
  std::uint64_t unnamed = 0;  // the closed fd: EBADF, no file behind it
  for (const auto& f : r.files) unnamed += f.ino == 0 ? f.errors : 0;
  EXPECT_EQ(unnamed, 2u);
}

TEST(BpfClock, FollowsFourThreads) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const std::string out = dir.file("out");
  const auto r = run_under_bpf({PROGRAM_THREADS_WRITER, out, "2000"});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  EXPECT_EQ(bpf_calls(r, SYS_write), 8000u);
  EXPECT_EQ(find_call(r, SYS_write)->timed, 8000u);
  const auto files = files_of(r, out);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].calls, 8000u);
}

TEST(BpfClock, FollowsAForkAndNamesEachProcesssFile) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const std::string out = dir.file("out");
  const auto r = run_under_bpf({PROGRAM_FORK_WRITER, out, "300"});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  EXPECT_EQ(bpf_calls(r, SYS_write), 900u);
  const auto parent = files_of(r, out), child = files_of(r, out + ".child");
  ASSERT_EQ(parent.size(), 1u);
  ASSERT_EQ(child.size(), 1u);
  EXPECT_EQ(parent[0].calls, 300u);
  EXPECT_EQ(child[0].calls, 600u);
  EXPECT_NE(parent[0].tgid, child[0].tgid);
}

TEST(BpfClock, SameCountsTwentyRunsOfOneLoadedClock) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  tracing::BpfClock clock(write_family());  // loaded once: each run starts from clean maps
  for (int i = 0; i < 20; ++i) {
    const auto r = run_under(clock, {PROGRAM_FORK_WRITER, dir.file("out"), "50"});
    ASSERT_EQ(bpf_calls(r, SYS_write), 150u) << "run " << i;
    ASSERT_EQ(files_of(r, dir.file("out")).at(0).calls, 50u) << "run " << i;
    ASSERT_EQ(find_call(r, SYS_write)->latency->weight(), 150.0) << "run " << i;
  }
}

TEST(BpfClock, TellsI386CallsFromNativeOnes) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const std::string out = dir.file("out");
  // i386 write is number 4, native stat is 4 too: only the ABI tells them apart.
  const auto r = run_under_bpf({PROGRAM_INT80_WRITER, out, "100"}, write_family(true));
  // Without IA32 emulation int $0x80 fails (101) or, where it is switched off at boot, is a
  // SIGSEGV.
  if ((WIFEXITED(r.status) && WEXITSTATUS(r.status) == 101) ||
      (WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGSEGV))
    GTEST_SKIP() << "no IA32 emulation in this kernel";
  ASSERT_TRUE(WIFEXITED(r.status));
  ASSERT_EQ(WEXITSTATUS(r.status), 0);
  const auto* w = find_call(r, 4, true);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->calls, 100u);
  EXPECT_EQ(w->bytes, 100 * kLineBytes);
  EXPECT_EQ(bpf_calls(r, SYS_stat), 100u);
  EXPECT_EQ(bpf_calls(r, SYS_write), 0u);
  const auto files = files_of(r, out);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(files[0].compat);
  EXPECT_EQ(files[0].calls, 100u);
}

TEST(BpfClock, TraceAllCountsOtherCallsWithoutHistograms) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const auto r = run_under_bpf({PROGRAM_WRITER, dir.file("out"), "10"}, write_family(true));
  EXPECT_EQ(bpf_calls(r, SYS_write), 10u);
  EXPECT_EQ(bpf_calls(r, SYS_exit_group), 1u);  // counted at entry: it never returns
  const auto* execve = find_call(r, SYS_execve);
  ASSERT_NE(execve, nullptr);
  EXPECT_EQ(execve->calls, 1u);
  EXPECT_FALSE(execve->latency.has_value());
  const auto* openat = find_call(r, SYS_openat);  // returns an fd, not a byte count
  ASSERT_NE(openat, nullptr);
  EXPECT_GT(openat->calls, 0u);
  EXPECT_EQ(openat->bytes, 0u);
}

TEST(BpfClock, KeepsAnFsyncsWaitInItsTimeAndSaysSo) {
  SKIP_WITHOUT_BPF();
  TempDir dir;  // ext4 here: fsync waits for the disk, off CPU
  const auto r = run_under_bpf({"/bin/dd", "if=/dev/zero", "of=" + dir.file("out"), "bs=1M",
                                "count=4", "conv=fsync", "status=none"});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  const auto* fsync = find_call(r, SYS_fsync);
  ASSERT_NE(fsync, nullptr);
  EXPECT_EQ(fsync->calls, 1u);
  EXPECT_GT(fsync->blocked_ns, 0);                     // a voluntary wait: counted apart...
  EXPECT_LE(fsync->blocked_ns, fsync->total_ns);       // ...and kept in the call's time
  EXPECT_EQ(files_of(r, dir.file("out")).size(), 2u);  // the writes and the fsync
}

// A thread other than the main one execs: the kernel gives it the process's pid, and its slot
// (its state in the call, its sums for its rows) moves with it.
TEST(BpfClock, AThreadThatExecsKeepsItsCountsAndItsExecIsTimed) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const std::string first = dir.file("first"), second = dir.file("second");
  const auto r = run_under_bpf({PROGRAM_THREAD_EXEC, first, "200", PROGRAM_WRITER, second, "300"},
                               write_family(true));
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
  const auto* w = find_call(r, SYS_write);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->calls, 500u);
  EXPECT_EQ(w->timed, 500u);
  ASSERT_EQ(files_of(r, first).size(), 1u);
  EXPECT_EQ(files_of(r, first)[0].calls, 200u);
  ASSERT_EQ(files_of(r, second).size(), 1u);
  EXPECT_EQ(files_of(r, second)[0].calls, 300u);
  const auto* execve = find_call(r, SYS_execve);
  ASSERT_NE(execve, nullptr);
  EXPECT_EQ(execve->calls, 2u);  // the command's, and the thread's
  EXPECT_EQ(execve->timed, 2u);  // the thread's returned under the process's pid
  std::uint64_t rows = 0;
  for (const auto& p : r.processes)
    if (p.nr == SYS_write) {
      rows += 1;
      EXPECT_EQ(p.calls, 500u);
      EXPECT_EQ(p.timed, 500u);
    }
  EXPECT_EQ(rows, 1u);
}

// The sums a thread keeps in its slot reach the tables when it exits; a process still running
// when the clock stops (a cross-check's session) has them read from its slot.
TEST(BpfClock, AProcessStillRunningWhenTheClockStopsHasEveryCallCounted) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const std::string out = dir.file("out");
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  int go[2], ready[2];
  ASSERT_EQ(::pipe2(go, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // async-signal-safe calls only: the test process has threads
    ::close(go[1]);
    char c = 0;
    if (::read(go[0], &c, 1) != 1) ::_exit(1);
    for (int i = 0; i < 100; ++i)
      if (::write(fd, "line 000000\n", kLineBytes) != kLineBytes) ::_exit(2);
    if (::write(ready[1], "r", 1) != 1) ::_exit(3);
    (void)::read(go[0], &c, 1);  // until the test closes it
    ::_exit(0);
  }
  ::close(fd);
  tracing::BpfClock clock(write_family());
  clock.start(pid);
  char c = 'g';
  ASSERT_EQ(::write(go[1], &c, 1), 1);
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  const auto r = clock.stop();
  ::close(go[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_EQ(bpf_calls(r, SYS_write), 101u);  // the lines and the pipe's byte
  ASSERT_EQ(files_of(r, out).size(), 1u);
  EXPECT_EQ(files_of(r, out)[0].calls, 100u);
  EXPECT_EQ(files_of(r, out)[0].bytes, 100u * kLineBytes);
  std::uint64_t filed = 0;  // the pipe's byte is its last call, still in its slot
  for (const auto& f : r.files) filed += f.calls;
  EXPECT_EQ(filed, 101u);
  for (int end : {go[0], ready[0], ready[1]}) ::close(end);
}

// Kernels before 6.2 have no bpf_rdonly_cast: the sys_enter program that reads each field with
// a helper call must count, time and name as the one with plain loads does.
TEST(BpfClock, TheOlderKernelsReadsCountAndNameTheSame) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const std::string out = dir.file("out");
  auto probed = write_family(true);
  probed.direct_reads = false;
  for (const auto& config : {write_family(true), probed}) {
    tracing::BpfClock clock(config);
    const auto r = run_under(clock, {PROGRAM_FORK_WRITER, out, "300"});
    std::vector<std::string> loaded;  // the programs in the kernel
    for (const auto& p : clock.program_costs()) loaded.push_back(p.name);
    const bool probed_loaded =
        std::find(loaded.begin(), loaded.end(), "clock_enter_probed") != loaded.end();
    EXPECT_EQ(probed_loaded, !config.direct_reads || !tracing::bpf_direct_reads());
    EXPECT_EQ(std::count(loaded.begin(), loaded.end(), "clock_enter"), probed_loaded ? 0 : 1);
    ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
    EXPECT_EQ(bpf_calls(r, SYS_write), 900u) << config.direct_reads;
    EXPECT_EQ(find_call(r, SYS_write)->timed, 900u) << config.direct_reads;
    const auto parent = files_of(r, out), child = files_of(r, out + ".child");
    ASSERT_EQ(parent.size(), 1u) << config.direct_reads;
    ASSERT_EQ(child.size(), 1u) << config.direct_reads;
    EXPECT_EQ(parent[0].calls, 300u);
    EXPECT_EQ(child[0].calls, 600u);
    EXPECT_EQ(parent[0].path, out) << config.direct_reads;
    EXPECT_EQ(child[0].path, out + ".child") << config.direct_reads;
    EXPECT_GT(bpf_calls(r, SYS_openat), 0u) << config.direct_reads;
  }
}

}  // namespace
}  // namespace iobench::tracer_test
