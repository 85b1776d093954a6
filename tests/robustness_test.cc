// Faults, refusals and signals, on the real binary: every failure is one clear line, a
// documented exit status, no stray file and no leftover process.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "kernel_probe.h"
#include "run_process.h"
#include "wait_for.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;
using testing::Tmpfs;

using testing::iobench;

nlohmann::json result_of(const ProcessOutput& r, const std::string& strategy) {
  const auto doc = nlohmann::json::parse(r.out);
  for (const auto& res : doc["results"])
    if (res["strategy"] == strategy) return res;
  return nullptr;
}

/// Processes of ours still around: anything stopped or traced, or any iobench child.
std::vector<std::string> leftover_processes() {
  std::vector<std::string> found;
  DIR* proc = ::opendir("/proc");
  while (dirent* e = ::readdir(proc)) {
    if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
    std::string status = slurp(std::string("/proc/") + e->d_name + "/status");
    auto field = [&](const std::string& key) {
      auto pos = status.find("\n" + key + ":");
      if (pos == std::string::npos) return std::string();
      auto start = status.find_first_not_of(" \t", pos + key.size() + 2);
      return status.substr(start, status.find('\n', start) - start);
    };
    std::string state = field("State");
    std::string exe;
    char buf[4096];
    ssize_t n = ::readlink((std::string("/proc/") + e->d_name + "/exe").c_str(), buf, sizeof buf - 1);
    if (n > 0) exe.assign(buf, static_cast<std::size_t>(n));
    const bool ours = exe == IOBENCH_BIN || exe.find("tracer_program_") != std::string::npos;
    // Only ours: other stopped processes on a shared machine are none of this test's business.
    if (ours) found.push_back(std::string(e->d_name) + " " + state + " " + exe);
  }
  ::closedir(proc);
  return found;
}

bool is_root() { return ::geteuid() == 0; }

class Robustness : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("IOBENCH_TEST_STRATEGIES", "1", 1);
    ::unsetenv("ASAN_OPTIONS");
  }
  void TearDown() override { EXPECT_EQ(leftover_processes(), std::vector<std::string>{}); }
};

// ---- faults during a run ----

TEST_F(Robustness, ACrashingStrategyFailsItsRowAndTheOthersStillRun) {
  // Under AddressSanitizer the child's SIGSEGV must stay a signal, not an ASan report.
  ::setenv("ASAN_OPTIONS", "handle_segv=0", 1);
  ScratchDir dir;
  ProcessOutput r = iobench({"--lines", "1000", "--strategy", "buffered,test-crash,mmap", "--runs", "1",
                             "--format", "json", "--dir", dir.path()});
  EXPECT_EQ(r.status, 3) << r.err;
  auto crash = result_of(r, "test-crash");
  EXPECT_EQ(crash["status"], "failed");
  EXPECT_EQ(crash["error"], "killed by signal 11 (Segmentation fault)");
  EXPECT_EQ(crash["verified"], false);
  EXPECT_EQ(result_of(r, "buffered")["status"], "ok");
  EXPECT_EQ(result_of(r, "mmap")["status"], "ok");
  EXPECT_EQ(dir.entries(), 0) << "no partial file, no private directory";
}

TEST_F(Robustness, WrongBytesAreAFailureNeverAFastRow) {
  ScratchDir dir;
  ProcessOutput r = iobench({"--lines", "1000", "--strategy", "test-wrong-bytes,test-short", "--runs", "1",
                             "--format", "json", "--dir", dir.path()});
  EXPECT_EQ(r.status, 3);
  auto wrong = result_of(r, "test-wrong-bytes");
  EXPECT_EQ(wrong["status"], "failed");
  EXPECT_EQ(wrong["error"], "wrong bytes: first difference at offset 4390");
  EXPECT_EQ(wrong["time_ns"], nullptr) << "a wrong row has no time";
  EXPECT_EQ(result_of(r, "test-short")["error"], "wrong size: 8881 bytes, expected 8890");
  EXPECT_EQ(dir.entries(), 0);
}

