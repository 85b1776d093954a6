// Files written on request (--export-*, --save-baseline, --plot, trace -o): never through a
// planted symlink, checked before anything runs, and apart from the traced program's stdout.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_surface_test.h"

namespace iobench {
namespace {

using testing::exists;
using testing::iobench;
using testing::is_regular;
using testing::is_symlink;
using testing::ProcessOutput;
using testing::ScratchDir;
using testing::slurp;
using testing::Tmpfs;
using testing::write_text;

const std::vector<std::string> kBench = {"--lines", "1000",     "--strategy", "buffered",  "--runs",
                                         "1",       "--warmup", "0",          "--no-trace"};
const char* const kBenchFiles[] = {"--export-json", "--export-csv", "--export-markdown",
                                   "--save-baseline", "--plot"};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ---- item 7: the temporary file is never a planted name ----

TEST(OutputFiles, ASymlinkPlantedAtTheTemporaryNameIsNotFollowed) {
  ScratchDir work, out;
  const std::string victim = out.path() + "/victim";
  write_text(victim, "precious\n");
  std::vector<std::string> args = concat(kBench, {"--dir", work.path()});
  std::vector<std::string> paths;
  for (const char* flag : kBenchFiles) {
    // out--export-json, ...; --plot's extension names its format
    paths.push_back(out.path() + "/out" + flag + (flag == std::string("--plot") ? ".svg" : ""));
    ASSERT_EQ(::symlink(victim.c_str(), (paths.back() + ".tmp").c_str()), 0);
    args = concat(args, {flag, paths.back()});
  }
  ProcessOutput r = iobench(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(slurp(victim) == "precious\n") << "the symlink's target was overwritten";
  for (const auto& p : paths) {
    EXPECT_TRUE(is_regular(p)) << p;
    EXPECT_FALSE(slurp(p).empty()) << p;
    EXPECT_TRUE(is_symlink(p + ".tmp")) << p;
  }
  EXPECT_EQ(nlohmann::json::parse(slurp(paths[0]))["schema"], "iobench/1");
  EXPECT_EQ(out.entries(), 1 + 2 * static_cast<int>(paths.size())) << "a temporary was left";
}

TEST(OutputFiles, AnExportHasTheModeANewFileGets) {
  ScratchDir work, out;
  const mode_t mask = ::umask(022);
  ProcessOutput r =
      iobench(concat(kBench, {"--dir", work.path(), "--export-json", out.path() + "/r.json"}));
  ::umask(mask);
  ASSERT_EQ(r.status, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat((out.path() + "/r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

std::string fmt_error(const std::string& flag, const std::string& path, const std::string& why) {
  return "iobench: error: " + flag + " " + path + ": " + why + "\n";
}

// ---- item 8: every output path is checked before anything runs ----

/// Paths that cannot be written, and the reason iobench must give for each.
std::vector<std::pair<std::string, std::string>> bad_paths(const ScratchDir& out) {
  write_text(out.path() + "/file", "");
  return {{out.path(), "is a directory"},
          {out.path() + "/missing/x", out.path() + "/missing: No such file or directory"},
          {out.path() + "/file/x", out.path() + "/file is not a directory"}};
}

TEST(OutputFiles, BenchRefusesEveryUnwritableOutputBeforeRunning) {
  ScratchDir work, out;
  for (const auto& [path, why] : bad_paths(out)) {
    for (const char* flag : kBenchFiles) {
      // --keep: a run would leave its output file in --dir.
      ProcessOutput r = iobench(concat(kBench, {"--keep", "--dir", work.path(), flag, path}));
      EXPECT_EQ(r.status, 2) << flag << " " << path;
      EXPECT_EQ(r.err, fmt_error(flag, path, why));
      EXPECT_EQ(work.entries(), 0) << "it ran: " << flag << " " << path;
    }
  }
}

TEST(OutputFiles, SweepCompareAndTraceRefuseUnwritableOutputsBeforeRunning) {
  ScratchDir work, out;
  const std::string ran = work.path() + "/ran";  // what the command would create
  for (const auto& [path, why] : bad_paths(out)) {
    ProcessOutput sweep =
        iobench({"sweep", "--strategy", "buffered", "--buffer-size", "1K,4K", "--lines", "100",
                 "--runs", "1", "--keep", "--dir", work.path(), "--plot", path});
    EXPECT_EQ(sweep.status, 2) << path;
    EXPECT_EQ(sweep.err, fmt_error("--plot", path, why));
    EXPECT_EQ(work.entries(), 0) << "the sweep ran";
    for (const char* flag : {"--export-json", "--export-csv", "--export-markdown", "--plot"}) {
      ProcessOutput r = iobench({"compare", "--runs", "1", flag, path, "/usr/bin/touch " + ran});
      EXPECT_EQ(r.status, 2) << flag << " " << path;
      EXPECT_EQ(r.err, fmt_error(flag, path, why));
    }
    for (const char* flag : {"-o", "--output", "--export-json"}) {
      ProcessOutput r = iobench({"trace", flag, path, "--", "/usr/bin/touch", ran});
      EXPECT_EQ(r.status, 2) << flag << " " << path;
      EXPECT_EQ(r.err, fmt_error(flag == std::string("-o") ? "--output" : flag, path, why));
    }
    EXPECT_FALSE(exists(ran)) << "a command ran";
  }
}

TEST(OutputFiles, AReadOnlyMountIsRefusedBeforeRunning) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a read-only tmpfs needs root";
  Tmpfs fs("size=1m");
  ASSERT_TRUE(fs.mounted());
  ASSERT_EQ(::mount(nullptr, fs.path().c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0);
  ScratchDir work;
  const std::string path = fs.path() + "/r.json";
  const std::string why = fs.path() + " is on a read-only filesystem";
  ProcessOutput bench =
      iobench(concat(kBench, {"--keep", "--dir", work.path(), "--save-baseline", path}));
  EXPECT_EQ(bench.status, 2);
  EXPECT_EQ(bench.err, fmt_error("--save-baseline", path, why));
  EXPECT_EQ(work.entries(), 0);
  ProcessOutput trace =
      iobench({"trace", "--export-json", path, "--", "/usr/bin/touch", work.path() + "/ran"});
  EXPECT_EQ(trace.status, 2);
  EXPECT_EQ(trace.err, fmt_error("--export-json", path, why));
  EXPECT_EQ(work.entries(), 0);
}

// ---- item 16: trace's report in a file, apart from the program's stdout ----

TEST(OutputFiles, TraceReportGoesToItsFileAndStdoutIsTheProgramsAlone) {
  ScratchDir out;
  const std::string report = out.path() + "/trace.json";
  ProcessOutput r =
      iobench({"trace", "--format", "json", "-o", report, "--", ARGV_PRINTER_BIN, "hello world"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "argc=2\n[hello world]\n");  // the program's, and nothing of iobench's
  EXPECT_EQ(r.err, "");
  const auto doc = nlohmann::json::parse(slurp(report));
  EXPECT_EQ(doc["schema"], "iobench-trace/1");
  EXPECT_EQ(doc["syscalls"]["write"]["calls"], 1);  // the printer's one write(2)
  EXPECT_EQ(doc["write_calls"], 0) << "to its stdout: README \"What counts as a write\"";
  EXPECT_EQ(doc["syscalls"]["write"]["bytes"], r.out.size());

  // The table with -o; the JSON beside the table with --export-json.
  const std::string table = out.path() + "/trace.txt", json = out.path() + "/also.json";
  ProcessOutput t =
      iobench({"trace", "--output", table, "--export-json", json, ARGV_PRINTER_BIN, "x"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_EQ(t.out, "argc=2\n[x]\n");
  EXPECT_EQ(t.err, "");
  EXPECT_NE(slurp(table).find("write        1"), std::string::npos) << slurp(table);
  EXPECT_EQ(nlohmann::json::parse(slurp(json))["syscalls"]["write"]["calls"], 1);

  // Through a real pipe into a JSON parser (python's, as a user's jq would be).
  const std::string piped =
      "'" + std::string(IOBENCH_BIN) + "' trace --format json -o '" + report + "' -- '" +
      ARGV_PRINTER_BIN + "' a | cat >/dev/null && python3 -m json.tool '" + report + "' >/dev/null";
  EXPECT_EQ(testing::run_process({"/bin/sh", "-c", piped}).status, 0);
}

TEST(OutputFiles, TraceOutputsAreWrittenAtomicallyToo) {
  ScratchDir out;
  const std::string victim = out.path() + "/victim", report = out.path() + "/t.json";
  write_text(victim, "precious\n");
  ASSERT_EQ(::symlink(victim.c_str(), (report + ".tmp").c_str()), 0);
  ProcessOutput r = iobench({"trace", "--format", "json", "-o", report, "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(slurp(victim) == "precious\n") << "the symlink's target was overwritten";
  EXPECT_EQ(nlohmann::json::parse(slurp(report))["exit_status"], 0);
}

TEST(OutputFiles, CompareExportsTheRunsDocument) {
  ScratchDir out;
  const std::string json = out.path() + "/c.json", csv = out.path() + "/c.csv";
  ProcessOutput r =
      iobench({"compare", "--runs", "1", "--warmup", "0", "--export-json", json, "--export-csv",
               csv, "-n", "printer", std::string(ARGV_PRINTER_BIN) + " a"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["schema"], "iobench/1");
  EXPECT_EQ(doc["results"][0]["strategy"], "printer");
  EXPECT_EQ(doc["results"][0]["status"], "ok");
  EXPECT_NE(slurp(csv).find("printer"), std::string::npos);
}

}  // namespace
}  // namespace iobench
