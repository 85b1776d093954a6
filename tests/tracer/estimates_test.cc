// Errors and bytes, which only a call's return tells: counted wherever every return was seen,
// and elsewhere estimated per cell (tracer/tally.h) so that the files' and the processes'
// figures add up to the syscall's, and marked as estimates in the table and in JSON.
#include <sys/syscall.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "../run_process.h"
#include "tracer/tally.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

using nlohmann::json;
using tracing::Overhead;
using tracing::SyscallTable;
using tracing::TraceTally;

/// One synthetic call through the tally as the session makes it: counted at entry, its
/// return recorded only when the sampler times it.
void call(TraceTally& tally, pid_t tgid, const std::string& path, bool error, long bytes) {
  const TraceTally::Slot slot = tally.record_call(tgid, SYS_write, &path);
  const std::uint32_t weight = tally.sample(SYS_write);
  if (weight == 0 || weight == tracing::Sampler::kPrimer) return;
  TraceTally::record_exit(slot, error ? -EBADF : bytes, error, true, 300, 0, 300, weight);
}

TraceResult filled(const TraceTally& tally) {
  TraceResult r;
  const SyscallTable table;
  tally.fill(r, table, Overhead{});
  return r;
}

struct Sums {
  std::uint64_t errors = 0, bytes = 0;
};

template <typename Rows>
Sums write_sums(const Rows& rows) {
  Sums s;
  for (const auto& row : rows) {
    auto it = row.syscalls.find("write");
    if (it == row.syscalls.end()) continue;
    s.errors += it->second.errors;
    s.bytes += it->second.bytes;
  }
  return s;
}