TEST_F(Robustness, AHangIsKilledByTimeout) {
  ScratchDir dir;
  // The hang ends only by the timeout, whatever its length; buffered must finish inside it,
  // so it is far longer than a run of buffered takes on the busiest machine.
  ProcessOutput r = iobench({"--lines", "1000", "--strategy", "test-hang,buffered", "--runs", "1",
                             "--timeout", "10", "--format", "json", "--dir", dir.path()});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(result_of(r, "test-hang")["status"], "timeout");
  EXPECT_EQ(result_of(r, "test-hang")["error"], "timed out");
  EXPECT_EQ(result_of(r, "buffered")["status"], "ok");
  EXPECT_EQ(dir.entries(), 0);
}

TEST_F(Robustness, AFileSizeLimitIsEfbigInEveryWritingStrategy) {
  ScratchDir dir;
  ProcessOutput r = run_process({"/usr/bin/prlimit", "--fsize=65536", IOBENCH_BIN, "--lines", "100000",
                                 "--strategy", "unbuffered,buffered,writev,io_uring,mmap,single-write,stdio",
                                 "--runs", "1", "--warmup", "0", "--no-trace", "--format", "json", "--dir", dir.path()});
  EXPECT_EQ(r.status, 3) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 7u);
  for (const auto& res : doc["results"]) {
    // Unsupported only where the kernel itself refuses io_uring; any other row must hit EFBIG.
    if (res["status"] == "unsupported" &&
        !testing::may_be_unsupported(res["strategy"].get<std::string>(), false, dir.path()).empty())
      continue;
    EXPECT_EQ(res["status"], "failed") << res["strategy"];
    EXPECT_NE(res["error"].get<std::string>().find("File too large"), std::string::npos) << res["error"];
  }
  EXPECT_EQ(dir.entries(), 0);
}

TEST_F(Robustness, NoSpaceLeftIsAFailedRowWithTheErrnoText) {
  if (!is_root()) GTEST_SKIP() << "mounting a small tmpfs needs root";
  // Room for the private directory but not for one more inode: the strategy's create
  // fails with ENOSPC. (A byte-size shortfall is refused up front; see the next test.)
  Tmpfs fs("size=4m,nr_inodes=2");
  ASSERT_TRUE(fs.mounted());
  ProcessOutput r = iobench({"--lines", "1000", "--strategy", "buffered,mmap", "--runs", "1",
                             "--format", "json", "--dir", fs.path()});
  EXPECT_EQ(r.status, 3) << r.err;
  for (const char* s : {"buffered", "mmap"}) {
    EXPECT_EQ(result_of(r, s)["status"], "failed");
    EXPECT_EQ(result_of(r, s)["error"], "open: No space left on device");
  }
}

