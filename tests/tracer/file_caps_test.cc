// A non-root presenter's iobench with file capabilities (`setcap cap_bpf,cap_perfmon+ep`):
// --tracer auto takes the kernel clock, and neither a strategy's child nor a traced command
// keeps the capabilities (base/capabilities.h); `--tracer perf` with CAP_PERFMON alone counts
// where tracefs is readable and says what is missing where it is not. Skipped where bpf cannot
// load or setcap is missing; the copy of the binary is made as root and run as nobody.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "../run_process.h"
#include "bpf_test_util.h"

namespace iobench::tracer_test {
namespace {

using nlohmann::json;
using testing::ProcessOutput;
using testing::ScratchDir;

constexpr const char* kSetcap = "/usr/sbin/setcap";
const std::string kNone = "CapPrm:\t0000000000000000";

/// A copy of iobench in `dir` carrying `caps` (CAP_BPF and CAP_PERFMON), runnable by nobody.
std::string capable_copy(const ScratchDir& dir,
                         const std::string& caps = "cap_bpf,cap_perfmon+ep") {
  std::string bin = dir.path() + "/iobench";
  std::filesystem::copy_file(IOBENCH_BIN, bin);
  ::chmod(dir.path().c_str(), 0777);
  ::chmod(bin.c_str(), 0755);
  const ProcessOutput set = testing::run_process({kSetcap, caps, bin});
  EXPECT_EQ(set.status, 0) << set.err;
  return bin;
}

std::vector<std::string> as_nobody(std::vector<std::string> args) {
  args.insert(args.begin(),
              {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
  return args;
}

/// The "CapPrm:" line of /proc/PID/status ("" once the process is gone).
std::string permitted_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("CapPrm:", 0) == 0) return line;
  return "";
}

#define SKIP_WITHOUT_SETCAP()                                                    \
  do {                                                                           \
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to setcap and be nobody";  \
    if (::access(kSetcap, X_OK) != 0) GTEST_SKIP() << "no setcap (libcap2-bin)"; \
    SKIP_WITHOUT_BPF();                                                          \
  } while (0)

TEST(FileCaps, AutoTakesTheKernelClockForANonRootUser) {
  SKIP_WITHOUT_SETCAP();
  ScratchDir dir;
  const std::string bin = capable_copy(dir);
  const ProcessOutput r =
      testing::run_process(as_nobody({bin, "--lines", "1000", "--strategy", "unbuffered", "--runs",
                                      "1", "--format", "json", "--dir", dir.path()}));
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["trace_backend"], "bpf") << r.out;
  EXPECT_EQ(doc["results"][0]["write_calls"], 1000);
  // Without the capabilities the same user gets ptrace.
  const ProcessOutput plain =
      testing::run_process(as_nobody({IOBENCH_BIN, "--lines", "1000", "--strategy", "unbuffered",
                                      "--runs", "1", "--format", "json", "--dir", dir.path()}));
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(json::parse(plain.out)["results"][0]["trace_backend"], "ptrace");
}

TEST(FileCaps, ATracedCommandRunsWithoutThem) {
  SKIP_WITHOUT_SETCAP();
  ScratchDir dir;
  const std::string bin = capable_copy(dir);
  const std::string report = dir.path() + "/trace.json";
  const ProcessOutput r =
      testing::run_process(as_nobody({bin, "trace", "--tracer", "bpf", "--export-json", report,
                                      "--", "/bin/grep", "^Cap[PE]", "/proc/self/status"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n");
  std::ifstream in(report);
  EXPECT_EQ(json::parse(in)["backend"], "bpf");
}

// A strategy's child runs iobench's own code with no exec in between, so nothing but
// iobench drops the capabilities there: watch a long --no-trace run's child from outside.
TEST(FileCaps, AStrategysChildDropsThem) {
  SKIP_WITHOUT_SETCAP();
  ScratchDir dir;
  const std::string bin = capable_copy(dir);
  std::vector<std::string> args =
      as_nobody({bin, "--lines", "1000000", "--strategy", "unbuffered", "--runs", "3", "--warmup",
                 "0", "--no-trace", "--dir", dir.path()});
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::freopen("/dev/null", "w", stdout);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  std::string parent_caps, child_caps;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (child_caps.empty() && std::chrono::steady_clock::now() < give_up) {
    std::ifstream kids("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                       "/children");
    pid_t child = 0;
    if (kids >> child) {
      // Read until the child is past fork_tree's drop (a sanitizer build or a busy machine
      // widens the window between fork and capset), or gone.
      parent_caps = permitted_of(pid);
      const auto by = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      do child_caps = permitted_of(child);
      while (child_caps != kNone && !child_caps.empty() && std::chrono::steady_clock::now() < by);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ::kill(pid, SIGTERM);  // seen: the rest of the run has nothing to show
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_FALSE(child_caps.empty()) << "never saw a child";
  EXPECT_NE(parent_caps, kNone) << "iobench itself keeps them permitted";
  EXPECT_EQ(child_caps, kNone);
}

// A setuid-root program the user runs under the borrowed capabilities: the kernel clock must
// not show more than the user could trace without them. It stops following the program at
// its exec, says so, and shows nothing of what it did as root.
TEST(FileCaps, ASetuidChildIsNotFollowedPastItsExec) {
  SKIP_WITHOUT_SETCAP();
  ScratchDir dir;
  const std::string bin = capable_copy(dir);
  const std::string suid = dir.path() + "/suid_writer";
  std::filesystem::copy_file(PROGRAM_WRITER, suid);
  ASSERT_EQ(::chmod(suid.c_str(), 04755), 0);
  const std::string secret = dir.path() + "/secret";
  ASSERT_EQ(::mkdir(secret.c_str(), 0700), 0);  // root's: nobody may look inside
  const ProcessOutput r =
      testing::run_process(as_nobody({bin, "trace", "--tracer", "bpf", "--trace-all", "--format",
                                      "json", "--", suid, secret + "/out", "10"}));
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream written(secret + "/out");
  ASSERT_TRUE(written.good()) << "the program ran as root and wrote its file";
  EXPECT_NE(r.err.find("iobench: warning: counts incomplete: 1 processes not followed from their "
                       "exec of a program with other credentials (suid_writer: setuid"),
            std::string::npos)
      << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["write_calls"], 0);
  for (const auto& f : doc["files"])
    EXPECT_EQ(f["path"].get<std::string>().find(secret), std::string::npos) << f;
  // Nothing after the exec: no openat of the secret file, no write, no exit_group's count.
  for (const char* name : {"openat", "write", "exit_group"})
    EXPECT_FALSE(doc["syscalls"].contains(name)) << name << ": " << doc["syscalls"];
  EXPECT_EQ(doc["counts_lost"].size(), 1u);
}

// glibc's secure mode strips LD_LIBRARY_PATH, TMPDIR, TZDIR... from a setcap'd iobench: the
// traced command still gets the environment the user gave, byte for byte.
TEST(FileCaps, ATracedCommandGetsTheUsersEnvironment) {
  SKIP_WITHOUT_SETCAP();
  ScratchDir dir;
  const std::string bin = capable_copy(dir);
  const std::vector<std::string> env = {"/usr/bin/env",
                                        "-i",
                                        "A=1",
                                        "LD_LIBRARY_PATH=/nowhere",
                                        "TMPDIR=" + dir.path(),
                                        "TZDIR=/zones",
                                        "MALLOC_TOP_PAD_=9"};
  std::vector<std::string> untraced = env, traced = env;
  untraced.push_back("/usr/bin/env");
  traced.insert(traced.end(), {bin, "trace", "-o", "/dev/null", "--", "/usr/bin/env"});
  const ProcessOutput plain = testing::run_process(as_nobody(untraced));
  const ProcessOutput seen = testing::run_process(as_nobody(traced));
  ASSERT_EQ(seen.status, 0) << seen.err;
  EXPECT_EQ(seen.out, plain.out);
  EXPECT_NE(plain.out.find("LD_LIBRARY_PATH=/nowhere\n"), std::string::npos) << plain.out;
  // And --dir's default is the user's $TMPDIR.
  std::vector<std::string> run = env;
  run.insert(run.end(), {bin, "--lines", "10", "--strategy", "buffered", "--runs", "1", "--keep"});
  const ProcessOutput kept = testing::run_process(as_nobody(run));
  ASSERT_EQ(kept.status, 0) << kept.err;
  EXPECT_NE(kept.err.find("kept: " + dir.path() + "/iobench."), std::string::npos) << kept.err;
}

// --tracer perf for a user holding CAP_PERFMON, as docs/tracer.md describes it: the
// capability opens the counters, but their ids are read from tracefs, which by default only
// root may read. The refusal must say that, not "needs root".
TEST(PerfCaps, CapPerfmonWithoutReadableTracefsSaysWhatIsMissing) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to setcap and be nobody";
  if (::access(kSetcap, X_OK) != 0) GTEST_SKIP() << "no setcap (libcap2-bin)";
  const std::string id = "/sys/kernel/tracing/events/syscalls/sys_enter_write/id";
  if (::access(id.c_str(), R_OK) != 0) GTEST_SKIP() << "no syscall tracepoints in tracefs";
  if (testing::run_process(as_nobody({"/usr/bin/test", "-r", id})).status == 0)
    GTEST_SKIP() << "tracefs is readable by nobody here";
  ScratchDir dir;
  const std::string bin = capable_copy(dir, "cap_perfmon+ep");
  const std::string out = dir.path() + "/out";
  const std::vector<std::string> trace = {"trace", "--count-only", "--tracer", "perf",
                                          "--",    PROGRAM_WRITER, out,        "3"};
  std::vector<std::string> capable = {bin}, plain = {IOBENCH_BIN};
  capable.insert(capable.end(), trace.begin(), trace.end());
  plain.insert(plain.end(), trace.begin(), trace.end());
  const ProcessOutput held = testing::run_process(as_nobody(capable));
  EXPECT_EQ(held.status, 2) << held.err;
  EXPECT_EQ(held.err,
            "iobench: error: --tracer perf: syscall tracepoints unreadable: CAP_PERFMON is held, "
            "but tracefs lets this user read none of their ids (as root, tracefs's gid= and mode= "
            "mount options can)\n");
  const ProcessOutput none = testing::run_process(as_nobody(plain));
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_EQ(none.err,
            "iobench: error: --tracer perf: syscall tracepoints unreadable (needs root, or "
            "CAP_PERFMON and a tracefs this user may read)\n");
}

// Where tracefs lets the user read the ids (here: a private mount namespace showing copies of
// them), CAP_PERFMON alone counts, and without it the kernel refuses the counters.
TEST(PerfCaps, CapPerfmonCountsWhereTracefsIsReadable) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to setcap, unshare and be nobody";
  if (::access(kSetcap, X_OK) != 0) GTEST_SKIP() << "no setcap (libcap2-bin)";
  if (::access("/sys/kernel/tracing/events/syscalls/sys_enter_write/id", R_OK) != 0)
    GTEST_SKIP() << "no syscall tracepoints in tracefs";
  ScratchDir dir;
  const std::string bin = capable_copy(dir, "cap_perfmon+ep");
  const std::string ids = dir.path() + "/tracing", out = dir.path() + "/out";
  // Only in the new mount namespace: the host's tracefs is not touched.
  const std::string script =
      "set -e; cd /sys/kernel/tracing/events; for f in syscalls/*/id raw_syscalls/*/id "
      "sched/sched_process_fork/id sched/sched_process_exit/id; do mkdir -p " +
      ids + "/events/${f%/id}; cat $f > " + ids + "/events/$f; done; chmod -R a+rX " + ids +
      "; mount --bind " + ids + " /sys/kernel/tracing; cd /; for b in " + bin + " " + IOBENCH_BIN +
      "; do /usr/bin/setpriv --reuid=nobody --regid=nogroup --clear-groups $b trace "
      "--count-only --tracer perf --format json -- " +
      PROGRAM_WRITER + " " + out + " 3 || echo \"exit $?\"; done";
  const ProcessOutput r = testing::run_process(
      {"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script});
  // The capable copy's document, then the plain binary's refusal.
  const std::size_t refused = r.out.find("exit 2\n");
  ASSERT_NE(refused, std::string::npos) << r.out << r.err;
  const json held = json::parse(r.out.substr(0, refused));
  EXPECT_EQ(held["backend"], "perf");
  EXPECT_EQ(held["write_calls"], 3);
  EXPECT_EQ(r.err,
            "iobench: error: --tracer perf: perf_event_open: permission denied (tracepoints need "
            "root/CAP_PERFMON or kernel.perf_event_paranoid = -1)\n");
}

}  // namespace
}  // namespace iobench::tracer_test
