// A command that cannot run exits as README "Exit status" says, alike in `iobench trace`,
// `iobench compare` and the C++ API: 127 when it is not found, 126 when it is there but
// cannot be executed, each with one `iobench: error:` line (issue 22, item 2). And a trace
// whose checks ask only for counts is a count-mode run (item 4).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <iobench/trace.h>
#include <pwd.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_surface_test.h"

namespace iobench {
namespace {

using testing::error_lines;
using testing::iobench;
using testing::ProcessOutput;
using testing::ScratchDir;
using testing::write_text;

constexpr const char* kMissing = "no-such-command-iobench";

/// A directory with a file that is not executable and a script whose #! interpreter is gone.
class UnrunnableCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text(noexec_path(), "echo hi\n", 0644);
    write_text(orphan_path(), "#!/nonexistent/interpreter -x\necho hi\n", 0755);
  }
  std::string noexec_path() const { return dir_.path() + "/noexec"; }
  std::string orphan_path() const { return dir_.path() + "/orphan"; }
  std::string orphan_why() const {
    return "cannot execute '" + orphan_path() +
           "': No such file or directory (its #! interpreter '/nonexistent/interpreter')";
  }
  ScratchDir dir_;
};

/// Exactly one line on stderr, and it is this error.
void expect_one_error(const ProcessOutput& r, const std::string& line) {
  EXPECT_EQ(error_lines(r.err), std::vector<std::string>{line}) << r.err;
}

TEST_F(UnrunnableCommands, TraceExits127WhenNotFoundAnd126WhenItCannotBeExecuted) {
  const ProcessOutput missing = iobench({"trace", "--", kMissing});
  EXPECT_EQ(missing.status, 127);
  EXPECT_EQ(missing.err, fmt::format("iobench: error: trace: command not found: '{}'\n", kMissing));
  const ProcessOutput gone = iobench({"trace", "--", dir_.path() + "/gone"});
  EXPECT_EQ(gone.status, 127) << "a path to nothing is not found, too";
  expect_one_error(gone, "iobench: error: trace: cannot run '" + dir_.path() +
                             "/gone': No such file or directory");

  const ProcessOutput noexec = iobench({"trace", "--", noexec_path()});
  EXPECT_EQ(noexec.status, 126);
  EXPECT_EQ(noexec.err,
            "iobench: error: trace: cannot run '" + noexec_path() + "': Permission denied\n");
  const ProcessOutput dir = iobench({"trace", "--", dir_.path()});
  EXPECT_EQ(dir.status, 126) << "a directory is no program";

  const ProcessOutput orphan = iobench({"trace", "--", orphan_path()});
  EXPECT_EQ(orphan.status, 126);
  EXPECT_EQ(orphan.out, "");
  EXPECT_EQ(orphan.err, "iobench: error: trace: " + orphan_why() + "\n");
}

TEST_F(UnrunnableCommands, AFileInPathWithoutTheExecuteBitIs126AsExecvpSaysEacces) {
  const ProcessOutput r = testing::run_process(
      {"/usr/bin/env", "PATH=" + dir_.path(), IOBENCH_BIN, "trace", "--", "noexec"});
  EXPECT_EQ(r.status, 126) << r.err;
  EXPECT_EQ(r.err, "iobench: error: trace: cannot run 'noexec' (" + noexec_path() +
                       "): Permission denied\n");
}

TEST_F(UnrunnableCommands, TraceJsonOfACommandThatNeverRanHasNullCounts) {
  for (const char* extra : {"--count-only", "--time-all"}) {
    const ProcessOutput r = iobench({"trace", "--format", "json", extra, "--", orphan_path()});
    EXPECT_EQ(r.status, 126) << extra;
    expect_one_error(r, "iobench: error: trace: " + orphan_why());
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["exit_status"], 126) << extra;
    EXPECT_EQ(doc["error"], orphan_why());
    for (const char* count : {"write_calls", "syscalls", "files", "time_unavailable"})
      EXPECT_TRUE(doc[count].is_null()) << count << " with " << extra << ": " << doc[count];
  }
  // --trace-all would have counted the failed execve itself: still nothing of the command's.
  const ProcessOutput all =
      iobench({"trace", "--format", "json", "--trace-all", "--per-process", "--", orphan_path()});
  const auto doc = nlohmann::json::parse(all.out);
  EXPECT_TRUE(doc["syscalls"].is_null()) << doc["syscalls"];
  EXPECT_TRUE(doc["processes"].is_null()) << doc["processes"];
}

