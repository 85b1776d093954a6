// Golden files for every text the reporters draw from fixed values: the strategies' table
// (colour, narrow terminals, latency columns, notes, compare, live, failures), the sweep
// table, the trace table, Markdown and CSV, the gnuplot scripts and the baseline
// comparison. They pin the bytes, so a refactoring of the renderers can prove it changed none.
//
// After an intended change of output: IOBENCH_UPDATE_GOLDEN=1 build/tests/core_test
// --gtest_filter='RenderGolden.*' rewrites tests/golden/render/, and the diff is reviewed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "check/baseline.h"
#include "report/baseline_table.h"
#include "report/dirs.h"
#include "report/plot.h"
#include "report/reporter.h"
#include "report/sweep_report.h"
#include "run_process.h"
#include "sample_report.h"

namespace iobench {
namespace {

using testing::sample_report;
using testing::sample_row;

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(GOLDEN_DIR) + "/render/" + name + ".txt";
  if (std::getenv("IOBENCH_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  const std::string golden = testing::slurp(path);
  ASSERT_FALSE(golden.empty()) << path << " is missing";
  EXPECT_EQ(actual, golden) << "differs from " << path;
}

LatencySummary latency(std::int64_t p50, std::int64_t p99, std::int64_t max) {
  LatencySummary l;
  l.p50 = p50, l.p90 = p50, l.p99 = p99, l.p999 = max, l.max = max;
  l.cdf = {{p50 / 2, 0.1}, {p50, 0.5}, {p99, 0.99}, {max, 1.0}};
  return l;
}

StrategyResult failed_row(const std::string& name, ResultStatus status, const std::string& why) {
  StrategyResult r;
  r.strategy = name;
  r.status = status;
  r.error = why;
  return r;
}

/// The sample with every footnote a row can cause: a sampled time, a lost one, a share the
/// correction could not give.
RunRecord report_with_notes() {
  RunRecord rep = sample_report();
  rep.results[0].timed_calls = 4000;             // unbuffered: 4,000 of 100,000 timed
  rep.results[2].syscall_time_ci95_ns = 900000;  // stdio: interval holds zero
  rep.results[3].syscall_share.reset();          // buffered: share not trusted
  rep.results[3].trace->ptrace.emplace().seccomp = true;
  return rep;
}

TEST(RenderGolden, StrategiesTable) {
  const RunRecord rep = sample_report();
  expect_golden("table_color", render_table(rep, {.color = true}));
  for (std::size_t width : {60, 80, 100})
    expect_golden("table_width_" + std::to_string(width), render_table(rep, {.columns = width}));
  expect_golden("table_live", render_table(rep, {.live = true}));
  expect_golden("table_notes", render_table(report_with_notes(), {}));
  expect_golden("table_notes_70_color",
                render_table(report_with_notes(), {.color = true, .columns = 70}));
}

TEST(RenderGolden, StrategiesTableWithLatencyAndOrder) {
  RunRecord rep = sample_report();
  Presentation pres{.latency = true, .sort = SortOrder::kTime};
  rep.results[0].latency = latency(420, 2100, 95000);
  rep.results[3].latency = latency(8100, 31000, 410000);
  rep.results.push_back(failed_row("io_uring-sqpoll", ResultStatus::kUnsupported, "no ring"));
  expect_golden("table_latency_by_time", render_table(rep, pres));
  pres.sort = SortOrder::kSyscalls;
  pres.columns = 90;
  expect_golden("table_latency_by_calls_90", render_table(rep, pres));
}

TEST(RenderGolden, CompareUntracedFailedAndDirs) {
  RunRecord rep = sample_report();
  rep.commands = {{"writer_a", "./writer a"}, {"writer_b", "./writer b"}, {"hang", "sleep 9"}};
  rep.results = {sample_row("writer_a", 1000, {3000000, 3100000, 2900000}, 900000, 12),
                 sample_row("writer_b", 10, {1000000, 1200000, 1100000}, 20000, 10),
                 failed_row("hang", ResultStatus::kTimeout, "killed after 1 s")};
  rep.runs.reset();  // --runs auto: the count comes from the samples
  rep.pinned = false;
  expect_golden("table_compare", render_table(rep, {}));

  rep = sample_report();
  rep.traced = false;
  for (auto& r : rep.results) {
    r.trace.reset();
    r.write_calls.reset();
    r.syscall_time_ns.reset();
    r.syscall_share.reset();
  }
  expect_golden("table_untraced", render_table(rep, {}));

  rep = sample_report();
  rep.results = {failed_row("unbuffered", ResultStatus::kFailed, "short write"),
                 failed_row("io_uring", ResultStatus::kUnsupported, "io_uring_setup: EPERM")};
  expect_golden("table_all_failed", render_table(rep, {}));

  rep = sample_report();
  for (std::size_t i = 0; i < rep.results.size(); ++i) {
    rep.results[i].dir = i % 2 ? "/dev/shm" : "/tmp";
    rep.results[i].filesystem = i % 2 ? "tmpfs" : "ext4";
  }
  expect_golden("table_two_dirs", render_by_dir(OutputFormat::kTable, rep, {}));
  expect_golden("plot_two_dirs", comparison_plot_script(rep, {}));
}

/// The sample as --count-only leaves it: counts, and no times (the tally's are 0).
RunRecord count_only_report() {
  RunRecord rep = sample_report();
  rep.trace_mode = TraceMode::kCount;
  for (auto& r : rep.results) {
    if (!r.trace) continue;
    r.trace->mode = TraceMode::kCount;
    r.syscall_time_ns = 0;
    r.syscall_share.reset();
  }
  return rep;
}

// Markdown and CSV of the same rows as the table's golden files: the other formats' bytes.
TEST(RenderGolden, MarkdownAndCsv) {
  RunRecord rep = sample_report();
  Presentation pres;
  expect_golden("markdown", render_markdown(rep, pres));
  expect_golden("csv", render_csv(rep, pres));
  rep = count_only_report();
  expect_golden("markdown_count_only", render_markdown(rep, pres));
  expect_golden("csv_count_only", render_csv(rep, pres));
  rep = sample_report();
  rep.traced = false;
  for (auto& r : rep.results) {
    r.trace.reset();
    r.write_calls.reset();
    r.syscall_time_ns.reset();
    r.syscall_share.reset();
  }
  expect_golden("markdown_untraced", render_markdown(rep, pres));
  expect_golden("csv_untraced", render_csv(rep, pres));
  rep = sample_report();
  pres.latency = true;
  rep.results[0].latency = latency(420, 2100, 95000);
  rep.results[3].latency = latency(8100, 31000, 410000);
  expect_golden("markdown_latency", render_markdown(rep, pres));
  expect_golden("csv_latency", render_csv(rep, pres));
  pres.latency = false;
  rep = sample_report();
  rep.commands = {{"writer_a", "./writer a"}, {"writer_b", "./writer b"}, {"hang", "sleep 9"}};
  rep.results = {sample_row("writer_a", 1000, {3000000, 3100000, 2900000}, 900000, 12),
                 sample_row("writer_b", 10, {1000000, 1200000, 1100000}, 20000, 10),
                 failed_row("hang", ResultStatus::kTimeout, "killed after 1 s")};
  expect_golden("markdown_compare", render_markdown(rep, pres));
  expect_golden("csv_compare", render_csv(rep, pres));
  rep = sample_report();
  for (std::size_t i = 0; i < rep.results.size(); ++i) {
    rep.results[i].dir = i % 2 ? "/dev/shm" : "/tmp";
    rep.results[i].filesystem = i % 2 ? "tmpfs" : "ext4";
  }
  expect_golden("markdown_two_dirs", render_by_dir(OutputFormat::kMarkdown, rep, pres));
  expect_golden("csv_two_dirs", render_by_dir(OutputFormat::kCsv, rep, pres));
}

SweepReport sweep(const std::string& flag, const std::string& parameter, bool sizes,
                  const std::vector<std::uint64_t>& values,
                  const std::vector<std::int64_t>& medians) {
  SweepReport rep;
  rep.base = sample_report();
  rep.base.results.clear();
  rep.strategy = "buffered";
  rep.flag = flag;
  rep.parameter = parameter;
  rep.sizes = sizes;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t t = medians[i];
    const std::uint64_t calls = 1088890 / (values[i] ? values[i] : 1) + 1;
    rep.points.push_back(
        {values[i], sample_row("buffered", calls, {t, t + t / 20, t - t / 25}, t / 5, 40 + i)});
  }
  rep.knee = find_knee(rep.points);
  return rep;
}

SweepReport buffer_sweep() {
  SweepReport rep = sweep("--buffer-size", "buffer_size", true, {512, 4096, 65536, 1048576},
                          {9000000, 1500000, 790000, 760000});
  rep.points[2].result.timed_calls = 5;  // sampled
  SweepPoint failed{2097152, failed_row("buffered", ResultStatus::kFailed, "ENOMEM")};
  rep.points.push_back(failed);
  return rep;
}

TEST(RenderGolden, SweepTable) {
  SweepReport rep = buffer_sweep();
  expect_golden("sweep_buffer_size", render_sweep_table(rep, {}));
  expect_golden("sweep_buffer_size_plot", sweep_plot_script(rep));
  rep.points[1].result.syscall_time_ci95_ns = 10000000;  // lost
  rep.points[3].result.syscall_share.reset();            // untrusted
  expect_golden("sweep_buffer_size_80_color_notes",
                render_sweep_table(rep, {.color = true, .columns = 80}));

  rep =
      sweep("--buffer-size", "buffer_size", true, {1024, 2048, 4096}, {4000000, 2000000, 1000000});
  expect_golden("sweep_no_knee", render_sweep_table(rep, {}));
  rep = sweep("--lines", "lines", false, {1000, 10000, 100000}, {60000, 520000, 5100000});
  expect_golden("sweep_lines", render_sweep_table(rep, {}));
  expect_golden("sweep_lines_plot", sweep_plot_script(rep));
  rep = sweep("--line-length", "line_length", false, {0, 64, 4096}, {800000, 900000, 3000000});
  rep.points[1].result.bytes = 6500000;
  rep.points[2].result.bytes = 409600000;
  expect_golden("sweep_line_length", render_sweep_table(rep, {}));
  expect_golden("sweep_line_length_plot", sweep_plot_script(rep));
  rep = sweep("--queue-depth", "queue_depth", false, {1, 8}, {1, 1});
  for (auto& p : rep.points) p.result = failed_row("io_uring", ResultStatus::kUnsupported, "no");
  rep.knee.reset();
  expect_golden("sweep_all_failed", render_sweep_table(rep, {}));
}

SyscallStats syscall(std::uint64_t calls, std::uint64_t bytes, std::int64_t ns, std::uint64_t timed,
                     std::int64_t ci95) {
  SyscallStats s;
  s.calls = calls;
  s.bytes = bytes;
  s.time_ns = ns;
  s.timed_calls = timed;
  s.time_ci95_ns = ci95;
  return s;
}

TraceRecord trace_report() {
  TraceRecord rep;
  rep.command = {"./writer", "out"};
  TraceResult& t = rep.trace;
  t.available = true;
  t.ptrace.emplace().overhead_ns = 3600;
  t.wall_ns = 12500000;
  t.syscalls["write"] = syscall(1000, 64000, 4200000, 100, 300000);  // sampled
  t.syscalls["write"].latency = latency(3900, 8800, 120000);
  t.syscalls["write"].errors = 2;
  t.syscalls["openat"] = syscall(3, 0, 45000, 3, 1000);
  t.syscalls["fsync"] = syscall(1, 0, 900, 1, 2000);  // uncertain: "—"
  t.syscalls["pwrite64"] = syscall(2, 8192, 0, 2, 0);
  FileStats f;
  f.path = "/tmp/out";
  f.syscalls["write"] = t.syscalls["write"];
  f.syscalls["fsync"] = t.syscalls["fsync"];
  t.files.push_back(f);
  FileStats pipe;
  pipe.path = "pipe:[1234]";
  pipe.syscalls["fsync"] = t.syscalls["fsync"];
  t.files.push_back(pipe);
  // One named (with its file), one a backend could not name.
  t.processes.push_back({4001,
                         {{"write", t.syscalls["write"]}},
                         "tar",
                         {FileStats{"/tmp/out", {{"write", t.syscalls["write"]}}}}});
  ProcessStats unnamed;
  unnamed.pid = 4002;
  unnamed.syscalls = {{"openat", t.syscalls["openat"]}};
  t.processes.push_back(unnamed);
  return rep;
}

TEST(RenderGolden, TraceTable) {
  TraceRecord rep = trace_report();
  expect_golden("trace_timing", render_trace_table(rep));
  rep.per_process = true;
  expect_golden("trace_per_process", render_trace_table(rep));
  rep = trace_report();
  rep.trace.mode = TraceMode::kCount;
  expect_golden("trace_count", render_trace_table(rep));
  rep.trace.backend = "perf";
  rep.trace.files.clear();
  expect_golden("trace_perf", render_trace_table(rep));
  rep.trace = TraceResult{};
  rep.trace.unavailable_reason = "ptrace: Operation not permitted";
  expect_golden("trace_unavailable", render_trace_table(rep));
}

TEST(RenderGolden, PlotScripts) {
  RunRecord rep = sample_report();
  expect_golden("plot_comparison", comparison_plot_script(rep, {}));
  rep.results[0].latency = latency(420, 2100, 95000);
  rep.results[3].latency = latency(8100, 31000, 410000);
  expect_golden("plot_latency", latency_plot_script(rep, {}));
  rep.commands = {{"a b", "a"}};
  rep.results.resize(2);
  expect_golden("plot_compare", comparison_plot_script(rep, {}));
  expect_golden("plot_latency_empty", latency_plot_script(RunRecord{}, {}));
}

TEST(RenderGolden, BaselineComparison) {
  RunRecord before = sample_report();
  before.results.pop_back();  // the failed row: a baseline of rows that ran
  const Baseline b = parse_baseline(render_json(before), "mem");
  RunRecord after = before;
  after.params.buffer_size = 1024;
  after.results[3].write_calls = 1064;
  after.results[3].time_ns = summarize({990000, 1000000, 1010000});
  after.results[4].status = ResultStatus::kFailed;
  after.results[4].trace->syscalls["write"] = syscall(7, 70, 0, 0, 0);
  expect_golden("baseline_comparison", render_comparison(compare_with_baseline(b, after, {})));
}

}  // namespace
}  // namespace iobench
