// What iobench refuses before anything runs (exit 2), and the small contracts of its output:
// an --expect on a syscall that is not traced, baselines that are malformed or not
// comparable, flag values that parse but mean nothing. Through the real binary.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/reporter.h"
#include "run_process.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::ScratchDir;
using testing::slurp;

using testing::iobench;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The table row that starts with `name`, its cells joined by one space.
std::string row_of(const std::string& table, const std::string& name) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name + " ", 0) != 0) continue;
    std::istringstream cells(line);
    std::string out;
    for (std::string cell; cells >> cell;) out += (out.empty() ? "" : " ") + cell;
    return out;
  }
  return "";
}

// Without --trace-all the filter stops on the write family only: openat or close would
// measure 0, so an expectation on them is refused, not failed after the run.
TEST(ExpectUntraced, ASyscallOutsideTheWriteFamilyNeedsTraceAll) {
  ScratchDir dir;
  const std::string out = dir.path() + "/out";
  ProcessOutput trace = iobench({"trace", "--expect", "openat==1", "--", WRITER_BIN, out, "3"});
  EXPECT_EQ(trace.status, 2) << trace.err;
  EXPECT_TRUE(contains(trace.err, "iobench: error: --expect 'openat==1': openat is not traced"))
      << trace.err;
  EXPECT_TRUE(contains(trace.err, "--trace-all")) << trace.err;
  ProcessOutput bench = iobench({"--lines", "10", "--strategy", "buffered", "--runs", "1",
                                 "--expect", "buffered.close==1", "--dir", dir.path()});
  EXPECT_EQ(bench.status, 2) << bench.out << bench.err;
  EXPECT_TRUE(contains(bench.err, "close is not traced")) << bench.err;
  EXPECT_TRUE(bench.out.empty()) << "nothing ran: " << bench.out;

  // Traced, it is measured: at least the writer's own open, and the strategy's close.
  ProcessOutput all =
      iobench({"trace", "--trace-all", "--expect", "openat>=1", "--", WRITER_BIN, out, "3"});
  EXPECT_EQ(all.status, 0) << all.err;
  EXPECT_TRUE(contains(all.err, "PASS openat >= 1")) << all.err;
  ProcessOutput bench_all =
      iobench({"--lines", "10", "--strategy", "buffered", "--runs", "1", "--trace-all", "--expect",
               "buffered.close>=1", "--dir", dir.path()});
  EXPECT_EQ(bench_all.status, 0) << bench_all.out << bench_all.err;
  // The write family needs no --trace-all.
  ProcessOutput family = iobench({"trace", "--expect", "write==3", "--", WRITER_BIN, out, "3"});
  EXPECT_EQ(family.status, 0) << family.err;
}

/// A real baseline of buffered and writev at 100 lines, as --save-baseline writes it.
nlohmann::json saved_baseline(const ScratchDir& dir) {
  const std::string path = dir.path() + "/saved.json";
  ProcessOutput save = iobench({"--lines", "100", "--strategy", "buffered,writev", "--runs", "1",
                                "--save-baseline", path, "--dir", dir.path()});
  EXPECT_EQ(save.status, 0) << save.err;
  return nlohmann::json::parse(slurp(path));
}

/// Runs the baseline's own configuration against `doc`.
ProcessOutput compare_with(const ScratchDir& dir, const nlohmann::json& doc,
                           std::vector<std::string> extra = {}) {
  const std::string path = dir.path() + "/edited.json";
  std::ofstream(path) << doc.dump();
  std::vector<std::string> args = {"--lines",          "100",   "--strategy", "buffered,writev",
                                   "--runs",           "1",     "--baseline", path,
                                   "--time-tolerance", "1e300", "--dir",      dir.path()};
  args.insert(args.end(), extra.begin(), extra.end());
  return iobench(args);
}