TEST_F(UnrunnableCommands, CompareExitsAsTraceDoesWithOneErrorLine) {
  auto compare = [](const std::string& command) {
    return iobench({"compare", "--runs", "1", "--warmup", "0", command});
  };
  const ProcessOutput missing = compare(kMissing);
  EXPECT_EQ(missing.status, 127);
  expect_one_error(missing,
                   fmt::format("iobench: error: compare: command not found: '{}'", kMissing));
  const ProcessOutput noexec = compare(noexec_path());
  EXPECT_EQ(noexec.status, 126);
  expect_one_error(
      noexec, "iobench: error: compare: cannot run '" + noexec_path() + "': Permission denied");
  const ProcessOutput orphan = compare(orphan_path());
  EXPECT_EQ(orphan.status, 126) << orphan.err;
  EXPECT_EQ(orphan.out, "") << "no table of a command that never ran";
  expect_one_error(orphan, "iobench: error: compare: " + orphan_why());
}

TEST_F(UnrunnableCommands, TheApiSaysSoInExitStatusAndError) {
  const Trace missing = trace_command({kMissing});
  EXPECT_EQ(missing.exit_status(), 127);
  EXPECT_EQ(missing.error(), fmt::format("command not found: '{}'", kMissing));
  EXPECT_EQ(missing.write_calls(), 0u);
  const auto missing_doc = nlohmann::json::parse(missing.to_json());
  EXPECT_TRUE(missing_doc["write_calls"].is_null());
  EXPECT_EQ(missing_doc["exit_status"], 127);
  EXPECT_EQ(missing_doc["error"], missing.error());

  const Trace noexec = trace_command({noexec_path()});
  EXPECT_EQ(noexec.exit_status(), 126);
  EXPECT_EQ(noexec.error(), "cannot run '" + noexec_path() + "': Permission denied");

  const Trace orphan = trace_command({orphan_path(), "arg"});
  if (!orphan.traced()) GTEST_SKIP() << "ptrace is not available here";
  EXPECT_EQ(orphan.exit_status(), 126);
  EXPECT_EQ(orphan.error(), orphan_why());
  const auto doc = nlohmann::json::parse(orphan.to_json());
  EXPECT_EQ(doc["exit_status"], 126);
  EXPECT_TRUE(doc["syscalls"].is_null()) << doc["syscalls"];
  EXPECT_EQ(doc["command"], (nlohmann::json{orphan_path(), "arg"}));
}

/// writer PATH N [STATUS]: N write calls of 12 bytes to PATH.
class CountedChecks : public ::testing::Test {
 protected:
  /// `iobench trace [options] --format json -- writer PATH 1000`: its JSON document.
  nlohmann::json trace_json(std::vector<std::string> options) const {
    options.insert(options.begin(), "trace");
    for (const std::string& word : {std::string("--format"), std::string("json"), std::string("--"),
                                    std::string(WRITER_BIN), out(), std::string("1000")})
      options.push_back(word);
    const ProcessOutput r = iobench(options);
    EXPECT_EQ(r.status, 0) << ::testing::PrintToString(options) << r.err;
    return nlohmann::json::parse(r.out);
  }
  std::string mode(std::vector<std::string> options) const {
    return trace_json(std::move(options))["mode"].get<std::string>();
  }
  std::string out() const { return dir_.path() + "/out"; }
  ScratchDir dir_;
};

