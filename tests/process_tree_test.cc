// Nothing escapes: every way a run can be cut short (its timeout, SIGINT, SIGTERM, SIGHUP)
// kills and reaps the whole process tree of what iobench runs, a setsid daemon included, for
// `iobench` (a strategy run), `iobench trace` under both backends and `iobench compare`; and
// a daemon's writes after its parent exited are counted, by both backends.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "run_process.h"
#include "tracer/perf_counter.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;

/// Why perf counting cannot run here, after mounting tracefs if it is missing (root only).
std::string perf_unavailable() {
  if (!perf_counting_unavailable().empty())
    ::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr);
  return perf_counting_unavailable();
}

/// Every process whose command line contains `token`: "pid state cmdline".
std::vector<std::string> processes_with(const std::string& token) {
  std::vector<std::string> found;
  DIR* proc = ::opendir("/proc");
  while (const dirent* e = ::readdir(proc)) {
    if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
    std::string cmdline = slurp(std::string("/proc/") + e->d_name + "/cmdline");
    if (cmdline.find(token) == std::string::npos) continue;
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    const std::string stat = slurp(std::string("/proc/") + e->d_name + "/stat");
    const auto paren = stat.rfind(')');
    const std::string state = paren == std::string::npos ? "?" : stat.substr(paren + 2, 1);
    found.push_back(std::string(e->d_name) + " " + state + " " + cmdline);
  }
  ::closedir(proc);
  return found;
}

/// The test's own clean-up, after the assertion: a failing product must not leave the
/// machine littered with sleepers.
void kill_all_with(const std::string& token) {
  for (const std::string& p : processes_with(token)) ::kill(std::stoi(p), SIGKILL);
}

