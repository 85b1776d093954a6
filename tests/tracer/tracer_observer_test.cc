// The observer must not change the observed: what a traced program sees of its CPUs, its
// children, its privileges and its files is what it would have seen untraced.
#include <sched.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "../run_process.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

using Observer = TracerTest;

int own_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
  return CPU_COUNT(&set);
}

TEST_F(Observer, AProgramSeesItsOwnCpuAffinity) {
  const int cpus = own_cpu_count();
  if (cpus < 2) GTEST_SKIP() << "one CPU allowed: a one-CPU pin would not show";
  for (TraceMode mode : {TraceMode::kCount, TraceMode::kTiming}) {
    TracerOptions o;
    o.mode = mode;
    o.pin = true;  // the pin that used to reach the program
    Tracer tracer(o);
    Command cmd({PROGRAM_AFFINITY});
    const TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(30));
    ASSERT_TRUE(r.available) << r.unavailable_reason;
    EXPECT_TRUE(r.ptrace->pinned);  // the tracer still pins itself
    EXPECT_EQ(r.exit_code, cpus) << "the exec'd program's affinity changed under the tracer";
    // A strategy runs child_main with no exec: the same mask.
    EXPECT_EQ(tracer.run(own_cpu_count, std::chrono::seconds(30)).exit_code, cpus);
  }
}

TEST_F(Observer, NprocUnderIobenchTracePrintsTheUntracedCount) {
  const int cpus = own_cpu_count();
  if (cpus < 2) GTEST_SKIP() << "one CPU allowed: a one-CPU pin would not show";
  const auto untraced = testing::run_process({"/usr/bin/nproc"});
  ASSERT_EQ(untraced.status, 0);
  ASSERT_EQ(untraced.out, std::to_string(cpus) + "\n");
  const std::vector<std::vector<std::string>> modes = {
      {}, {"--pin"}, {"--count-only", "--tracer", "ptrace", "--pin"}};
  for (const auto& mode : modes) {
    std::vector<std::string> args = {IOBENCH_BIN, "trace"};
    args.insert(args.end(), mode.begin(), mode.end());
    args.insert(args.end(), {"--", "/usr/bin/nproc"});
    const auto traced = testing::run_process(args);
    EXPECT_EQ(traced.status, 0) << traced.err;
    EXPECT_EQ(traced.out, untraced.out) << "under iobench trace " << ::testing::PrintToString(mode);
  }
}

TEST_F(Observer, ClonedWithCloneUntracedAChildIsStillTracedAndCounted) {
  constexpr std::uint64_t kK = 50;
  TempDir dir;
  const auto untraced = testing::run_process({PROGRAM_CLONE_UNTRACED, dir.path(), "1"});
  ASSERT_EQ(untraced.status, 0) << "the program fails untraced";
  TracerOptions count_mode, all_calls;
  count_mode.mode = TraceMode::kCount;
  all_calls.trace_all = true;
  for (const TracerOptions& o : {TracerOptions{}, count_mode, all_calls}) {
    Tracer tracer(o);
    Command cmd({PROGRAM_CLONE_UNTRACED, dir.path(), std::to_string(kK)});
    const TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(30));
    ASSERT_TRUE(r.available) << r.unavailable_reason;
    // Untraced, a child's write would hit the filter with no tracer: ENOSYS, exit 101.
    EXPECT_EQ(r.exit_code, 0) << "trace_all " << o.trace_all;
    EXPECT_EQ(count_lines(dir.file("clone")), kK);
    EXPECT_EQ(count_lines(dir.file("clone3")), kK);
    EXPECT_EQ(file_calls(r, dir.file("clone")), kK);
    EXPECT_EQ(file_calls(r, dir.file("clone3")), kK);
    EXPECT_EQ(calls(r.syscalls, "write"), 2 * kK);
    // Each child is a process of its own with its own K writes.
    const auto writers = std::count_if(r.processes.begin(), r.processes.end(), [&](const auto& p) {
      return p.pid != cmd.pid() && calls(p.syscalls, "write") == kK;
    });
    EXPECT_EQ(writers, 2);
  }
}

constexpr uid_t kNobody = 65534;

