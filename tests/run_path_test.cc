// One run path (issue 10, item 3): `iobench compare` measures a command through the same
// runner as a strategy (the order of all timed runs, the noise check, failures of any run,
// the counted run), and nothing of a strategy run outlives a SIGKILLed iobench.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_process.h"
#include "wait_for.h"

namespace iobench {
namespace {

using json = nlohmann::json;
using testing::iobench;
using testing::ProcessOutput;
using testing::ScratchDir;
using testing::wait_until;

json row(const json& doc, const std::string& name) {
  for (const json& r : doc["results"])
    if (r["strategy"] == name) return r;
  ADD_FAILURE() << "no row " << name;
  return json::object();
}

/// A shell command that counts its own runs in `file` and exits 0 or 1 by `test`, whose
/// `$n` is the number of runs before this one (the warm-up is run 0).
std::string counting(const std::string& file, const std::string& test) {
  return "n=$(cat " + file + " 2>/dev/null || echo 0); echo $((n+1)) >" + file + "; " + test;
}

TEST(CompareOnTheRunnersPath, RunsAutoPlansTheRunsAsForAStrategy) {
  // `true` takes a millisecond: auto runs it until the timed work adds up (run_plan.h),
  // far past compare's default five; JSON says the count was "auto".
  const ProcessOutput r =
      iobench({"compare", "-n", "t", "true", "--runs", "auto", "--no-trace", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["config"]["runs"], "auto");
  EXPECT_GT(row(doc, "t")["time_ns"]["samples"].size(), 5u);
}

TEST(CompareOnTheRunnersPath, TheTimedRunsOfAllCommandsShareOneOrder) {
  const ProcessOutput r =
      iobench({"compare", "--shell", "-n", "a", "true", "-n", "b", ":", "--runs", "3", "--warmup",
               "0", "--no-trace", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out);
  std::vector<int> order;
  for (const char* name : {"a", "b"}) {
    const json one = row(doc, name);
    EXPECT_EQ(one["time_ns"]["samples"].size(), 3u);
    ASSERT_EQ(one["run_order"].size(), 3u) << "each sample's place among all timed runs";
    for (const json& i : one["run_order"]) order.push_back(i.get<int>());
    EXPECT_EQ(one["verified"], nullptr) << "a command's files are its own: nothing is checked";
    EXPECT_EQ(one["dir"], nullptr);
  }
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(CompareOnTheRunnersPath, AnyRunFailingIsAFailedRowSayingWhy) {
  ScratchDir dir;
  const std::string late = dir.path() + "/late";
  const ProcessOutput r = iobench({"compare",
                                   "--shell",
                                   "-n",
                                   "killed",
                                   "kill -9 $$",
                                   "-n",
                                   "not-run",
                                   "exit 127",
                                   "-n",
                                   "late",
                                   counting(late, "test $n -lt 2"),
                                   "-n",
                                   "fine",
                                   counting(dir.path() + "/fine", "true"),
                                   "--runs",
                                   "1",
                                   "--warmup",
                                   "1",
                                   "--format",
                                   "json"});
  ASSERT_EQ(r.status, 3) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(row(doc, "killed")["error"], "killed by signal 9 (Killed)");
  EXPECT_EQ(row(doc, "killed")["time_ns"], nullptr) << "its warm-up failed: nothing was timed";
  EXPECT_EQ(row(doc, "not-run")["error"], "exited with status 127 (could not be run)");
  // The warm-up (n = 0) and the timed run (1) pass; the counted run (2) fails.
  EXPECT_EQ(row(doc, "late")["status"], "failed");
  EXPECT_EQ(row(doc, "late")["error"], "exited with status 1 (traced run)");
  EXPECT_EQ(row(doc, "late")["write_calls"], nullptr) << "a failed run's counts are not shown";
  EXPECT_EQ(row(doc, "late")["time_ns"]["samples"].size(), 1u);
  EXPECT_EQ(row(doc, "fine")["status"], "ok");
  EXPECT_EQ(row(doc, "fine")["write_calls"], 1) << "its echo into the counter file";
}

TEST(CompareOnTheRunnersPath, ACommandWhoseRunsSpreadIsNoisyButRanksNothingWrong) {
  ScratchDir dir;
  // Runs 2..6 (after one warm-up) sleep 0.2 .. 0.6 s: a spread of ±37%. (That one wild run
  // makes no row noisy is pinned on made-up samples: a few-ms command's own noise here is
  // the machine's.)
  const ProcessOutput r = iobench(
      {"compare", "--shell", "-n", "graded", counting(dir.path() + "/g", "sleep 0.$n"), "-n",
       "bumpy", counting(dir.path() + "/b", "if [ $n -eq 3 ]; then sleep 1; fi"), "--runs",
       "5", "--warmup", "1", "--no-trace", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(row(json::parse(r.out), "graded")["noisy"], true);
  // bumpy (a few ms) is far faster than graded (0.4 s): no conclusion is at stake.
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

// The record says how many runs --runs auto plans even when no row got one: the heading
// is assembled by the command (commands/report_setup.cc), not looked up by the reporter.
TEST(CompareOnTheRunnersPath, RunsAutoWithNoSampleStillSaysTheFewestRuns) {
  const ProcessOutput r = iobench({"compare", "--runs", "auto", "--no-trace", "false"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.out.find("· 5 or more runs + 1 warm-up per command"), std::string::npos) << r.out;
}

// ---- a SIGKILLed iobench (PR_SET_PDEATHSIG) ----

/// The first child of `pid`'s main thread (the one that forks runs), or 0.
pid_t first_child(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  pid_t child = 0;
  in >> child;
  return child;
}

/// Whether `pid` runs: it exists and has not exited (no zombie).
bool running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t end = stat.rfind(") ");  // the name may hold anything but ends there
  return end != std::string::npos && end + 2 < stat.size() && stat[end + 2] != 'Z';
}

/// Whether the strategy has begun writing its file in iobench's private directory under
/// `dir`: its child is past its set-up (PR_SET_PDEATHSIG comes before the strategy).
bool strategy_writing(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const auto size = std::filesystem::file_size(e.path() / "unbuffered.out", ec);
    if (!ec && size > 0) return true;
  }
  return false;
}

pid_t start_iobench(const std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(IOBENCH_BIN)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execv(IOBENCH_BIN, argv.data());
    ::_exit(127);
  }
  return pid;
}

/// Kills iobench while a strategy's child runs; returns the orphan's wait status, or -1 when
/// iobench happened to be between two runs (no orphan: try again).
int status_of_orphan_after_sigkill(const std::string& dir) {
  const pid_t iobench_pid =
      start_iobench({"--lines", "2000000", "--strategy", "unbuffered", "--runs", "50", "--warmup",
                     "0", "--no-trace", "--format", "json", "--dir", dir});
  pid_t child = 0;
  EXPECT_TRUE(wait_until([&] {
    child = first_child(iobench_pid);
    return child > 0 && running(child) && strategy_writing(dir);
  })) << "no strategy run started";
  ::kill(iobench_pid, SIGKILL);
  int st = 0;
  EXPECT_EQ(::waitpid(iobench_pid, &st, 0), iobench_pid);
  // We are the subreaper: the child iobench left, if any, is ours now.
  pid_t orphan = 0;
  EXPECT_TRUE(wait_until([&] {
    orphan = ::waitpid(-1, &st, WNOHANG);
    return orphan != 0;
  })) << "an orphan still runs";
  return orphan > 0 ? st : -1;
}

TEST(NothingOutlivesIobench, ASigkilledIobenchTakesItsStrategyRunWithIt) {
  ScratchDir dir;
  // The test adopts what iobench leaves, so the orphan's wait status says how it ended: by
  // SIGKILL on iobench's death, or by finishing its run (status 0) with nobody waiting.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int st = -1;
  for (int attempt = 0; attempt < 5 && st == -1; ++attempt)
    st = status_of_orphan_after_sigkill(dir.path());
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  ASSERT_NE(st, -1) << "iobench was between runs at every kill";
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
      << "the strategy's child ran on after iobench died (exit status "
      << (WIFEXITED(st) ? WEXITSTATUS(st) : -1) << ")";
}

}  // namespace
}  // namespace iobench
