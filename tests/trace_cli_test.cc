// `iobench trace` and `iobench compare` hand the command its argv exactly as typed, and
// trace says plainly when the command timed out or could not be executed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli_surface_test.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::ScratchDir;
using testing::slurp;
using testing::write_text;

// Dash-options (some of them iobench's own), spaces, quotes, an empty word and a "--".
const std::vector<std::string> kArgs = {"-x",   "a b", "--",     "-n", "5",  "--format",
                                        "json", "'q'", "\"dq\"", "",   "--", "last"};

std::string printed(const std::vector<std::string>& args) {
  std::string text = "argc=" + std::to_string(args.size() + 1) + "\n";
  for (const auto& a : args) text += "[" + a + "]\n";
  return text;
}

std::vector<std::string> with_command(std::vector<std::string> options) {
  options.push_back(ARGV_PRINTER_BIN);
  options.insert(options.end(), kArgs.begin(), kArgs.end());
  return options;
}

TEST(TraceArgv, EveryFormOfTraceHandsTheCommandItsArgvExactly) {
  ScratchDir out;
  const std::string report = out.path() + "/r.json";
  const std::vector<std::vector<std::string>> forms = {
      {"trace", "--"},
      {"trace"},
      {"trace", "--count-only", "--no-pin", "--"},
      {"trace", "--per-process", "--expect", "write==1", "--timeout", "60"},
      {"trace", "--format=json", "-o", report, "--"},
      {"trace", "--output=" + report, "--export-json", report + ".also"},  // one file each
  };
  for (const auto& form : forms) {
    ProcessOutput r = iobench(with_command(form));
    EXPECT_EQ(r.status, 0) << ::testing::PrintToString(form) << r.err;
    EXPECT_EQ(r.out, printed(kArgs)) << ::testing::PrintToString(form);
  }
  // A command with no arguments at all, and one whose only argument is "--".
  EXPECT_EQ(iobench({"trace", "--", ARGV_PRINTER_BIN}).out, "argc=1\n");
  EXPECT_EQ(iobench({"trace", ARGV_PRINTER_BIN, "--"}).out, "argc=2\n[--]\n");
}

TEST(TraceArgv, AnUnknownOptionBeforeTheCommandIsAUsageError) {
  ProcessOutput r = iobench({"trace", "--bogus", ARGV_PRINTER_BIN});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("trace: unknown option '--bogus'"), std::string::npos) << r.err;
  // iobench's own options before "trace" would take the command's words for theirs.
  ProcessOutput late = iobench({"--no-pin", "trace", "--", ARGV_PRINTER_BIN, "x"});
  EXPECT_EQ(late.status, 2);
  EXPECT_EQ(late.out, "");
  EXPECT_NE(late.err.find("trace: must be the first word"), std::string::npos) << late.err;
  ProcessOutput none = iobench({"trace", "--count-only", "--"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("no command given"), std::string::npos) << none.err;
}

TEST(CompareArgv, EveryFormOfCompareHandsTheCommandItsArgvExactly) {
  ScratchDir out;
  const std::string file = out.path() + "/argv";
  ::setenv("ARGV_PRINTER_OUT", file.c_str(), 1);  // compare's commands write to /dev/null
  // kArgs as a shell would quote them.
  const std::string command =
      std::string(ARGV_PRINTER_BIN) + " -x 'a b' -- -n 5 --format json \"'q'\" '\"dq\"' '' -- last";
  const std::vector<std::vector<std::string>> forms = {
      {"compare", command},
      {"compare", "-n", "printer", command},
      {"compare", "--", command},
      {"compare", "--shell", command},
      {"compare", "--count-only", "-n", "a", command, "-n", "b", command},
  };
  for (const auto& form : forms) {
    ::unlink(file.c_str());
    std::vector<std::string> args = form;
    args.insert(args.begin() + 1, {"--runs", "1", "--warmup", "0"});
    ProcessOutput r = iobench(args);
    EXPECT_EQ(r.status, 0) << ::testing::PrintToString(form) << r.err;
    const auto commands = std::count(form.begin(), form.end(), command);
    std::string expected;
    for (int i = 0; i < 2 * commands; ++i) expected += printed(kArgs);  // timed and traced run
    EXPECT_EQ(slurp(file), expected) << ::testing::PrintToString(form);
  }
  ::unsetenv("ARGV_PRINTER_OUT");
}

