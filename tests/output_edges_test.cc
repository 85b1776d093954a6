// Output files at their edges (review of issue 25): a stream export takes one document, a
// file shared with stdout or through /dev/fd/N is refused, a failing gnuplot costs only the
// chart, an error line names a path escaped, a long name fits its temporary, the rename is
// fsynced, and a write-protected file is refused rather than replaced.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_surface_test.h"

namespace iobench {
namespace {

using testing::error_lines;
using testing::exists;
using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;
using testing::write_text;

std::vector<std::string> bench_in(const std::string& dir, const std::string& strategies,
                                  std::vector<std::string> more) {
  std::vector<std::string> args = {IOBENCH_BIN, "--lines",    "100",   "--strategy",
                                   strategies,  "--runs",     "1",     "--warmup",
                                   "0",         "--no-trace", "--dir", dir};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

/// args run by a shell with `redirect` applied, so the descriptors are the shell's.
ProcessOutput redirected(const std::string& redirect, std::vector<std::string> args) {
  std::vector<std::string> sh = {"/bin/sh", "-c", "exec \"$0\" \"$@\" " + redirect};
  sh.insert(sh.end(), args.begin(), args.end());
  return run_process(sh);
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(OutputEdges, AnExportToAStreamIsOneDocumentWrittenOnce) {
  ScratchDir work, out;
  const std::string csv = out.path() + "/csv", json = out.path() + "/json";
  // Two strategies: an export rewritten after each would add a second document.
  ProcessOutput r =
      redirected("3>" + csv + " 4>" + json,
                 bench_in(work.path(), "buffered,unbuffered",
                          {"--export-csv", "/dev/fd/3", "--export-json", "/dev/fd/4"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_of(slurp(csv), "strategy,"), 1u) << slurp(csv);
  EXPECT_EQ(count_of(slurp(csv), "\nbuffered,"), 1u) << slurp(csv);
  EXPECT_EQ(count_of(slurp(csv), "\nunbuffered,"), 1u) << slurp(csv);
  EXPECT_EQ(nlohmann::json::parse(slurp(json))["results"].size(), 2u);
}

TEST(OutputEdges, AFileSharedWithStdoutStderrOrADescriptorIsRefused) {
  ScratchDir work, out;
  const std::string f = out.path() + "/r";
  ProcessOutput r = redirected(">" + f, bench_in(work.path(), "buffered", {"--export-json", f}));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: stdout and --export-json " + f +
                       " would write the same file; give each its own\n");
  r = redirected("2>" + f, bench_in(work.path(), "buffered", {"--export-markdown", f}));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(slurp(f), "iobench: error: stderr and --export-markdown " + f +
                          " would write the same file; give each its own\n");
  const std::string chart = f + ".svg";  // --plot's extension names its format
  r = redirected("3>" + chart,
                 bench_in(work.path(), "buffered", {"--export-csv", "/dev/fd/3", "--plot", chart}));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--export-csv /dev/fd/3 and --plot " + chart + " would write the same"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(work.entries(), 0) << "it ran";
  // Descriptors each add at their offset: an export to /dev/stdout beside the table is fine
  // (run_process's stdout is a regular file).
  r = run_process(bench_in(work.path(), "buffered", {"--export-csv", "/dev/stdout"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_of(r.out, "strategy,"), 1u) << r.out;
}

TEST(OutputEdges, AFailingGnuplotCostsOnlyTheChart) {
  ScratchDir work, out, bin;
  write_text(bin.path() + "/gnuplot", "#!/bin/sh\necho 'line 1: boom' >&2\nexit 1\n", 0755);
  const std::string junit = out.path() + "/j.xml";
  std::vector<std::string> args =
      bench_in(work.path(), "buffered",
               {"--plot", out.path() + "/c.svg", "--export-junit", junit, "--expect", "bytes>=1"});
  args.insert(args.begin(), {"/usr/bin/env", "PATH=" + bin.path() + ":/usr/bin:/bin"});
  ProcessOutput r = run_process(args);
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(error_lines(r.err),
            std::vector<std::string>{"iobench: error: --plot: gnuplot failed: line 1: boom"});
  EXPECT_NE(slurp(junit).find("<testcase"), std::string::npos) << "no JUnit file";
  EXPECT_FALSE(exists(out.path() + "/c.svg"));
}

TEST(OutputEdges, AFailedOutputsErrorLineIsEscaped) {
  ScratchDir out;
  const std::string gone = out.path() + "/g\x1b[2Jone";
  ASSERT_EQ(::mkdir(gone.c_str(), 0755), 0);
  ProcessOutput r =
      run_process({IOBENCH_BIN, "compare", "--runs", "1", "--warmup", "0", "--no-trace",
                   "--export-json", gone + "/r.json", "-n", "rm", "/bin/rm -rf '" + gone + "'"});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(error_lines(r.err),
            std::vector<std::string>{"iobench: error: --export-json: cannot write " + out.path() +
                                     "/g\\x1b[2Jone/r.json: No such file or directory"});
}

TEST(OutputEdges, ANameTheDirectoryTakesIsWrittenOneItRefusesIsRefusedFirst) {
  ScratchDir work, out;
  if (::pathconf(out.path().c_str(), _PC_NAME_MAX) != 255) GTEST_SKIP() << "NAME_MAX is not 255";
  // 250 bytes: valid, though NAME.XXXXXX.tmp would not be.
  const std::string long_name = out.path() + "/" + std::string(250, 'a');
  ProcessOutput r = run_process(bench_in(work.path(), "buffered", {"--export-json", long_name}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(long_name))["results"].size(), 1u);
  EXPECT_EQ(out.entries(), 1) << "a temporary was left";
  const std::string too_long = out.path() + "/" + std::string(256, 'b');
  r = run_process(bench_in(work.path(), "buffered", {"--export-csv", too_long}));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --export-csv " + too_long + ": File name too long\n");
}

/// fsync calls of `args` and its children, counted by iobench trace.
std::uint64_t fsyncs_of(std::vector<std::string> args) {
  ScratchDir report;  // -o: the traced run's own table is on stdout
  const std::string json = report.path() + "/trace.json";
  // LeakSanitizer (the sanitizer build) cannot run under ptrace: off for the traced iobench.
  std::vector<std::string> trace = {IOBENCH_BIN, "trace",        "--format",
                                    "json",      "-o",           json,
                                    "--",        "/usr/bin/env", "ASAN_OPTIONS=detect_leaks=0"};
  trace.insert(trace.end(), args.begin(), args.end());
  ProcessOutput r = run_process(trace);
  EXPECT_EQ(r.status, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(slurp(json));
  const nlohmann::json& calls = doc["syscalls"];
  return calls.contains("fsync") ? calls["fsync"]["calls"].get<std::uint64_t>() : 0;
}

TEST(OutputEdges, AFileRenamedIntoPlaceIsFsyncedFirst) {
  ScratchDir work, out;
  const std::vector<std::string> none = bench_in(work.path(), "buffered", {});
  const std::vector<std::string> one =
      bench_in(work.path(), "buffered", {"--save-baseline", out.path() + "/b.json"});
  EXPECT_EQ(fsyncs_of(one), fsyncs_of(none) + 1);
}

TEST(OutputEdges, AWriteProtectedFileIsRefusedNotReplaced) {
  ScratchDir work, out;
  const std::string file = out.path() + "/ro.json";
  write_text(file, "keep\n", 0444);
  std::vector<std::string> args = bench_in(work.path(), "buffered", {"--export-json", file});
  if (::geteuid() == 0) {  // root may write anything: the user's own file, as nobody
    ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chown(out.path().c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chmod(work.path().c_str(), 0777), 0);
    args.insert(args.begin(),
                {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
  }
  ProcessOutput r = run_process(args);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --export-json " + file + ": Permission denied\n");
  EXPECT_EQ(slurp(file), "keep\n");
  EXPECT_EQ(work.entries(), 0) << "it ran";
}

}  // namespace
}  // namespace iobench