// Every value a baseline holds is checked before anything runs: a count is a whole number
// from 0 to 2^64-1 (an out-of-range double once became a huge count), a median a positive
// time (a 0 compared as +0.0%), a status one iobench writes, a strategy once.
TEST(BaselineFile, EveryMalformedValueIsRefusedBeforeAnythingRuns) {
  ScratchDir dir;
  const nlohmann::json good = saved_baseline(dir);
  ASSERT_EQ(good["results"].size(), 2u);
  ProcessOutput same = compare_with(dir, good);
  EXPECT_EQ(same.status, 0) << same.out << same.err;

  struct Case {
    const char* pointer;  // JSON pointer into the document
    nlohmann::json value;
    const char* message;
  };
  const Case cases[] = {
      {"/results/0/write_calls", "many", "buffered.write_calls is \"many\", not a count"},
      {"/results/0/write_calls", -1, "buffered.write_calls is -1, not a count"},
      {"/results/0/write_calls", 1.5, "buffered.write_calls is 1.5, not a count"},
      {"/results/0/write_calls", 1e30, "buffered.write_calls is 1e+30, not a count"},
      {"/results/1/syscalls/writev/calls", -3, "writev.syscalls.writev.calls is -3, not a count"},
      {"/results/0/time_ns/median", 0, "buffered.time_ns.median is 0, not a positive number"},
      {"/results/0/time_ns/median", -5, "buffered.time_ns.median is -5, not a positive number"},
      {"/results/0/time_ns/median", "fast", "buffered.time_ns.median is \"fast\""},
      {"/results/0/status", "great", "buffered.status is \"great\", not ok"},
      {"/results/1/strategy", "buffered", "strategy 'buffered' appears twice"},
  };
  for (const Case& c : cases) {
    nlohmann::json doc = good;
    doc[nlohmann::json::json_pointer(c.pointer)] = c.value;
    ProcessOutput r = compare_with(dir, doc);
    EXPECT_EQ(r.status, 2) << c.pointer << " = " << c.value << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << c.pointer << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.pointer << ": nothing may run\n" << r.out;
  }
  // 2^64 is read as a double by JSON parsers: one past the largest count.
  std::string text = good.dump();
  const std::string from = "\"write_calls\":1";
  ASSERT_NE(text.find(from), std::string::npos) << text;
  text.replace(text.find(from), from.size(), "\"write_calls\":18446744073709551616");
  std::ofstream(dir.path() + "/big.json") << text;
  ProcessOutput big = iobench({"--lines", "100", "--strategy", "buffered,writev", "--runs", "1",
                               "--baseline", dir.path() + "/big.json", "--dir", dir.path()});
  EXPECT_EQ(big.status, 2) << big.out << big.err;
  EXPECT_TRUE(contains(big.err, "not a count")) << big.err;
}

// docs/ci.md: every count may be null, "not measured", as write_calls always could: a
// syscall's null count is compared as not measured on one side, never as missing.
TEST(BaselineFile, ANullSyscallCountIsNotMeasured) {
  ScratchDir dir;
  nlohmann::json doc = saved_baseline(dir);
  doc["results"][1]["syscalls"]["writev"]["calls"] = nullptr;
  const ProcessOutput r = compare_with(dir, doc);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(row_of(r.out, "writev.writev"), "writev.writev — 1 not measured on one side") << r.out;
}