// ---- item 14: a timeout and an exec failure are said once, on stderr and in JSON ----

TEST(TraceReporting, ATimeoutIsReportedAndExits124) {
  ScratchDir out;
  const std::string table = out.path() + "/t.txt", json = out.path() + "/t.json";
  ProcessOutput r = iobench(
      {"trace", "--timeout", "0.5", "-o", table, "--export-json", json, "--", "/bin/sleep", "60"});
  EXPECT_EQ(r.status, 124);
  EXPECT_EQ(r.err,
            "iobench: error: trace: timed out after 0.5s; killed the command and every process "
            "it started\n");
  const auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["timed_out"], true);
  EXPECT_EQ(doc["signal"], 9);
  EXPECT_NE(doc["error"].get<std::string>().find("timed out after 0.5s"), std::string::npos);
}

TEST(TraceReporting, ALingeringChildKilledByTheTimeoutIsNotASuccess) {
  ScratchDir out;
  const std::string json = out.path() + "/t.json";
  // The command itself exits 0 at once; what it left running is killed by the timeout.
  ProcessOutput r = iobench({"trace", "--timeout", "1", "--format", "json", "-o", json, "--",
                             "/bin/sh", "-c", "/bin/sleep 60 & exit 0"});
  EXPECT_EQ(r.status, 124) << r.err;
  EXPECT_NE(r.err.find("iobench: error: trace: timed out after 1s"), std::string::npos) << r.err;
  const auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["timed_out"], true);
}

TEST(TraceReporting, AnExecFailureSaysWhyOnceAndExits126) {
  ScratchDir dir;
  const std::string script = dir.path() + "/no-shebang", orphan = dir.path() + "/orphan";
  write_text(script, "echo hi\n", 0755);
  write_text(orphan, "#!/nonexistent/interpreter -x\necho hi\n", 0755);

  ProcessOutput r = iobench({"trace", "--", script});
  EXPECT_EQ(r.status, 126);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "iobench: error: trace: cannot execute '" + script +
                       "': Exec format error (a script needs a #! line)\n");

  // A binary the kernel does not take (another format) gets no hint about #! lines.
  const std::string foreign = dir.path() + "/foreign";
  const char elf_start[] = {'\x7f', 'E', 'L', 'F', '\x02', '\x01', '\x01', '\0', '\0', '\0'};
  write_text(foreign, std::string(elf_start, sizeof elf_start), 0755);
  ProcessOutput f = iobench({"trace", "--", foreign});
  EXPECT_EQ(f.status, 126);
  EXPECT_EQ(f.err, "iobench: error: trace: cannot execute '" + foreign + "': Exec format error\n");

  ProcessOutput j = iobench({"trace", "--format", "json", "--", orphan});
  EXPECT_EQ(j.status, 126) << "found, but it cannot be executed (README \"Exit status\")";
  const std::string why = "cannot execute '" + orphan +
                          "': No such file or directory (its #! interpreter "
                          "'/nonexistent/interpreter')";
  EXPECT_EQ(j.err, "iobench: error: trace: " + why + "\n");
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["error"], why);
  EXPECT_EQ(doc["exit_status"], 126);
  EXPECT_EQ(doc["timed_out"], false);
}

TEST(TraceReporting, ACleanRunHasNoErrorAndNoTimeout) {
  ProcessOutput r = iobench({"trace", "--format", "json", "--timeout", "60", "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["timed_out"], false);
  EXPECT_EQ(doc["error"], nullptr);
}

}  // namespace
}  // namespace iobench