/// Starts `args` with stdout and stderr in files; returns its pid.
pid_t start(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    ::close_range(3, ~0U, 0);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

bool wait_for_file(const std::string& path) {
  // An outer bound for a machine under load, not a measurement.
  for (int i = 0; i < 1200; ++i) {
    if (::access(path.c_str(), F_OK) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

enum class Command { kRun, kTracePtrace, kTracePtraceRefused, kTracePerf, kCompare };
enum class Ending { kTimeout, kSigint, kSigterm, kSighup };

const char* name_of(Command c) {
  switch (c) {
    case Command::kRun:
      return "Run";
    case Command::kTracePtrace:
      return "TracePtrace";
    case Command::kTracePtraceRefused:
      return "TracePtraceRefused";
    case Command::kTracePerf:
      return "TracePerf";
    case Command::kCompare:
      return "Compare";
  }
  return "";
}

const char* name_of(Ending e) {
  switch (e) {
    case Ending::kTimeout:
      return "Timeout";
    case Ending::kSigint:
      return "Sigint";
    case Ending::kSigterm:
      return "Sigterm";
    case Ending::kSighup:
      return "Sighup";
  }
  return "";
}

int signal_of(Ending e) {
  switch (e) {
    case Ending::kSigint:
      return SIGINT;
    case Ending::kSigterm:
      return SIGTERM;
    case Ending::kSighup:
      return SIGHUP;
    case Ending::kTimeout:
      return 0;
  }
  return 0;
}

/// The command line that runs tests/programs/process_tree (READY_PATH `ready`) through `c`.
std::vector<std::string> command_line(Command c, const std::string& dir, const std::string& ready,
                                      bool timeout) {
  std::vector<std::string> t =
      timeout ? std::vector<std::string>{"--timeout", "2"} : std::vector<std::string>{};
  std::vector<std::string> args{IOBENCH_BIN};
  // ptrace refused (as a container's seccomp profile may): the tree runs untraced.
  if (c == Command::kTracePtraceRefused) args = {DENY_BIN, "ptrace", IOBENCH_BIN};
  auto add = [&args](const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
  };
  switch (c) {
    case Command::kRun:
      // test-tree execs the program named by IOBENCH_TEST_TREE (set by the fixture).
      add({"--lines", "100", "--strategy", "test-tree", "--runs", "1", "--warmup", "0", "--dir",
           dir});
      add(t);
      break;
    case Command::kTracePtrace:
    case Command::kTracePtraceRefused:
    case Command::kTracePerf:
      add({"trace", "--count-only", "--tracer", c == Command::kTracePerf ? "perf" : "ptrace"});
      add(t);
      // No "--": on main, an option before it makes "--" the command's last argument.
      add({PROCESS_TREE_BIN, ready});
      break;
    case Command::kCompare:
      add({"compare", "--runs", "1", "--warmup", "0", std::string(PROCESS_TREE_BIN) + " " + ready});
      add(t);
      break;
  }
  return args;
}

/// What iobench must exit with: README "Exit status".
int expected_status(Command c, Ending e) {
  if (e != Ending::kTimeout) return 128 + signal_of(e);
  // trace: 124, as timeout(1) says it killed the command. run and compare: a failed row.
  if (c != Command::kRun && c != Command::kCompare) return kExitTimedOut;
  return 3;
}

class NothingEscapes : public ::testing::TestWithParam<std::tuple<Command, Ending>> {
 protected:
  void SetUp() override {
    ::setenv("IOBENCH_TEST_STRATEGIES", "1", 1);
    ::setenv("IOBENCH_TEST_TREE", PROCESS_TREE_BIN, 1);
    ::unsetenv("ASAN_OPTIONS");
  }
};

TEST_P(NothingEscapes, NoProcessOfTheTreeSurvives) {
  const auto [command, ending] = GetParam();
  // LeakSanitizer stops the world with ptrace, which the ptrace-refused case forbids.
  if (command == Command::kTracePtraceRefused) ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
  if (command == Command::kTracePerf) {
    if (::geteuid() != 0) GTEST_SKIP() << "perf tracepoint counters need root";
    if (std::string why = perf_unavailable(); !why.empty()) GTEST_SKIP() << why;
  }
  ScratchDir dir;
  const std::string ready = dir.path() + "/ready";  // in every command line of the tree
  ::setenv("IOBENCH_TEST_READY", ready.c_str(), 1);
  const pid_t pid = start(command_line(command, dir.path(), ready, ending == Ending::kTimeout),
                          dir.path() + "/out", dir.path() + "/err");
  const bool tree_up = wait_for_file(ready);
  int st = 0;
  pid_t reaped = 0;
  if (command == Command::kTracePtrace && ending == Ending::kSigint) {
    // The first SIGINT is the command's (README "Ctrl-C"), which ignores it; a later one,
    // once iobench's handler has taken the first, stops iobench. Sent until it does.
    while (reaped == 0 && ::kill(pid, SIGINT) == 0) {
      ::usleep(20'000);
      reaped = ::waitpid(pid, &st, WNOHANG);
    }
  } else if (ending != Ending::kTimeout) {
    ::kill(pid, signal_of(ending));
  }
  if (reaped != pid) ::waitpid(pid, &st, 0);
  const std::vector<std::string> survivors = processes_with(ready);
  kill_all_with(ready);

  EXPECT_TRUE(tree_up) << "the sleeper and the daemon never both ran";
  ASSERT_TRUE(WIFEXITED(st)) << "iobench itself died of signal " << WTERMSIG(st);
  EXPECT_EQ(WEXITSTATUS(st), expected_status(command, ending)) << slurp(dir.path() + "/err");
  if (ending != Ending::kTimeout && command != Command::kTracePtraceRefused) {
    EXPECT_EQ(slurp(dir.path() + "/err"), std::string("iobench: error: interrupted by SIG") +
                                              sigabbrev_np(signal_of(ending)) + "\n");
  }
  EXPECT_EQ(survivors, std::vector<std::string>{}) << "processes of the tree outlived iobench";
}

INSTANTIATE_TEST_SUITE_P(EveryCommandEveryEnding, NothingEscapes,
                         ::testing::Combine(::testing::Values(Command::kRun, Command::kTracePtrace,
                                                              Command::kTracePtraceRefused,
                                                              Command::kTracePerf,
                                                              Command::kCompare),
                                            ::testing::Values(Ending::kTimeout, Ending::kSigint,
                                                              Ending::kSigterm, Ending::kSighup)),
                         [](const auto& info) {
                           return std::string(name_of(std::get<0>(info.param))) +
                                  name_of(std::get<1>(info.param));
                         });

// ---- a daemon's writes are the command's writes ----

constexpr int kDaemonLines = 500;

/// `iobench trace --count-only --tracer BACKEND --format json -- daemon_writer FILE K`.
nlohmann::json trace_daemon_writer(const std::string& backend, const std::string& file) {
  const ProcessOutput r =
      run_process({IOBENCH_BIN, "trace", "--count-only", "--tracer", backend, "--format", "json",
                   "--timeout", "60", DAEMON_WRITER_BIN, file, std::to_string(kDaemonLines)});
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

std::size_t lines_in(const std::string& path) {
  const std::string text = slurp(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(DaemonWrites, PtraceCountsTheDaemonsWritesAfterItsParentExited) {
  ScratchDir dir;
  const std::string file = dir.path() + "/out";
  const auto doc = trace_daemon_writer("ptrace", file);
  EXPECT_EQ(doc["traced"], true);
  EXPECT_EQ(doc["write_calls"], kDaemonLines + 1) << "the daemon's K lines and the parent's one";
  EXPECT_EQ(lines_in(file), kDaemonLines + 1u) << "iobench returned before the daemon finished";
}

TEST(DaemonWrites, PerfCountsTheDaemonsWritesAfterItsParentExited) {
  if (::geteuid() != 0) GTEST_SKIP() << "perf tracepoint counters need root";
  if (std::string why = perf_unavailable(); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  const std::string file = dir.path() + "/out";
  const auto doc = trace_daemon_writer("perf", file);
  EXPECT_EQ(doc["traced"], true);
  EXPECT_EQ(doc["backend"], "perf");
  EXPECT_EQ(doc["write_calls"], kDaemonLines + 1) << "the daemon's K lines and the parent's one";
  EXPECT_EQ(lines_in(file), kDaemonLines + 1u) << "iobench returned before the daemon finished";
}

TEST(DaemonWrites, CompareWaitsForTheDaemonAndCountsItsWrites) {
  // compare's untraced runs make iobench a subreaper before its ptrace run: the orphaned
  // tracee is then iobench's child as well as its tracee, and must still be counted once.
  ScratchDir dir;
  const std::string file = dir.path() + "/out";
  const ProcessOutput r = run_process(
      {IOBENCH_BIN, "compare", "--runs", "2", "--warmup", "1", "--format", "json", "--timeout",
       "60", std::string(DAEMON_WRITER_BIN) + " " + file + " " + std::to_string(kDaemonLines)});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["status"], "ok");
  EXPECT_EQ(doc["results"][0]["write_calls"], kDaemonLines + 1);
  EXPECT_EQ(lines_in(file), kDaemonLines + 1u) << "iobench returned before the daemon finished";
}

// ---- an exec that changes credentials under perf ----

/// A copy of the writer owned by nobody, set-user-ID: run by root, it runs as nobody, and
/// the kernel takes the perf counters away from it at exec.
class SetuidWriter : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "making a set-user-ID program of another user needs root";
    if (std::string why = perf_unavailable(); !why.empty()) GTEST_SKIP() << why;
    // nobody must reach the program and create its file here.
    ASSERT_EQ(::chmod(dir_.path().c_str(), 0777), 0);
    program_ = dir_.path() + "/writer";
    ASSERT_EQ(std::system(("cp '" + std::string(WRITER_BIN) + "' '" + program_ + "'").c_str()), 0);
    ASSERT_EQ(::chown(program_.c_str(), 65534, 65534), 0);
  }
  ProcessOutput trace(const std::string& backend) {
    return run_process({IOBENCH_BIN, "trace", "--count-only", "--tracer", backend, "--format",
                        "json", program_, dir_.path() + "/out", "50"});
  }
  ScratchDir dir_;
  std::string program_;
};

TEST_F(SetuidWriter, PerfRefusesCountsItLostAndSaysSo) {
  ASSERT_EQ(::chmod(program_.c_str(), 04755), 0);
  const ProcessOutput r = trace("perf");
  EXPECT_EQ(r.status, 0) << "the command's own status: " << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["traced"], false) << "counts the kernel cut short are not counts";
  EXPECT_EQ(doc["write_calls"], nullptr);
  EXPECT_NE(r.err.find("changed credentials"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--tracer ptrace"), std::string::npos) << r.err;
  EXPECT_EQ(lines_in(dir_.path() + "/out"), 50u) << "it ran, as nobody";
}

TEST_F(SetuidWriter, PtraceCountsIt) {
  ASSERT_EQ(::chmod(program_.c_str(), 04755), 0);
  const ProcessOutput r = trace("ptrace");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["write_calls"], 50);
}

TEST_F(SetuidWriter, WithoutTheBitPerfCountsIt) {
  ASSERT_EQ(::chmod(program_.c_str(), 0755), 0);
  const ProcessOutput r = trace("perf");
  EXPECT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["traced"], true) << r.err;
  EXPECT_EQ(doc["write_calls"], 50);
}

}  // namespace
}  // namespace iobench