TEST_F(CountedChecks, ATraceWhoseChecksAllCountIsACountModeRun) {
  const nlohmann::json doc =
      trace_json({"--expect", "write_calls==1000", "--expect", "write>=1000"});
  EXPECT_EQ(doc["mode"], "count");
  EXPECT_EQ(doc["write_calls"], 1000) << "counted all the same";
  EXPECT_TRUE(doc["overhead_ns"].is_null()) << "no calibration";
  // The table (on stderr) says so itself.
  const ProcessOutput r =
      iobench({"trace", "--expect", "write_calls==1000", "--", WRITER_BIN, out(), "1000"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("count mode: calls only."), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("PASS write_calls == 1000 (measured 1000)"), std::string::npos) << r.err;
}

// A trace's baseline compares counts alone: `trace --baseline` timed every call and, as a
// plain user, paid the calibration (seconds) for times nobody compared.
TEST_F(CountedChecks, ABaselineIsACheckThatCounts) {
  const std::string base = dir_.path() + "/base.json";
  EXPECT_EQ(trace_json({"--count-only", "--save-baseline", base})["mode"], "count");
  const nlohmann::json doc = trace_json({"--baseline", base});
  EXPECT_EQ(doc["mode"], "count");
  EXPECT_TRUE(doc["overhead_ns"].is_null()) << "no calibration";
  EXPECT_EQ(mode({"--baseline", base, "--expect", "write_calls==1000"}), "count");
  EXPECT_EQ(mode({"--baseline", base, "--expect", "bytes==12000"}), "timing");
  EXPECT_EQ(mode({"--baseline", base, "--latency"}), "timing");
}

// A plain user's tracer is ptrace, whose timing mode calibrates first (seconds): a baseline
// check as that user counts only, through ptrace, with no calibration.
TEST_F(CountedChecks, APlainUsersBaselineCheckIsNotCalibrated) {
  if (::geteuid() != 0) GTEST_SKIP() << "switching to nobody needs root";
  const passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user 'nobody'";
  ASSERT_EQ(::chown(dir_.path().c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  const std::string base = dir_.path() + "/base.json";
  auto as_nobody = [&](const std::vector<std::string>& options) {
    std::vector<std::string> argv = {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup",
                                     "--clear-groups",   IOBENCH_BIN,      "trace"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--format", "json", "--", WRITER_BIN, out(), "1000"});
    const ProcessOutput r = testing::run_process(argv);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
  };
  ASSERT_EQ(as_nobody({"--count-only", "--save-baseline", base})["write_calls"], 1000);
  const nlohmann::json doc = as_nobody({"--baseline", base});
  EXPECT_EQ(doc["backend"], "ptrace") << "a plain user's";
  EXPECT_EQ(doc["mode"], "count");
  EXPECT_TRUE(doc["overhead_ns"].is_null()) << "no calibration";
}

// Each timing-mode run calibrates first: a few per test, for a busy machine's timeout.
TEST_F(CountedChecks, ATimeOrBytesExpectationTurnsTimingOn) {
  EXPECT_EQ(mode({"--expect", "write_calls==1000", "--expect", "time_ns<100s"}), "timing");
  EXPECT_EQ(mode({"--expect", "bytes==12000"}), "timing") << "bytes are the calls' returns";
}

TEST_F(CountedChecks, LatencyOrTimeAllTurnTimingOn) {
  EXPECT_EQ(mode({"--expect", "write_calls==1000", "--latency"}), "timing");
  EXPECT_EQ(mode({"--expect", "write_calls==1000", "--time-all"}), "timing");
}

TEST_F(CountedChecks, WithoutACheckItIsTheTimedTable) {
  EXPECT_EQ(mode({}), "timing");
  EXPECT_EQ(mode({"--count-only"}), "count");
}

TEST_F(CountedChecks, TheApiCountsByDefaultAndTimesWhenAsked) {
  const Trace counted = trace_command({WRITER_BIN, out(), "1000"});
  if (!counted.traced()) GTEST_SKIP() << "ptrace is not available here";
  EXPECT_EQ(counted.exit_status(), 0);
  EXPECT_EQ(counted.error(), "");
  EXPECT_EQ(counted.write_calls(), 1000u);
  EXPECT_EQ(counted.file_calls(out()), 1000u);
  EXPECT_EQ(nlohmann::json::parse(counted.to_json())["mode"], "count");
  const Trace fn = trace([] {});
  EXPECT_EQ(nlohmann::json::parse(fn.to_json())["mode"], "count") << "trace() too";

  const Trace timed = trace_command({WRITER_BIN, out(), "10", "3"}, {.timing = true});
  EXPECT_EQ(timed.exit_status(), 3) << "the program's own status";
  EXPECT_EQ(timed.file_bytes(out()), 120u) << "the calls' returns, seen in timing mode";
  EXPECT_EQ(nlohmann::json::parse(timed.to_json())["mode"], "timing");
}

}  // namespace
}  // namespace iobench
