// The demo under the limits that broke its calibration: a nearly full --dir, ulimit -n 64,
// and a tight RLIMIT_NPROC. Syscall times are measured, or "—" with the true reason; a
// fork that fails names what it was for.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_process.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;
using testing::Tmpfs;

/// Every traced row that wrote: its syscall time measured (a number, no reason given), or
/// the reason it is not. `expect_measured`: the reason must be absent.
void expect_syscall_times_measured(const ProcessOutput& r) {
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_NE(doc["config"]["tracer"]["overhead_ns"], nullptr) << "the tracer was calibrated";
  for (const auto& row : doc["results"]) {
    if (row["status"] != "ok" || row["write_calls"] == nullptr || row["write_calls"] == 0) continue;
    EXPECT_EQ(row["syscall_time_unavailable"], nullptr) << row["strategy"];
    EXPECT_TRUE(row["syscall_time_ns"].is_number()) << row["strategy"];
  }
}

/// Processes of user nobody: RLIMIT_NPROC counts them all, so a limit test needs none.
int processes_of_nobody() {
  int n = 0;
  DIR* proc = ::opendir("/proc");
  while (dirent* e = ::readdir(proc)) {
    struct stat st {};
    if (std::isdigit(static_cast<unsigned char>(e->d_name[0])) &&
        ::stat((std::string("/proc/") + e->d_name).c_str(), &st) == 0 && st.st_uid == 65534)
      ++n;
  }
  ::closedir(proc);
  return n;
}

/// iobench as nobody with at most `nproc` processes and threads.
ProcessOutput as_nobody_with_nproc(int nproc, const std::vector<std::string>& args) {
  // LeakSanitizer (the sanitizer build) needs a thread of its own at exit, which the limit
  // refuses: it would turn the one error line into a fatal sanitizer report.
  std::vector<std::string> argv = {"/usr/bin/env",     "ASAN_OPTIONS=detect_leaks=0",
                                   "/usr/bin/setpriv", "--reuid=nobody",
                                   "--regid=nogroup",  "--clear-groups",
                                   "/usr/bin/prlimit", "--nproc=" + std::to_string(nproc),
                                   IOBENCH_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

TEST(CalibrationLimits, FortyKibFreeInTheDirStillMeasuresTheDemosSyscallTimes) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  Tmpfs fs("size=40k");
  ASSERT_TRUE(fs.mounted());
  // 1,000 lines: 8,890 bytes a file, which fits; the calibration must fit beside it.
  const ProcessOutput r = run_process({IOBENCH_BIN, "--lines", "1000", "--strategy", "all",
                                       "--runs", "1", "--format", "json", "--dir", fs.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  expect_syscall_times_measured(r);
}

TEST(CalibrationLimits, NoRoomLeftAfterTheTracedRunStillLeavesItsTimesMeasured) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  Tmpfs fs("size=40k");
  ASSERT_TRUE(fs.mounted());
  // Three pages free: the 8,890-byte file takes them all, so the calibration after the traced
  // run (1,000 timed calls) finds no block; the run rests on the ones before it.
  const ProcessOutput r = run_process(
      {"/bin/sh", "-c",
       "head -c 28672 /dev/zero > \"$1/filler\" && exec \"$0\" --lines 1000 --strategy unbuffered "
       "--runs 1 --format json --dir \"$1\"",
       IOBENCH_BIN, fs.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  expect_syscall_times_measured(r);
}

TEST(CalibrationLimits, NoRoomForTheCalibrationIsTheReasonInTraceTableAndJson) {
  if (::geteuid() != 0) GTEST_SKIP() << "a private mount namespace needs root";
  // `trace` under ptrace calibrates in /tmp, after a run that timed a call (a write, here to
  // /dev/null): in a namespace of its own, a full 4 KiB tmpfs there. The binary is opened first and
  // run through its fd: a build tree under /tmp is hidden then.
  auto traced = [](const std::string& format) {
    return run_process({"/usr/bin/unshare", "-m", "/bin/sh", "-c",
                        "exec 3<\"$0\" && mount -t tmpfs -o size=4k tmpfs /tmp && "
                        "head -c 4096 /dev/zero > /tmp/filler && "
                        "exec /proc/self/fd/3 trace --tracer ptrace --format \"$1\" -- "
                        "/bin/sh -c 'echo > /dev/null'",
                        IOBENCH_BIN, format});
  };
  const std::string why =
      "tracer calibration: cannot write its one block in /tmp: No space left on device";
  const ProcessOutput json = traced("json");
  if (json.status != 0 && json.err.find("mount") != std::string::npos)
    GTEST_SKIP() << "no private mount namespace here: " << json.err;
  ASSERT_EQ(json.status, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["time_unavailable"], why);
  EXPECT_EQ(doc["overhead_ns"], nullptr);
  EXPECT_EQ(doc["exit_status"], 0);
  for (const auto& [name, st] : doc["syscalls"].items()) {
    EXPECT_EQ(st["time_ns"], nullptr) << name;
    EXPECT_GT(st["calls"], 0) << name;
  }
  const ProcessOutput table = traced("table");
  ASSERT_EQ(table.status, 0) << table.err;
  // The table goes to stderr, as strace -c prints it: stdout is the program's.
  EXPECT_NE(table.err.find("syscall times —: " + why + ".\n"), std::string::npos) << table.err;
}

TEST(CalibrationLimits, UlimitNofile64StillMeasuresTheDemosSyscallTimes) {
  ScratchDir dir;
  const ProcessOutput r =
      run_process({"/usr/bin/prlimit", "--nofile=64", IOBENCH_BIN, "--lines", "1000", "--strategy",
                   "all", "--runs", "1", "--format", "json", "--dir", dir.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  expect_syscall_times_measured(r);
}

TEST(CalibrationLimits, ATightNprocNamesTheForkThatFailed) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "switching to nobody needs root (root ignores RLIMIT_NPROC)";
  if (processes_of_nobody() != 0)
    GTEST_SKIP() << "nobody runs processes here: the limit counts them";
  const std::string hint = ": Resource temporarily unavailable (RLIMIT_NPROC?)\n";
  const ProcessOutput bench =
      as_nobody_with_nproc(1, {"--lines", "10", "--strategy", "buffered", "--dir", "/tmp"});
  EXPECT_EQ(bench.status, 3);
  EXPECT_EQ(bench.err, "iobench: error: fork for an untraced run" + hint);
  // Only --time-all calibrates before the run (tracer.cc, "Calibrate later").
  const ProcessOutput trace = as_nobody_with_nproc(1, {"trace", "--time-all", "--", "/bin/true"});
  EXPECT_EQ(trace.status, 3);
  EXPECT_EQ(trace.err, "iobench: error: fork for the tracer's calibration" + hint);
  const ProcessOutput timing = as_nobody_with_nproc(1, {"trace", "--", "/bin/true"});
  EXPECT_EQ(timing.status, 3);
  EXPECT_EQ(timing.err, "iobench: error: fork for the traced run" + hint);
  const ProcessOutput count = as_nobody_with_nproc(1, {"trace", "--count-only", "--", "/bin/true"});
  EXPECT_EQ(count.status, 3);
  EXPECT_EQ(count.err, "iobench: error: fork for the traced run" + hint);
  // One process more: the forks succeed and the first thread (the calibration's timeout) is
  // refused.
  const ProcessOutput thread = as_nobody_with_nproc(2, {"trace", "--time-all", "--", "/bin/true"});
  EXPECT_EQ(thread.status, 3);
  EXPECT_EQ(thread.err, "iobench: error: a thread for the timeout" + hint);
}

}  // namespace
}  // namespace iobench