// JSON parsers keep the last of two equal keys, so a file could say two counts for one row:
// refused, naming the key, before anything runs.
TEST(BaselineFile, AKeyTwiceInOneObjectIsRefused) {
  ScratchDir dir;
  std::string text = saved_baseline(dir).dump();
  const std::string from = "\"write_calls\":1}";  // buffered's: its row's last key
  ASSERT_NE(text.find(from), std::string::npos) << text;
  text.insert(text.find(from), "\"write_calls\":5,");
  const std::string path = dir.path() + "/twice.json";
  std::ofstream(path) << text;
  const ProcessOutput r = iobench({"--lines", "100", "--strategy", "buffered,writev", "--runs", "1",
                                   "--baseline", path, "--dir", dir.path()});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "iobench: error: --baseline " + path +
                       ": results[0].write_calls appears twice (a key may appear once in an "
                       "object)\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// Another N or other strategies cannot be compared, and that is known from the options:
// refused before the first run, not after the whole benchmark.
TEST(BaselineFile, NotComparableIsRefusedBeforeAnythingRuns) {
  ScratchDir dir;
  const nlohmann::json good = saved_baseline(dir);
  const std::string path = dir.path() + "/base.json";
  std::ofstream(path) << good.dump();
  auto run = [&](const char* lines, const char* strategies) {
    return iobench({"--lines", lines, "--strategy", strategies, "--runs", "1", "--baseline", path,
                    "--export-json", dir.path() + "/partial.json", "--dir", dir.path()});
  };
  ProcessOutput other_n = run("200", "buffered,writev");
  EXPECT_EQ(other_n.status, 2) << other_n.err;
  EXPECT_TRUE(contains(other_n.err, "baseline not comparable: it wrote 100 lines, this run 200"))
      << other_n.err;
  ProcessOutput fewer = run("100", "buffered");
  EXPECT_EQ(fewer.status, 2) << fewer.err;
  EXPECT_TRUE(contains(fewer.err, "strategy 'writev' is in the baseline but is not run"))
      << fewer.err;
  ProcessOutput more = run("100", "buffered,writev,mmap");
  EXPECT_EQ(more.status, 2) << more.err;
  EXPECT_TRUE(contains(more.err, "strategy 'mmap' is run but is not in the baseline")) << more.err;
  for (const ProcessOutput* r : {&other_n, &fewer, &more}) EXPECT_TRUE(r->out.empty()) << r->out;
  EXPECT_TRUE(slurp(dir.path() + "/partial.json").empty()) << "no strategy may have run";
}

// trace renders a table or JSON; help says so, and CSV/Markdown are refused, not ignored.
TEST(SmallContracts, TraceFormatIsTableOrJson) {
  ScratchDir dir;
  const std::string out = dir.path() + "/out";
  for (const char* format : {"csv", "markdown"}) {
    ProcessOutput r = iobench({"trace", "--format", format, "--", WRITER_BIN, out, "1"});
    EXPECT_EQ(r.status, 2) << format << r.err;
    EXPECT_TRUE(
        contains(r.err, fmt::format("trace --format: unknown format '{}' (table, json)", format)))
        << r.err;
  }
  ProcessOutput json = iobench({"trace", "--format", "json", "--", WRITER_BIN, out, "1"});
  EXPECT_EQ(json.status, 0) << json.err;
}

// nan compares false with everything and inf (1e308 seconds overflows) with nothing useful.
TEST(SmallContracts, ExpectValuesAreFiniteAndPrintedInFull) {
  ScratchDir dir;
  for (const char* text : {"time_ns<nan", "time_ns<1e308s", "write_calls<inf", "bytes>-inf"}) {
    ProcessOutput r = iobench({"--lines", "10", "--strategy", "buffered", "--runs", "1", "--expect",
                               text, "--dir", dir.path()});
    EXPECT_EQ(r.status, 2) << text << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "is not a finite value")) << text << r.err;
  }
  // A large bound is read as digits, not 1e+16.
  ProcessOutput big = iobench({"--lines", "10", "--strategy", "buffered", "--runs", "1", "--expect",
                               "buffered.bytes<1e16", "--dir", dir.path()});
  EXPECT_EQ(big.status, 0) << big.out << big.err;
  EXPECT_TRUE(contains(big.out, "PASS buffered.bytes < 10000000000000000 (measured 70)"))
      << big.out;
}

// A count bound is read exactly up to 2^64-1 (a double would echo ...616), and a value past
// what a number can hold says so rather than "not a number".
TEST(SmallContracts, ExpectCountsAreExactAndTooLargeIsOutOfRange) {
  ScratchDir dir;
  const auto expect = [&](const std::string& text) {
    return iobench({"--lines", "10", "--strategy", "buffered", "--runs", "1", "--expect", text,
                    "--dir", dir.path()});
  };
  const ProcessOutput max = expect("buffered.write_calls<=18446744073709551615");
  EXPECT_EQ(max.status, 0) << max.out << max.err;
  EXPECT_TRUE(contains(max.out, "PASS buffered.write_calls <= 18446744073709551615 (measured 1)"))
      << max.out;
  const ProcessOutput huge = expect("write_calls<1e400");
  EXPECT_EQ(huge.status, 2) << huge.out << huge.err;
  EXPECT_EQ(huge.err,
            "iobench: error: --expect 'write_calls<1e400': '1e400' is out of range (past what a "
            "double holds)\n");
  const ProcessOutput past = expect("write_calls<=18446744073709551616");
  EXPECT_EQ(past.status, 2) << past.out << past.err;
  EXPECT_EQ(past.err,
            "iobench: error: --expect 'write_calls<=18446744073709551616': '18446744073709551616' "
            "is out of range (a count is at most 18446744073709551615)\n");
}