// Two processes, three files, writes of three sizes and five errors, most of them where only
// a sample is timed: the sort of mix whose per-aggregate scaling rounded apart.
TEST(Estimates, FilesAndProcessesAddUpToTheSyscall) {
  TraceTally tally;
  const std::string a = "/tmp/a", b = "/tmp/b", bad = "(bad fd)";
  constexpr long kCalls = 200'000;
  for (long i = 1; i <= kCalls; ++i) {
    const pid_t tgid = i % 3 == 0 ? 2 : 1;
    const bool error = i == 3 || i == 5'001 || i == 77'777 || i == 150'001 || i == kCalls - 10;
    const std::string& path = error ? bad : i % 7 == 0 ? b : a;
    call(tally, tgid, path, error, i % 7 == 0 ? 4096 : i % 2 == 0 ? 12 : 100);
  }
  const TraceResult r = filled(tally);
  const SyscallStats& w = r.syscalls.at("write");
  ASSERT_EQ(w.calls, static_cast<std::uint64_t>(kCalls));
  EXPECT_TRUE(w.returns_estimated());
  EXPECT_FALSE(w.returns_unknown);
  const Sums files = write_sums(r.files), processes = write_sums(r.processes);
  EXPECT_EQ(files.errors, w.errors);
  EXPECT_EQ(files.bytes, w.bytes);
  EXPECT_EQ(processes.errors, w.errors);
  EXPECT_EQ(processes.bytes, w.bytes);
  // The estimate stays near the truth: 5 errors, and the bytes of the 199,995 writes.
  EXPECT_LE(w.errors, 10u);
  double truth = 0;
  for (long i = 1; i <= kCalls; ++i)
    if (!(i == 3 || i == 5'001 || i == 77'777 || i == 150'001 || i == kCalls - 10))
      truth += i % 7 == 0 ? 4096 : i % 2 == 0 ? 12 : 100;
  EXPECT_NEAR(static_cast<double>(w.bytes), truth, truth * 0.02);
}

TEST(Estimates, EveryReturnSeenIsCountedNotEstimated) {
  TraceTally tally(true);  // --time-all
  const std::string a = "/tmp/a", bad = "(bad fd)";
  constexpr long kCalls = 20'000;
  for (long i = 1; i <= kCalls; ++i) call(tally, 1, i % 5'000 == 0 ? bad : a, i % 5'000 == 0, 12);
  const TraceResult r = filled(tally);
  const SyscallStats& w = r.syscalls.at("write");
  EXPECT_FALSE(w.estimated());
  EXPECT_FALSE(w.returns_estimated());
  EXPECT_EQ(w.errors, 4u);
  EXPECT_EQ(w.bytes, (kCalls - 4) * 12u);
  EXPECT_EQ(find_file(r, bad)->syscalls.at("write").errors, 4u);
}

// A call that never came back (the program was killed inside it) tells nothing: unknown,
// not 0.
TEST(Estimates, NoReturnSeenIsUnknown) {
  TraceTally tally;
  const std::string a = "/tmp/a";
  (void)tally.record_call(1, SYS_write, &a);
  (void)tally.sample(SYS_write);
  const TraceResult r = filled(tally);
  EXPECT_TRUE(r.syscalls.at("write").returns_unknown);
  EXPECT_FALSE(r.syscalls.at("write").returns_estimated());
  EXPECT_TRUE(r.files.at(0).syscalls.at("write").returns_unknown);
}

// Through the real binary: 20,000 writes (past the fully timed start, into the sample), the
// 3rd and the 19,990th to a closed fd. Table on stderr, JSON exported from the same run.
struct Traced {
  std::vector<std::string> write_row;  // the table's "write" row, cell by cell
  json doc;
};

Traced trace_failing_writer(const TempDir& dir, bool time_all, std::uint64_t n) {
  std::vector<std::string> args = {IOBENCH_BIN, "trace",         "--tracer",
                                   "ptrace",    "--export-json", dir.file("trace.json")};
  if (time_all) args.emplace_back("--time-all");
  for (const std::string& a :
       {std::string("--"), std::string(PROGRAM_FAILING_WRITER), dir.file("out"), std::to_string(n)})
    args.push_back(a);
  const auto p = testing::run_process(args);
  EXPECT_EQ(p.status, 0) << p.err;
  Traced t;
  std::istringstream table(p.err);
  for (std::string line; std::getline(table, line);) {
    if (line.rfind("write ", 0) != 0) continue;
    std::istringstream cells(line);
    for (std::string cell; cells >> cell;) t.write_row.push_back(cell);
    break;
  }
  t.doc = json::parse(testing::slurp(dir.file("trace.json")), nullptr, false);
  EXPECT_GE(t.write_row.size(), 4u) << p.err;
  return t;
}

/// The JSON "files" rows' write errors and bytes, summed.
Sums json_file_sums(const json& doc) {
  Sums s;
  for (const auto& f : doc["files"]) {
    if (!f["syscalls"].contains("write")) continue;
    s.errors += f["syscalls"]["write"]["errors"].get<std::uint64_t>();
    s.bytes += f["syscalls"]["write"]["bytes"].get<std::uint64_t>();
  }
  return s;
}

constexpr std::uint64_t kBriefWrites = 20'000;

TEST(Estimates, SampledErrorsAreMarkedAndAddUpPerFile) {
  TempDir dir;
  const Traced t = trace_failing_writer(dir, false, kBriefWrites);
  ASSERT_FALSE(t.doc.is_discarded());
  ASSERT_GE(t.write_row.size(), 4u);
  const json& w = t.doc["syscalls"]["write"];
  EXPECT_EQ(w["calls"], kBriefWrites);
  EXPECT_EQ(t.write_row[1], "20,000");
  // Either the exact 2 or, marked as an estimate, whatever the sample says; never a plain
  // wrong count. Here the sample times only part of the run: an estimate, marked.
  EXPECT_EQ(w["estimated"], true);
  EXPECT_EQ(w["errors_estimated"], true);
  EXPECT_EQ(w["bytes_estimated"], true);
  EXPECT_EQ(t.write_row[2], "≈" + std::to_string(w["errors"].get<std::uint64_t>()));
  EXPECT_EQ(t.write_row[3].rfind("≈", 0), 0u) << t.write_row[3];
  const Sums files = json_file_sums(t.doc);
  EXPECT_EQ(files.errors, w["errors"].get<std::uint64_t>());
  EXPECT_EQ(files.bytes, w["bytes"].get<std::uint64_t>());
  for (const auto& f : t.doc["files"]) EXPECT_EQ(f["bytes_estimated"], true) << f["path"];
  // Both failures landed in one cell (the closed fd's), whose one timed call failed: the
  // estimate is the truth, but still an estimate.
  EXPECT_EQ(w["errors"], 2u);
}

TEST(Estimates, TimeAllCountsEveryErrorAndByte) {
  TempDir dir;
  const Traced t = trace_failing_writer(dir, true, kBriefWrites);
  ASSERT_FALSE(t.doc.is_discarded());
  ASSERT_GE(t.write_row.size(), 4u);
  const json& w = t.doc["syscalls"]["write"];
  EXPECT_EQ(w["calls"], kBriefWrites);
  EXPECT_EQ(w["timed_calls"], kBriefWrites);
  EXPECT_EQ(w["estimated"], false);
  EXPECT_EQ(w["errors"], 2u);
  EXPECT_EQ(w["errors_estimated"], false);
  EXPECT_EQ(w["bytes"], (kBriefWrites - 2) * kLineBytes);
  EXPECT_EQ(w["bytes_estimated"], false);
  EXPECT_EQ(t.write_row[2], "2");
  EXPECT_EQ(t.write_row[3], "239,976");
  const Sums files = json_file_sums(t.doc);
  EXPECT_EQ(files.errors, 2u);
  EXPECT_EQ(files.bytes, (kBriefWrites - 2) * kLineBytes);
  for (const auto& f : t.doc["files"]) EXPECT_EQ(f["bytes_estimated"], false) << f["path"];
}

}  // namespace
}  // namespace iobench::tracer_test