/// Runs args as nobody (setpriv), as a tracer without root would run.
testing::ProcessOutput run_as_nobody(std::vector<std::string> args) {
  args.insert(args.begin(),
              {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  return testing::run_process(args);
}

/// A copy of print_euid in `dir`, owned by `owner`, mode 4755 (/tmp is not nosuid here).
std::string setuid_copy(const TempDir& dir, uid_t owner) {
  std::string path = dir.file("print_euid");
  std::filesystem::copy_file(PROGRAM_PRINT_EUID, path);
  if (::chown(path.c_str(), owner, owner) != 0 || ::chmod(path.c_str(), 04755) != 0) return "";
  return path;
}

TEST_F(Observer, ASetuidProgramKeepsItsIdentityUnderARootTracer) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a setuid-nobody program needs root";
  TempDir dir;
  const std::string program = setuid_copy(dir, kNobody);
  ASSERT_FALSE(program.empty());
  const auto untraced = testing::run_process({program});
  ASSERT_EQ(untraced.out, "65534\n") << "setuid is not honoured here (nosuid?)";
  for (const char* mode : {"--trace-all", "--count-only"}) {
    const auto traced =
        testing::run_process({IOBENCH_BIN, "trace", mode, "--tracer", "ptrace", "--", program});
    EXPECT_EQ(traced.status, 0) << traced.err;
    EXPECT_EQ(traced.out, untraced.out) << "no_new_privs set by a root tracer";
    EXPECT_EQ(traced.err.find("warning"), std::string::npos) << traced.err;
  }
}

TEST_F(Observer, ANonRootTracerWarnsThatASetuidExecLostItsPrivileges) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a setuid-root program needs root";
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);  // nobody must reach the program
  const std::string program = setuid_copy(dir, 0);
  ASSERT_FALSE(program.empty());
  ASSERT_EQ(run_as_nobody({program}).out, "0\n") << "setuid-root is not honoured here";
  const auto traced =
      run_as_nobody({IOBENCH_BIN, "trace", "--count-only", "--tracer", "ptrace", "--", program});
  EXPECT_EQ(traced.status, 0) << traced.err;
  // The kernel ignores setuid under a non-root tracer (as under strace): it cannot be kept,
  // so it must be said.
  EXPECT_EQ(traced.out, "65534\n");
  EXPECT_NE(traced.err.find("iobench: warning: " + program + " ran without the setuid"),
            std::string::npos)
      << traced.err;
  // A program without the bits: no warning.
  std::filesystem::permissions(program, std::filesystem::perms::set_uid,
                               std::filesystem::perm_options::remove);
  const auto plain =
      run_as_nobody({IOBENCH_BIN, "trace", "--count-only", "--tracer", "ptrace", "--", program});
  EXPECT_EQ(plain.out, "65534\n");
  EXPECT_EQ(plain.err.find("warning"), std::string::npos) << plain.err;
}

TEST_F(Observer, AFileClosedByAnSqpollRingIsNotTheOneWrittenOnItsNumberNext) {
  constexpr std::uint64_t kA = 3;
  constexpr int kTries = 5;
  for (TraceMode mode : {TraceMode::kCount, TraceMode::kTiming}) {
    TracerOptions o;
    o.mode = mode;
    Tracer tracer(o);
    // The scenario needs a close that enters no syscall. The program wakes the poller first;
    // should it be flagged asleep again before the close (exit 75), that run is not the
    // scenario, so it is run again.
    bool seen = false;
    for (int attempt = 0; attempt < kTries && !seen; ++attempt) {
      TempDir dir;
      Command cmd({PROGRAM_SQPOLL_REUSE, dir.path(), std::to_string(kA)});
      const TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(90));
      if (r.exit_code == 77) GTEST_SKIP() << "no SQPOLL io_uring here";
      if (r.exit_code == 75) continue;
      ASSERT_EQ(r.exit_code, 0);
      EXPECT_EQ(count_lines(dir.file("b")), 5u);
      EXPECT_EQ(file_calls(r, dir.file("a")), kA);
      EXPECT_EQ(file_calls(r, dir.file("b")), 5u) << "b's writes attributed to the closed a";
      seen = true;
    }
    EXPECT_TRUE(seen) << "every run entered the ring: the scenario never happened";
  }
}

/// The "files" rows of `iobench trace --format json --count-only` run as nobody.
std::map<std::string, std::uint64_t> file_rows_as_nobody(const std::vector<std::string>& command) {
  std::vector<std::string> args = {IOBENCH_BIN,    "trace",    "--format", "json",
                                   "--count-only", "--tracer", "ptrace",   "--"};
  args.insert(args.end(), command.begin(), command.end());
  const auto r = run_as_nobody(args);
  EXPECT_EQ(r.status, 0) << r.err;
  std::map<std::string, std::uint64_t> rows;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded() || !j.contains("files")) {
    ADD_FAILURE() << "not JSON: " << r.out << r.err;
    return rows;
  }
  for (const auto& f : j["files"])
    rows[f["path"].get<std::string>()] = f["calls"].get<std::uint64_t>();
  return rows;
}

TEST_F(Observer, ANonDumpableProgramsWritesAreUnreadableNotBadFds) {
  if (::geteuid() != 0) GTEST_SKIP() << "switching to a non-root tracer needs root";
  constexpr std::uint64_t kN = 20;
  TempDir dir;
  ::chmod(dir.path().c_str(), 0777);  // nobody writes there
  const std::string out = dir.file("out");
  // A non-root tracer may not look into a non-dumpable program's /proc/PID/fd.
  const auto rows = file_rows_as_nobody({PROGRAM_NONDUMPABLE, out, std::to_string(kN)});
  EXPECT_EQ(count_lines(out), kN);
  EXPECT_EQ(rows, (std::map<std::string, std::uint64_t>{{"(unreadable fd)", kN}}));
  // The same tracer names the file of a dumpable program.
  const auto plain = file_rows_as_nobody({PROGRAM_WRITER, out, std::to_string(kN)});
  EXPECT_EQ(plain, (std::map<std::string, std::uint64_t>{{out, kN}}));
}

}  // namespace
}  // namespace iobench::tracer_test