TEST_F(Robustness, NotEnoughSpaceIsRefusedUpFrontSayingHowMuch) {
  if (!is_root()) GTEST_SKIP() << "mounting a small tmpfs needs root";
  Tmpfs fs("size=512k");
  ASSERT_TRUE(fs.mounted());
  ProcessOutput r = iobench({"--lines", "100000", "--dir", fs.path()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --lines: needs 1088890 bytes in " + fs.path() + " but only 524288 bytes are free\n");
}

TEST_F(Robustness, ReadOnlyAndUnwritableDirectoriesAreRefused) {
  if (!is_root()) GTEST_SKIP() << "mounting a read-only tmpfs and switching user need root";
  Tmpfs fs("size=1m,mode=0755");
  ASSERT_TRUE(fs.mounted());
  ASSERT_EQ(::mount(nullptr, fs.path().c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0);
  ProcessOutput ro = iobench({"--lines", "10", "--dir", fs.path()});
  EXPECT_EQ(ro.status, 2);
  EXPECT_EQ(ro.err, "iobench: error: --dir " + fs.path() + ": read-only filesystem\n");
  ProcessOutput nobody = run_process({"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                      IOBENCH_BIN, "--lines", "10", "--dir", "/usr"});
  EXPECT_EQ(nobody.status, 2);
  EXPECT_EQ(nobody.err, "iobench: error: --dir /usr: Permission denied\n");
}

// ---- missing kernel features ----

TEST_F(Robustness, IoUringRefusedIsAnUnsupportedRow) {
  ScratchDir dir;
  ProcessOutput r = run_process({DENY_BIN, "io_uring_setup", IOBENCH_BIN, "--lines", "1000",
                                 "--strategy", "io_uring,buffered", "--runs", "1", "--format", "json", "--dir", dir.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(result_of(r, "io_uring")["status"], "unsupported");
  EXPECT_EQ(result_of(r, "io_uring")["error"], "io_uring_setup: Operation not permitted");
  EXPECT_EQ(result_of(r, "io_uring")["verified"], nullptr);
  EXPECT_EQ(result_of(r, "buffered")["status"], "ok");
}

TEST_F(Robustness, PtraceRefusedWarnsOnceAndStillMeasuresTimes) {
  // LeakSanitizer stops the world with ptrace, which this test forbids (sanitizer builds).
  ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
  ScratchDir dir;
  ProcessOutput r = run_process({DENY_BIN, "ptrace", IOBENCH_BIN, "--lines", "1000", "--strategy",
                                 "buffered,writev", "--runs", "1", "--format", "json", "--tracer",
                                 "ptrace", "--dir", dir.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "iobench: warning: cannot trace (ptrace: Operation not permitted); syscall counts unavailable\n");
  for (const char* s : {"buffered", "writev"}) {
    EXPECT_EQ(result_of(r, s)["status"], "ok");
    EXPECT_EQ(result_of(r, s)["write_calls"], nullptr);
    EXPECT_EQ(result_of(r, s)["time_ns"]["samples"].size(), 1u);
  }
}

TEST_F(Robustness, SeccompRefusedFallsBackToTracingEverySyscall) {
  ScratchDir dir;
  ProcessOutput r = run_process({DENY_BIN, "seccomp,prctl", IOBENCH_BIN, "--lines", "1000", "--strategy",
                                 "unbuffered,buffered", "--runs", "1", "--format", "json", "--tracer",
                                 "ptrace", "--dir", dir.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("seccomp"), std::string::npos) << r.err;
  EXPECT_EQ(result_of(r, "unbuffered")["write_calls"], 1000);
  EXPECT_EQ(result_of(r, "buffered")["write_calls"], 1);
}

// ---- signals ----

/// Starts iobench with stdout and stderr in files; returns its pid.
pid_t start(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen(out.c_str(), "w", stdout);
    std::freopen(err.c_str(), "w", stderr);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

/// Whether a child of `parent` is running, and (with `traced`) is being ptraced.
bool has_child(pid_t parent, bool traced) {
  bool found = false;
  DIR* proc = ::opendir("/proc");
  while (dirent* e = ::readdir(proc)) {
    if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
    const std::string status = slurp(std::string("/proc/") + e->d_name + "/status");
    if (status.find("\nPPid:\t" + std::to_string(parent) + "\n") == std::string::npos) continue;
    if (!traced || status.find("\nTracerPid:\t0\n") == std::string::npos) found = true;
  }
  ::closedir(proc);
  return found;
}

/// Interrupts iobench once the first strategy is exported and the second is running: a
/// child of iobench's (with `traced`, one under its tracer) exists. Events, not delays.
void interrupt_mid_run(int sig, const std::vector<std::string>& extra, bool traced) {
  ScratchDir dir;
  const std::string exported = dir.path() + "/partial.json";
  std::vector<std::string> args = {IOBENCH_BIN, "--lines", "200000", "--strategy", "buffered,unbuffered-pieces",
                                   "--runs", "50", "--export-json", exported, "--dir", dir.path()};
  args.insert(args.end(), extra.begin(), extra.end());
  pid_t pid = start(args, dir.path() + "/out", dir.path() + "/err");
  const bool mid_run = testing::wait_until(
      [&] { return ::access(exported.c_str(), F_OK) == 0 && has_child(pid, traced); });
  EXPECT_TRUE(mid_run) << "the second strategy never started" << (traced ? " a traced run" : "");
  ::kill(pid, sig);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 128 + sig);
  // A row measured before the signal may be called noisy on a busy machine: not our concern.
  std::string err = slurp(dir.path() + "/err");
  for (std::size_t at; (at = err.find("iobench: warning: timings of ")) != std::string::npos;)
    err.erase(at, err.find('\n', at) + 1 - at);
  EXPECT_EQ(err, std::string("iobench: error: interrupted by SIG") + sigabbrev_np(sig) + "\n");
  auto doc = nlohmann::json::parse(slurp(exported));
  EXPECT_EQ(doc["results"].size(), 1u) << "what was measured is kept";
  // Only our own files remain: the export, and the captured out/err.
  EXPECT_EQ(dir.entries(), 3);
}

TEST_F(Robustness, SigintMidRunKillsChildrenRemovesFilesKeepsExports) {
  // --no-interleave: untraced, interleaved rows are all exported at once, after every timed run.
  interrupt_mid_run(SIGINT, {"--no-trace", "--no-interleave"}, false);
}
TEST_F(Robustness, SigtermDuringTracedRunLeavesNoTracee) {
  interrupt_mid_run(SIGTERM, {"--runs", "1", "--warmup", "0", "--tracer", "ptrace"}, true);
}

TEST_F(Robustness, SigtermDuringAKernelClockRunLeavesNothing) {
  ScratchDir dir;  // --tracer bpf refuses in one line where the clock cannot load
  const ProcessOutput probe = iobench(
      {"--lines", "1", "--strategy", "buffered", "--runs", "1", "--tracer", "bpf", "--dir", dir.path()});
  if (probe.status != 0) GTEST_SKIP() << probe.err;
  interrupt_mid_run(SIGTERM, {"--runs", "1", "--warmup", "0", "--tracer", "bpf"}, false);
}

TEST_F(Robustness, AClosedStdoutIsAQuietExit) {
  ScratchDir dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);  // nobody will read
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    std::freopen((dir.path() + "/err").c_str(), "w", stderr);
    ::execl(IOBENCH_BIN, IOBENCH_BIN, "--lines", "100", "--strategy", "buffered", "--runs", "1",
            "--dir", dir.path().c_str(), nullptr);
    ::_exit(127);
  }
  ::close(fds[1]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st)) << "not killed by SIGPIPE";
  EXPECT_EQ(WEXITSTATUS(st), 128 + SIGPIPE);
  EXPECT_EQ(slurp(dir.path() + "/err"), "") << "no Broken pipe noise";
}

// ---- files and privileges ----

TEST_F(Robustness, ThePrivateDirectoryIsMode0700) {
  ScratchDir dir;
  ProcessOutput r = iobench({"--lines", "10", "--strategy", "buffered", "--runs", "1", "--keep", "--dir", dir.path()});
  ASSERT_EQ(r.status, 0);
  auto pos = r.err.find("kept: ");
  ASSERT_NE(pos, std::string::npos);
  std::string file = r.err.substr(pos + 6, r.err.find('\n', pos) - pos - 6);
  struct stat st {};
  ASSERT_EQ(::stat(file.substr(0, file.rfind('/')).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(Robustness, NoIobenchFdLeaksIntoATracedCommand) {
  ProcessOutput r = iobench({"trace", "--", "/bin/ls", "/proc/self/fd"});
  EXPECT_EQ(r.status, 0) << r.err;
  // ls itself holds one fd for the directory it lists: 0, 1, 2 and that one.
  EXPECT_EQ(r.out, "0\n1\n2\n3\n");
}

}  // namespace
}  // namespace iobench
