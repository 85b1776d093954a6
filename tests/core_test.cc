// The CLI, the runner, the checker and the JSON document, driven as a user drives them:
// the real iobench binary on real files.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include <fstream>
#include <ostream>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/program_path.h"
#include "cli/cli_values.h"
#include "kernel_probe.h"
#include "run/run_samples.h"
#include "run/verify.h"
#include "run_process.h"
#include "strategies/registry.h"
#include "strategies/support/line_format.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;

using testing::iobench;

void write_file(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

std::string expected_text(std::uint64_t lines) {
  std::string s;
  char buf[kMaxLineBytes];
  for (std::uint64_t i = 0; i < lines; ++i) s.append(buf, format_line(buf, i));
  return s;
}

// ---- the checker ----

TEST(Verify, AcceptsExactBytesAndNamesTheFirstDifference) {
  ScratchDir dir;
  const std::string path = dir.path() + "/f";
  std::string good = expected_text(5000);
  write_file(path, good);
  EXPECT_EQ(verify_file(path, 5000), "");

  std::string bad = good;
  bad[40000] = 'X';
  write_file(path, bad);
  EXPECT_EQ(verify_file(path, 5000), "wrong bytes: first difference at offset 40000");

  write_file(path, good.substr(0, good.size() - 1));
  EXPECT_EQ(verify_file(path, 5000), "wrong size: 48889 bytes, expected 48890");
  write_file(path, good + "Line 5000\n");
  EXPECT_EQ(verify_file(path, 5000), "wrong size: 48900 bytes, expected 48890");
  write_file(path, "");
  EXPECT_EQ(verify_file(path, 0), "");
}

TEST(Verify, StreamsFilesLargerThanItsChunk) {
  ScratchDir dir;
  const std::string path = dir.path() + "/f";
  std::string good = expected_text(200000);  // ~2.3 MB, many 256 KiB chunks
  good[good.size() - 3] = '0';
  write_file(path, good);
  EXPECT_EQ(verify_file(path, 200000), fmt::format("wrong bytes: first difference at offset {}", good.size() - 3));
}

// ---- sizes ----

// ---- the process plumbing every command shares ----

TEST(ProgramPath, FindsWhatExecvpWouldAndSaysWhyNot) {
  testing::ScratchDir dir;
  const std::string prog = dir.path() + "/prog", plain = dir.path() + "/plain";
  std::ofstream(prog) << "#!/bin/sh\n";
  std::ofstream(plain) << "data\n";
  ASSERT_EQ(::chmod(prog.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(plain.c_str(), 0644), 0);
  const char* saved = std::getenv("PATH");
  const std::string old_path = saved ? saved : "";
  ::setenv("PATH", ("/nonexistent-iobench:" + dir.path()).c_str(), 1);
  EXPECT_EQ(find_program("prog"), prog);
  EXPECT_EQ(find_program("plain"), "") << "not executable";
  EXPECT_EQ(find_program(dir.path()), "") << "a directory is no program";
  EXPECT_EQ(resolve_command("trace", "prog"), prog);
  EXPECT_EQ(resolve_command("compare", prog), prog) << "a path is taken as given";
  auto message = [](const std::string& command, const std::string& name, int status) {
    try {
      resolve_command(command, name);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_status(), status) << e.what();
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("trace", "no-such-iobench", 127),
            "trace: command not found: 'no-such-iobench'");
  EXPECT_EQ(message("compare", plain, 126),
            "compare: cannot run '" + plain + "': Permission denied");
  EXPECT_EQ(message("trace", "plain", 126),
            "trace: cannot run 'plain' (" + plain + "): Permission denied")
      << "in PATH without the execute bit: execvp's EACCES";
  EXPECT_EQ(message("", dir.path() + "/none", 127),
            "cannot run '" + dir.path() + "/none': No such file or directory");
  ::setenv("PATH", old_path.c_str(), 1);
}

TEST(RunSamples, EveryTimedRunSummarisedOnce) {
  RunSamples samples;
  auto usage = [](long user_us, long sys_us, long minflt, long majflt, long nvcsw, long nivcsw) {
    rusage u{};
    u.ru_utime.tv_usec = user_us;
    u.ru_stime.tv_usec = sys_us;
    u.ru_minflt = minflt;
    u.ru_majflt = majflt;
    u.ru_nvcsw = nvcsw;
    u.ru_nivcsw = nivcsw;
    return u;
  };
  samples.add(300, usage(10, 1, 30, 3, 7, 9));
  samples.add(100, usage(20, 2, 10, 1, 5, 8));
  samples.add(200, usage(30, 3, 20, 2, 6, 7));
  StrategyResult r;
  samples.summarize_into(r);
  EXPECT_EQ(r.time_ns.median, 200);
  EXPECT_EQ(r.time_ns.samples, (std::vector<std::int64_t>{300, 100, 200}));
  EXPECT_EQ(r.cpu_ns.median, 22'000) << "user + sys, in ns";
  EXPECT_EQ(r.minor_faults, 20u);
  EXPECT_EQ(r.major_faults, 2u);
  EXPECT_EQ(r.voluntary_cs, 6u);
  EXPECT_EQ(r.involuntary_cs, 8u);
}

TEST(ParseSize, UnitsAndErrors) {
  EXPECT_EQ(parse_size("--x", "4096"), 4096u);
  EXPECT_EQ(parse_size("--x", "64K"), 65536u);
  EXPECT_EQ(parse_size("--x", "64KiB"), 65536u);
  EXPECT_EQ(parse_size("--x", "1M"), 1048576u);
  EXPECT_EQ(parse_size("--x", "2g"), 2147483648u);
  EXPECT_THROW(parse_size("--x", "-1"), Error);
  EXPECT_THROW(parse_size("--x", "1X"), Error);
  EXPECT_THROW(parse_size("--x", ""), Error);
  EXPECT_THROW(parse_size("--x", "99999999999999999999"), Error);
  EXPECT_THROW(parse_size("--x", "17179869184G"), Error);
}

// ---- the command line ----

struct BadArgs {
  std::vector<std::string> args;
  std::string message_part;
};

// The test's name in ctest: its arguments (gtest would print the struct's bytes).
void PrintTo(const BadArgs& b, std::ostream* os) {
  for (std::size_t i = 0; i < b.args.size(); ++i) *os << (i ? " " : "") << b.args[i];
}

class CliErrors : public ::testing::TestWithParam<BadArgs> {};

TEST_P(CliErrors, OneLineExitTwoNothingCreated) {
  ScratchDir dir;
  std::vector<std::string> args = GetParam().args;
  if (std::find(args.begin(), args.end(), "--dir") == args.end()) {
    args.push_back("--dir");
    args.push_back(dir.path());
  }
  ProcessOutput r = iobench(args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.rfind("iobench: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(GetParam().message_part), std::string::npos) << r.err;
  EXPECT_EQ(dir.entries(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Cli, CliErrors,
    ::testing::Values(
        BadArgs{{"--lines", "-5"}, "--lines: '-5' is negative"},
        BadArgs{{"--lines", "abc"}, "--lines: 'abc' is not a whole number"},
        BadArgs{{"--lines", "99999999999999999999999"}, "--lines: '99999999999999999999999' does not fit in 64 bits"},
        BadArgs{{"--lines", "1000000000000000"}, "free"},
        BadArgs{{"--buffer-size", "0"}, "--buffer-size"},
        BadArgs{{"--buffer-size", "12Q"}, "--buffer-size: unknown size suffix"},
        BadArgs{{"--batch", "0"}, "--batch: 0 is out of range (1 to 1024)"},
        BadArgs{{"--batch", "1025"}, "--batch: 1025 is out of range"},
        BadArgs{{"--queue-depth", "0"}, "--queue-depth"},
        BadArgs{{"--queue-depth", "32769"}, "--queue-depth: 32769 is out of range"},
        BadArgs{{"--runs", "0"}, "--runs"},
        BadArgs{{"--map-window", "1000"}, "--map-window: 1000 is not a multiple of the page size"},
        BadArgs{{"--strategy", "bufered"}, "did you mean 'buffered'?"},
        BadArgs{{"--strategy", "nope"}, "valid: all, unbuffered"},
        BadArgs{{"--format", "xml"}, "--format: unknown format 'xml'"},
        BadArgs{{"--timeout", "-1"}, "--timeout"},
        BadArgs{{"--dir", "/nonexistent/iobench"}, "No such file or directory"},
        BadArgs{{"--dir", "/etc/hostname"}, "not a directory"},
        BadArgs{{"--no-such-flag"}, "--no-such-flag"}));

TEST(Cli, ListNamesEveryStrategy) {
  ProcessOutput r = iobench({"--list"});
  EXPECT_EQ(r.status, 0);
  for (const Strategy* s : all_strategies()) EXPECT_NE(r.out.find(std::string(s->name)), std::string::npos);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), static_cast<long>(all_strategies().size()));
}

TEST(Cli, HelpDocumentsExitStatuses) {
  ProcessOutput r = iobench({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Exit status: 0"), std::string::npos);
  EXPECT_NE(r.out.find("128+N"), std::string::npos);
  // Status 4 in every epilogue that lists the statuses.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--help"}, {"compare", "--help"}, {"trace", "--help"}}) {
    ProcessOutput help = iobench(args);
    EXPECT_EQ(help.status, 0) << args.front();
    EXPECT_NE(help.out.find("4 an output could not be written"), std::string::npos)
        << args.front() << "\n"
        << help.out;
  }
}

// ---- a whole benchmark ----

TEST(Bench, JsonCarriesEveryFieldAndEveryStrategyIsVerified) {
  ScratchDir dir;
  ProcessOutput r = iobench({"--lines", "1000", "--runs", "2", "--warmup", "1", "--format", "json",
                             "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema"], "iobench/1");
  for (const char* k : {"version", "build_type"}) EXPECT_TRUE(doc["iobench"].contains(k)) << k;
  for (const char* k : {"kernel", "cpu", "cpus"}) EXPECT_TRUE(doc["host"].contains(k)) << k;
  for (const char* k : {"lines", "bytes", "dir", "filesystem", "runs", "warmup", "buffer_size",
                        "stdio_buffer", "batch", "queue_depth", "map_window"})
    EXPECT_TRUE(doc["config"].contains(k)) << k;
  EXPECT_EQ(doc["config"]["lines"], 1000);
  EXPECT_EQ(doc["config"]["bytes"], expected_bytes(1000));
  ASSERT_EQ(doc["results"].size(), all_strategies().size());
  for (const auto& res : doc["results"]) {
    for (const char* k : {"strategy", "status", "error", "bytes", "verified", "time_ns", "cpu_ns",
                          "page_faults", "context_switches", "syscalls", "write_calls", "syscall_time_ns"})
      EXPECT_TRUE(res.contains(k)) << k;
    if (res["status"] == "unsupported") {
      // Only where the kernel itself refuses io_uring; any other row must run.
      EXPECT_NE(testing::may_be_unsupported(res["strategy"].get<std::string>(), false, dir.path()),
                "")
          << res["strategy"] << " reported unsupported: " << res["error"];
      continue;
    }
    EXPECT_EQ(res["status"], "ok") << res["strategy"] << ": " << res["error"];
    EXPECT_EQ(res["verified"], true);
    EXPECT_EQ(res["time_ns"]["samples"].size(), 2u);
    for (const char* k : {"median", "mean", "stddev", "min", "max"}) EXPECT_TRUE(res["time_ns"].contains(k));
    EXPECT_TRUE(res["cpu_ns"].contains("median"));
    EXPECT_TRUE(res["page_faults"].contains("minor"));
    EXPECT_TRUE(res["context_switches"].contains("voluntary"));
  }
  EXPECT_EQ(dir.entries(), 0) << "the private directory must be removed";
}

TEST(Bench, ZeroLinesAndKeepLeaveOneVerifiedFilePerStrategy) {
  ScratchDir dir;
  ProcessOutput r = iobench({"--lines", "0", "--runs", "1", "--warmup", "0", "--no-trace",
                             "--strategy", "buffered,mmap", "--keep", "--dir", dir.path(), "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  for (const auto& res : doc["results"]) EXPECT_EQ(res["status"], "ok") << res["error"];
  EXPECT_NE(r.err.find("kept: "), std::string::npos);
  EXPECT_EQ(dir.entries(), 3) << "the private directory and two empty files";
}

TEST(Bench, TableShowsEveryRowAndWhereNumbersCameFrom) {
  ScratchDir dir;
  ProcessOutput r = iobench({"--lines", "2000", "--runs", "1", "--warmup", "0", "--no-trace",
                             "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const Strategy* s : all_strategies()) EXPECT_NE(r.out.find(std::string(s->name)), std::string::npos);
  EXPECT_NE(r.out.find("median of 1 untraced run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("faster"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace iobench