// One value twice would be one row, with a knee message about nothing.
TEST(SmallContracts, ASweepValueGivenTwiceIsRefused) {
  ScratchDir dir;
  for (const char* list : {"1K,1K", "4K,1K,1024"}) {
    ProcessOutput r = iobench({"sweep", "--strategy", "buffered", "--buffer-size", list, "--lines",
                               "10", "--runs", "1", "--dir", dir.path()});
    EXPECT_EQ(r.status, 2) << list << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "--buffer-size: 1024 is given twice")) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// README: a syscall time lost in the tracer's subtraction shows "—", never a false 0 ns.
TEST(SmallContracts, TraceTableShowsALostTimeAsADash) {
  TraceRecord rep;
  rep.trace.available = true;
  rep.trace.mode = TraceMode::kTiming;
  // Every call timed (the fifth field): errors and bytes counted, not estimates.
  SyscallStats& write = rep.trace.syscalls["write"];
  write.calls = write.timed_calls = 4;
  write.bytes = 40;
  SyscallStats& fsync = rep.trace.syscalls["fsync"];
  fsync.calls = fsync.timed_calls = 1;
  fsync.time_ns = 2000;
  rep.trace.wall_ns = 1000000;
  rep.trace.ptrace.emplace().overhead_ns = 2500;
  const std::string table = render_trace_table(rep);
  EXPECT_FALSE(contains(table, "0 ns")) << table;
  EXPECT_EQ(row_of(table, "write"), "write 4 0 40 — — — — —") << table;
  EXPECT_EQ(row_of(table, "fsync"), "fsync 1 0 — 2.0 µs 2.0 µs — — —") << table;
  EXPECT_EQ(row_of(table, "total"), "total 5 0 40 2.0 µs") << table;
  rep.trace.syscalls.erase("fsync");
  EXPECT_EQ(row_of(render_trace_table(rep), "total"), "total 4 0 40 —") << table;
}

// io_uring_enter returns SQEs consumed, not bytes: its bytes are unknown (null), never 0.
TEST(SmallContracts, RingEnterBytesAreNullNotZero) {
  ScratchDir dir;
  const std::string out = dir.path() + "/out";
  ProcessOutput ring = iobench({"trace", "--format", "json", "--", URING_WRITER_BIN, out, "3"});
  ASSERT_EQ(ring.status, 0) << ring.err;
  const auto doc = nlohmann::json::parse(ring.out);
  EXPECT_EQ(doc["syscalls"]["io_uring_enter"]["calls"], 3) << ring.out;
  EXPECT_TRUE(doc["syscalls"]["io_uring_enter"]["bytes"].is_null()) << ring.out;
  ASSERT_EQ(doc["files"].size(), 1u) << ring.out;
  EXPECT_TRUE(doc["files"][0]["bytes"].is_null()) << ring.out;
  ProcessOutput table = iobench({"trace", "--", URING_WRITER_BIN, out, "3"});
  EXPECT_EQ(row_of(table.err, "io_uring_enter").rfind("io_uring_enter 3 0 — ", 0), 0u) << table.err;

  ProcessOutput plain = iobench({"trace", "--format", "json", "--", WRITER_BIN, out, "3"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  const auto writes = nlohmann::json::parse(plain.out);
  EXPECT_EQ(writes["syscalls"]["write"]["bytes"], 36) << plain.out;
  EXPECT_EQ(writes["files"][0]["bytes"], 36) << plain.out;

  ProcessOutput bench = iobench({"--lines", "100", "--strategy", "io_uring", "--runs", "1",
                                 "--format", "json", "--dir", dir.path()});
  ASSERT_EQ(bench.status, 0) << bench.err;
  const auto row = nlohmann::json::parse(bench.out)["results"][0];
  EXPECT_TRUE(row["syscalls"]["io_uring_enter"]["bytes"].is_null()) << row.dump();
}

// At 0 lines mmap maps nothing: its faults are start-up, not "one per page it touches".
TEST(SmallContracts, MmapFootnoteAtZeroLinesBlamesNoPages) {
  ScratchDir dir;
  ProcessOutput r = iobench({"--lines", "0", "--strategy", "mmap", "--runs", "1", "--color",
                             "never", "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "one per page it first touches")) << r.out;
  EXPECT_TRUE(contains(r.out, "at 0 lines nothing to map")) << r.out;
  ProcessOutput some = iobench({"--lines", "1000", "--strategy", "mmap", "--runs", "1", "--color",
                                "never", "--dir", dir.path()});
  EXPECT_TRUE(contains(some.out, "one per page it first touches")) << some.out;
}

}  // namespace
}  // namespace iobench
