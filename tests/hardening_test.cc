// Attacks from outside the run, on the real binary: another user racing iobench's files, and
// iobench in a PID namespace as a container or a CI runner starts it.
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "run_process.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;
using testing::Tmpfs;

bool is_root() { return ::geteuid() == 0; }

std::set<std::string> entries_of(const std::string& dir) {
  std::set<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.insert(n);
    }
    ::closedir(d);
  }
  return names;
}

/// As `user` (a real second user), waits for iobench's private directory to appear in
/// `shared`, renames it to `moved` and plants a link to `target` under its name. Returns the
/// swapper's pid; it exits 0 once it has swapped, 1 if the directory never showed.
pid_t swap_private_dir_for_link(const passwd& user, const std::string& shared,
                                const std::string& target) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  if (::setgroups(0, nullptr) != 0 || ::setgid(user.pw_gid) != 0 || ::setuid(user.pw_uid) != 0)
    ::_exit(2);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < give_up) {
    for (const std::string& n : entries_of(shared)) {
      if (n.rfind("iobench.", 0) != 0) continue;
      const std::string at = shared + "/" + n;
      if (::rename(at.c_str(), (shared + "/moved").c_str()) == 0 &&
          ::symlink(target.c_str(), at.c_str()) == 0)
        ::_exit(0);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ::_exit(1);
}

// Root measures in a directory another user owns. Mid-run that user swaps iobench's private
// directory for a link to a root-only directory: nothing there may be read, made or removed.
TEST(Hardening, ALinkPlantedInPlaceOfThePrivateDirectoryIsNeverFollowed) {
  if (!is_root()) GTEST_SKIP() << "the race needs root to run iobench and a second user";
  const passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user 'nobody' to race as";
  ScratchDir base;
  ASSERT_EQ(::chmod(base.path().c_str(), 0755), 0);
  const std::string shared = base.path() + "/shared", victim = base.path() + "/victim";
  ASSERT_EQ(::mkdir(shared.c_str(), 0755), 0);
  ASSERT_EQ(::chown(shared.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  ASSERT_EQ(::mkdir(victim.c_str(), 0700), 0);
  for (const char* name : {"a", "b", "c"}) std::ofstream(victim + "/" + name) << name << "\n";

  const pid_t swapper = swap_private_dir_for_link(*nobody, shared, victim);
  const ProcessOutput r = iobench({"--lines", "20000", "--strategy", "unbuffered,buffered",
                                   "--runs", "5", "--dir", shared, "--format", "json"});
  int st = 0;
  ASSERT_EQ(::waitpid(swapper, &st, 0), swapper);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "the swap never happened mid-run";

  EXPECT_EQ(entries_of(victim), (std::set<std::string>{"a", "b", "c"}));
  for (const char* name : {"a", "b", "c"})
    EXPECT_EQ(slurp(victim + "/" + name), std::string(name) + "\n");
  EXPECT_EQ(entries_of(shared + "/moved"), std::set<std::string>{});
  // Swapped mid-run, the run goes on in its own directory wherever it was moved; swapped in
  // the microseconds between its making and its opening, it is refused before anything ran.
  if (r.status == 2) {
    EXPECT_NE(r.err.find("was replaced before it could be opened"), std::string::npos) << r.err;
  } else {
    EXPECT_EQ(r.status, 0) << r.err;
  }
}

// ---- PID namespaces: a container's, a CI runner's ----

/// `args` run by iobench as pid 1 of a new PID namespace with its own /proc, as a container
/// starts it; `before` is shell run in the namespace first.
ProcessOutput in_pid_namespace(const std::vector<std::string>& args,
                               const std::string& before = "") {
  std::string cmd = before.empty() ? "" : before + " && ";
  cmd += "exec";
  for (const std::string& a : args) cmd += " '" + a + "'";
  return run_process({"/usr/bin/unshare", "--kill-child", "--pid", "--fork", "--mount-proc",
                      "/bin/sh", "-c", cmd});
}

std::string unshare_refused() {
  if (!is_root()) return "a PID namespace needs root";
  const ProcessOutput probe = run_process(
      {"/usr/bin/unshare", "--kill-child", "--pid", "--fork", "--mount-proc", "/bin/true"});
  return probe.status == 0 ? "" : "unshare refused here: " + probe.err;
}

/// The tracer flags of a backend, and why it cannot run here ("" when it can), asked outside.
struct Backend {
  const char* name;
  std::vector<std::string> flags;
};

void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

std::string backend_refused(const Backend& b) {
  std::vector<std::string> args = {"trace"};
  args.insert(args.end(), b.flags.begin(), b.flags.end());
  args.insert(args.end(), {"--", "/bin/true"});
  const ProcessOutput r = iobench(args);
  return r.status == 0 ? "" : r.err;
}

class PidNamespace : public ::testing::TestWithParam<Backend> {};

TEST_P(PidNamespace, TraceCountsWhatItCountsOutside) {
  if (const std::string why = unshare_refused(); !why.empty()) GTEST_SKIP() << why;
  if (const std::string why = backend_refused(GetParam()); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  const std::string out = dir.path() + "/out";
  std::vector<std::string> args = {IOBENCH_BIN, "trace", "--format", "json"};
  args.insert(args.end(), GetParam().flags.begin(), GetParam().flags.end());
  args.insert(args.end(), {"--", WRITER_BIN, out, "100"});
  const ProcessOutput r = in_pid_namespace(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["write_calls"], 100) << r.out;
  EXPECT_EQ(doc["syscalls"]["write"]["calls"], 100) << r.out;
}

TEST_P(PidNamespace, TheStrategiesCountWhatTheyCountOutside) {
  if (const std::string why = unshare_refused(); !why.empty()) GTEST_SKIP() << why;
  if (const std::string why = backend_refused(GetParam()); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  std::vector<std::string> args = {
      IOBENCH_BIN, "--lines",  "1000",     "--strategy", "unbuffered,buffered",
      "--runs",    "1",        "--warmup", "0",          "--dir",
      dir.path(),  "--format", "json",     "--expect",   "unbuffered.write_calls==1000"};
  args.insert(args.end(), GetParam().flags.begin(), GetParam().flags.end());
  const ProcessOutput r = in_pid_namespace(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0]["write_calls"], 1000) << r.out;
  EXPECT_EQ(doc["results"][1]["write_calls"], 1) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Backends, PidNamespace,
                         ::testing::Values(Backend{"bpf", {"--tracer", "bpf"}},
                                           Backend{"ptrace", {"--tracer", "ptrace"}},
                                           Backend{"perf", {"--tracer", "perf", "--count-only"}}),
                         [](const auto& info) { return std::string(info.param.name); });

// The traced command's pid in the namespace steered to equal a host process's global pid: a
// process of another user, writing to a file in its 0700 directory. Only the command counts.
TEST(Hardening, APidThatIsAnotherProcesssGlobalPidCountsOnlyTheCommand) {
  if (const std::string why = unshare_refused(); !why.empty()) GTEST_SKIP() << why;
  const passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user 'nobody' to write as";
  ScratchDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  const std::string secret = dir.path() + "/secret";
  ASSERT_EQ(::mkdir(secret.c_str(), 0700), 0);
  ASSERT_EQ(::chown(secret.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  const pid_t victim = ::fork();
  if (victim == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(nobody->pw_gid) != 0 ||
        ::setuid(nobody->pw_uid) != 0)
      ::_exit(2);
    const int fd =
        ::open((secret + "/diary").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    for (;;) {
      if (::write(fd, "x\n", 2) != 2) ::_exit(3);
      ::usleep(1000);
    }
  }
  const std::string out = dir.path() + "/out";
  // iobench is pid 1 and forks the command next: ns_last_pid makes it the victim's number.
  const ProcessOutput r = in_pid_namespace(
      {IOBENCH_BIN, "trace", "--per-process", "--format", "json", "--", WRITER_BIN, out, "100"},
      "echo " + std::to_string(victim - 1) + " > /proc/sys/kernel/ns_last_pid");
  ::kill(victim, SIGKILL);
  ::waitpid(victim, nullptr, 0);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["processes"].size(), 1u) << r.out;
  ASSERT_EQ(doc["processes"][0]["pid"], victim)
      << "the steering missed: the command got another pid";
  EXPECT_EQ(doc["write_calls"], 100) << r.out;
  ASSERT_EQ(doc["files"].size(), 1u) << r.out;
  EXPECT_EQ(doc["files"][0]["path"], out);
}

TEST(Hardening, AProcOfAnotherPidNamespaceIsRefusedBeforeAnythingRuns) {
  if (!is_root()) GTEST_SKIP() << "a PID namespace needs root";
  // --kill-child: a product that hangs here dies with unshare when timeout ends it.
  const ProcessOutput r = run_process({"/usr/bin/timeout", "30", "/usr/bin/unshare", "--kill-child",
                                       "--pid", "--fork", IOBENCH_BIN, "trace", "--", "/bin/true"});
  if (r.status != 2 && r.err.find("unshare") != std::string::npos) GTEST_SKIP() << r.err;
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("iobench: error: /proc belongs to another PID namespace (iobench is pid 1 "
                       "here, /proc/self is "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// ---- the kernel clock's tables: past them, loud; within them, every call named ----

/// "" when `iobench trace --tracer bpf` runs here, else why not.
std::string bpf_refused() { return backend_refused(Backend{"bpf", {"--tracer", "bpf"}}); }

/// The files of a trace document whose path starts with `prefix`: path -> calls.
std::map<std::string, std::uint64_t> files_under(const nlohmann::json& doc,
                                                 const std::string& prefix) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& f : doc["files"])
    if (f["path"].get<std::string>().rfind(prefix, 0) == 0) out[f["path"]] = f["calls"];
  return out;
}

TEST(KernelClockTables, TwentyThousandFilesAreEachCountedAndNamed) {
  if (const std::string why = bpf_refused(); !why.empty()) GTEST_SKIP() << why;
  Tmpfs dir("size=256m");  // a page a file; on a disk, making them takes seconds
  ASSERT_TRUE(dir.mounted());
  const ProcessOutput r = iobench({"trace", "--tracer", "bpf", "--format", "json", "--", MANY_BIN,
                                   "files", dir.path(), "20000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["write_calls"], 20000);
  const auto files = files_under(doc, dir.path() + "/f");
  EXPECT_EQ(files.size(), 20000u);
  EXPECT_EQ(files.count(dir.path() + "/f19999"), 1u);
}

TEST(KernelClockTables, SeventeenThousandChildrenWritingOneFileAreEachCounted) {
  if (const std::string why = bpf_refused(); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  const std::string out = dir.path() + "/out";
  const ProcessOutput r = iobench({"trace", "--tracer", "bpf", "--per-process", "--format", "json",
                                   "--", MANY_BIN, "children", out, "17000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["write_calls"], 17000);
  EXPECT_EQ(files_under(doc, out), (std::map<std::string, std::uint64_t>{{out, 17000}}));
  EXPECT_EQ(doc["processes"].size(), 17000u);  // the parent makes none of the writes
}

// Past the table of names: every call still counted, and the run says what it could not name;
// a count judged by --expect fails rather than pass on a count it cannot vouch for.
TEST(KernelClockTables, PastTheNamesTableTheRunSaysSoAndAJudgedCountFails) {
  if (const std::string why = bpf_refused(); !why.empty()) GTEST_SKIP() << why;
  Tmpfs dir("size=256m");
  ASSERT_TRUE(dir.mounted());
  const ProcessOutput r =
      iobench({"trace", "--tracer", "bpf", "--format", "json", "--expect", "write_calls==40000",
               "--", MANY_BIN, "files", dir.path(), "40000"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("iobench: warning: counts incomplete: 7232 files left unnamed, shown as "
                       "(unreadable fd) (the kernel clock holds 32768 names)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("FAIL write_calls == 40000 (not measured: counts incomplete: "),
            std::string::npos)
      << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["write_calls"], 40000) << "counted, if not named";
}

// ---- one name for one file, whichever backend names it ----

struct BackendPair {
  Backend save, check;
};
void PrintTo(const BackendPair& p, std::ostream* os) {
  *os << p.save.name << "_then_" << p.check.name;
}

class AcrossBackends : public ::testing::TestWithParam<BackendPair> {};

TEST_P(AcrossBackends, ABaselineSavedUnderOneComparesCleanUnderTheOther) {
  for (const Backend& b : {GetParam().save, GetParam().check})
    if (const std::string why = backend_refused(b); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  const std::string base = dir.path() + "/base.json";
  const auto traced = [&](const Backend& b, const std::string& flag) {
    std::vector<std::string> args = {"trace", flag, base, "--name", "names"};
    args.insert(args.end(), b.flags.begin(), b.flags.end());
    args.insert(args.end(), {"--", FD_KINDS_BIN, "names", dir.path(), "10"});
    return iobench(args);
  };
  const ProcessOutput saved = traced(GetParam().save, "--save-baseline");
  ASSERT_EQ(saved.status, 0) << saved.err;
  const ProcessOutput checked = traced(GetParam().check, "--baseline");
  EXPECT_EQ(checked.status, 0) << checked.err << checked.out;
  const auto doc = nlohmann::json::parse(testing::slurp(base));
  const auto& files = doc["baseline"]["rows"][0]["file_calls"];
  EXPECT_EQ(files.size(), 3u) << files;
  EXPECT_EQ(files["/memfd:iobench (deleted)"], 10) << files;
  EXPECT_EQ(files[dir.path() + "/gone (deleted)"], 10) << files;
  EXPECT_EQ(files[dir.path() + "/kept"], 10) << files;
}

INSTANTIATE_TEST_SUITE_P(Backends, AcrossBackends,
                         ::testing::Values(BackendPair{{"bpf", {"--tracer", "bpf"}},
                                                       {"ptrace", {"--tracer", "ptrace"}}},
                                           BackendPair{{"ptrace", {"--tracer", "ptrace"}},
                                                       {"bpf", {"--tracer", "bpf"}}}),
                         [](const auto& info) {
                           return std::string(info.param.save.name) + "_then_" +
                                  info.param.check.name;
                         });

}  // namespace
}  // namespace iobench
