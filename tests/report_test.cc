// Expectations, baselines and reporters on plain result values: the parts with no process
// behind them. Their end-to-end behaviour is in cli tests that run iobench.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/error.h"
#include "check/baseline.h"
#include "check/expect.h"
#include "report/baseline_table.h"
#include "report/bench_columns.h"
#include "report/progress.h"
#include "report/reporter.h"

namespace iobench {
namespace {

StrategyResult row(const std::string& name, std::uint64_t calls, std::int64_t median_ns) {
  StrategyResult r;
  r.strategy = name;
  r.bytes = 1088890;
  r.verified = true;
  r.time_ns = summarize({median_ns - 10, median_ns, median_ns + 10});
  r.cpu_ns = summarize({median_ns, median_ns, median_ns});
  r.minor_faults = 100;
  r.write_calls = calls;
  r.syscall_time_ns = median_ns / 2;
  TraceResult t;
  t.available = true;
  t.syscalls["write"] = {calls, 0, 1088890, median_ns / 2};
  r.trace = t;
  return r;
}

RunRecord report(std::vector<StrategyResult> rows) {
  RunRecord rep;
  rep.version = "test";
  rep.build_type = "Release";
  rep.lines = 100000;
  rep.bytes = 1088890;
  rep.dir = "/tmp";
  rep.filesystem = "ext4";
  rep.runs = 3;
  rep.traced = true;
  rep.results = std::move(rows);
  return rep;
}

TEST(Expect, ParsesEveryOperatorAndUnit) {
  Expectation e = parse_expectation("buffered.write_calls<=20");
  EXPECT_EQ(e.strategy, "buffered");
  EXPECT_EQ(e.metric, "write_calls");
  EXPECT_EQ(e.op, CompareOp::kLe);
  EXPECT_EQ(e.value, 20);
  EXPECT_EQ(parse_expectation("write == 1000").op, CompareOp::kEq);
  EXPECT_EQ(parse_expectation("write!=3").op, CompareOp::kNe);
  EXPECT_EQ(parse_expectation("write<3").op, CompareOp::kLt);
  EXPECT_EQ(parse_expectation("write>3").op, CompareOp::kGt);
  EXPECT_EQ(parse_expectation("write>=3").op, CompareOp::kGe);
  EXPECT_EQ(parse_expectation("time_ns<2ms").value, 2e6);
  EXPECT_EQ(parse_expectation("unbuffered-pieces.time_ns<1.5s").value, 1.5e9);
  EXPECT_EQ(parse_expectation("cpu_ns<=250us").value, 250e3);
  EXPECT_EQ(parse_expectation("bytes>=64KiB").value, 65536);
  EXPECT_EQ(parse_expectation("bytes>=1M").value, 1048576);
}

TEST(Expect, ErrorsPointAtTheBadPart) {
  auto message = [](const std::string& text) {
    try {
      parse_expectation(text);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_status(), 2);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("write_calls 20").find("no comparison"), std::string::npos);
  EXPECT_NE(message("write_calls<=").find("no value"), std::string::npos);
  EXPECT_NE(message("<=3").find("nothing before"), std::string::npos);
  EXPECT_NE(message("write_calls<=abc").find("'abc' is not a number"), std::string::npos);
  EXPECT_NE(message("time_ns<2parsecs").find("unknown unit 'parsecs'"), std::string::npos);
  EXPECT_NE(message("write_calls<2ms").find("unit 'ms' does not fit write_calls"),
            std::string::npos);
  EXPECT_NE(message("write_calls=3").find("'=' at position 12"), std::string::npos);
  EXPECT_NE(message("a b.c<3").find("is not a strategy name"), std::string::npos);
  EXPECT_NE(message("write<=3<=4").find("is not a value"), std::string::npos);
}

TEST(Expect, PassesAndFailsExactlyAtTheBoundary) {
  std::vector<StrategyResult> rows = {row("buffered", 17, 2000000),
                                      row("unbuffered", 100000, 56000000)};
  auto check = [&](const std::string& text) {
    auto out = check_expectations({parse_expectation(text)}, rows);
    bool all = true;
    for (auto& o : out) all = all && o.passed;
    return all;
  };
  EXPECT_TRUE(check("buffered.write_calls<=17"));
  EXPECT_FALSE(check("buffered.write_calls<17"));
  EXPECT_TRUE(check("buffered.write_calls==17"));
  EXPECT_TRUE(check("buffered.write==17"));
  EXPECT_TRUE(check("buffered.fsync==0"));
  EXPECT_FALSE(check("write_calls<=17"));  // no strategy: every row, and unbuffered fails
  EXPECT_TRUE(check("write_calls>=17"));
  EXPECT_TRUE(check("buffered.time_ns<2001us"));
  EXPECT_FALSE(check("buffered.time_ns<2ms"));
  EXPECT_TRUE(check("unbuffered.bytes==1088890"));
  auto out = check_expectations({parse_expectation("buffered.write_calls<=20")}, rows);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].line, "PASS buffered.write_calls <= 20 (measured 17)");
  rows[0].write_calls.reset();
  out = check_expectations({parse_expectation("buffered.write_calls<=20")}, rows);
  EXPECT_EQ(out[0].line, "FAIL buffered.write_calls <= 20 (not measured: not traced)");
}

// Past 2^53 a double has no room for every count: 2^53 + 1 would equal 2^53.
TEST(Expect, CountsCompareAsIntegers) {
  const std::vector<StrategyResult> rows = {row("buffered", (1ULL << 53) + 1, 2000000)};
  const auto line = [&](const std::string& text) {
    return check_expectations({parse_expectation(text)}, rows).at(0).line;
  };
  EXPECT_EQ(line("write_calls==9007199254740992"),
            "FAIL buffered.write_calls == 9007199254740992 (measured 9007199254740993)");
  EXPECT_EQ(line("write_calls>9007199254740992"),
            "PASS buffered.write_calls > 9007199254740992 (measured 9007199254740993)");
  EXPECT_EQ(line("write_calls<18446744073709551615"),
            "PASS buffered.write_calls < 18446744073709551615 (measured 9007199254740993)");
}

TEST(Baseline, RoundTripMatchesAndARegressionIsNamed) {
  RunRecord before = report({row("buffered", 17, 2000000)});
  Baseline b = parse_baseline(render_json(before), "mem");
  EXPECT_FALSE(compare_with_baseline(b, before, {}).regressed());

  // Timing noise within the tolerance is fine.
  RunRecord noisy = report({row("buffered", 17, 2400000)});
  EXPECT_FALSE(compare_with_baseline(b, noisy, {}).regressed());
  // A count regression (buffer 64 KiB -> 1 KiB) is caught and named, with the config change.
  RunRecord worse = report({row("buffered", 1064, 2100000)});
  worse.params.buffer_size = 1024;
  BaselineComparison cmp = compare_with_baseline(b, worse, {});
  EXPECT_TRUE(cmp.regressed());
  ASSERT_EQ(cmp.config_changes.size(), 1u);
  EXPECT_EQ(cmp.config_changes[0], "buffer_size 65536 → 1024");
  std::string text = render_comparison(cmp);
  EXPECT_NE(text.find("buffered.write_calls"), std::string::npos) << text;
  EXPECT_NE(text.find("REGRESSION"), std::string::npos) << text;
  // ...unless the tolerance allows it.
  EXPECT_FALSE(compare_with_baseline(b, worse, {.count_tolerance = 2000}).regressed());
  // Too slow is a regression too.
  EXPECT_TRUE(compare_with_baseline(b, report({row("buffered", 17, 3000000)}), {}).regressed());
}

// Fewer calls failed as a regression did; now an improvement passes, unless the counts
// are exact (the flag, or the baseline's own exact_counts), and within the tolerance it is
// no change at all.
TEST(Baseline, FewerCallsAreAnImprovementThatFailsOnlyWithExactCounts) {
  Baseline b = parse_baseline(render_json(report({row("buffered", 17, 2000000)})), "mem");
  const RunRecord better = report({row("buffered", 10, 2000000)});
  const BaselineComparison cmp = compare_with_baseline(b, better, {});
  EXPECT_FALSE(cmp.regressed());
  EXPECT_TRUE(cmp.improved());
  EXPECT_FALSE(cmp.failed());
  EXPECT_NE(render_comparison(cmp).find("-7  improved\n"), std::string::npos)
      << render_comparison(cmp);
  const BaselineComparison exact = compare_with_baseline(
      b, better, {.count_tolerance = std::nullopt, .time_tolerance = 0.25, .exact_counts = true});
  EXPECT_TRUE(exact.failed());
  EXPECT_FALSE(exact.regressed());
  EXPECT_NE(render_comparison(exact).find("-7  CHANGED\n"), std::string::npos)
      << render_comparison(exact);
  b.exact_counts = true;
  EXPECT_TRUE(compare_with_baseline(b, better, {}).failed()) << "the baseline's own setting";
  const BaselineComparison within = compare_with_baseline(b, better, {.count_tolerance = 7});
  EXPECT_FALSE(within.improved());
  EXPECT_FALSE(within.failed());
}

TEST(Baseline, NotComparableIsAnErrorNeverASilentComparison) {
  Baseline b = parse_baseline(render_json(report({row("buffered", 17, 2000000)})), "mem");
  RunRecord other_n = report({row("buffered", 17, 2000000)});
  other_n.lines = 1000;
  EXPECT_THROW(compare_with_baseline(b, other_n, {}), Error);
  EXPECT_THROW(compare_with_baseline(b, report({row("writev", 98, 5000000)}), {}), Error);
  EXPECT_THROW(parse_baseline("{", "mem"), Error);
  EXPECT_THROW(parse_baseline(R"({"schema":"other"})", "mem"), Error);
  EXPECT_THROW(parse_baseline(R"({"schema":"iobench/1","config":{}})", "mem"), Error);
}

TEST(Reporters, CsvParsesBackWithOneRowPerStrategy) {
  RunRecord rep = report({row("buffered", 17, 2000000), row("unbuffered", 100000, 56000000)});
  rep.results[1].error = "a, \"quoted\" error";
  std::istringstream in(render_csv(rep, {}));
  std::string header, line;
  std::getline(in, header);
  const auto columns = std::count(header.begin(), header.end(), ',') + 1;
  int rows = 0;
  while (std::getline(in, line)) {
    // Count fields outside quotes.
    int fields = 1;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) ++fields;
    }
    EXPECT_EQ(fields, columns) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 2);
  EXPECT_NE(render_csv(rep, {}).find("buffered,ok,,100000,1088890,true,3,2000000,"),
            std::string::npos);
}

// With --dir A,B the rows of both runs are in one file: each says where it wrote.
TEST(Reporters, CsvRowsSayWhichDirectoryAndFilesystem) {
  RunRecord rep = report({row("buffered", 17, 2000000), row("buffered", 17, 3000000)});
  rep.results[0].dir = "/tmp", rep.results[0].filesystem = "ext4";
  rep.results[1].dir = "/mnt/a,b", rep.results[1].filesystem = "tmpfs";
  const std::string csv = render_csv(rep, {});
  EXPECT_NE(csv.find(",major_faults,write_calls,syscall_time_ns,dir,filesystem,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",/tmp,ext4,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",\"/mnt/a,b\",tmpfs,"), std::string::npos) << csv;
}

TEST(Reporters, MarkdownIsATableWithOneRowPerStrategy) {
  RunRecord rep = report({row("buffered", 17, 2000000), row("unbuffered", 100000, 56000000)});
  std::string md = render_markdown(rep, {});
  std::istringstream in(md);
  std::string line;
  int table_rows = 0;
  std::size_t pipes = 0;
  while (std::getline(in, line)) {
    if (line.rfind('|', 0) != 0) continue;
    auto n = static_cast<std::size_t>(std::count(line.begin(), line.end(), '|'));
    if (pipes == 0) pipes = n;
    EXPECT_EQ(n, pipes) << line;
    ++table_rows;
  }
  EXPECT_EQ(table_rows, 4);  // header, rule, two rows
  EXPECT_NE(md.find("| `buffered` | 17 |"), std::string::npos) << md;
}

/// Each CSV row as its header's key -> the cell (no quoted commas in these rows).
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& csv) {
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::istringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    return cells;
  };
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> keys = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line);
    EXPECT_EQ(cells.size(), keys.size()) << line;
    auto& row = rows.emplace_back();
    for (std::size_t i = 0; i < keys.size() && i < cells.size(); ++i) row[keys[i]] = cells[i];
  }
  return rows;
}

// A figure that was not measured is an empty cell, as JSON's null, never 0: --count-only
// takes no times (the tally's are 0), --no-trace no counts.
TEST(Reporters, CsvLeavesAnUnmeasuredFigureEmpty) {
  RunRecord rep = report({row("buffered", 17, 2000000), row("unbuffered", 100000, 56000000)});
  auto rows = csv_rows(render_csv(rep, {}));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["syscall_time_ns"], "1000000");
  EXPECT_EQ(rows[0]["write_calls"], "17");
  rep.trace_mode = TraceMode::kCount;
  for (auto& r : rep.results) r.trace->mode = TraceMode::kCount, r.syscall_time_ns = 0;
  rows = csv_rows(render_csv(rep, {}));
  EXPECT_EQ(rows[0]["syscall_time_ns"], "");
  EXPECT_EQ(rows[0]["syscall_share"], "");
  EXPECT_EQ(rows[0]["write_calls"], "17");
  rep.traced = false;
  for (auto& r : rep.results) r.trace.reset(), r.write_calls.reset(), r.syscall_time_ns.reset();
  rows = csv_rows(render_csv(rep, {}));
  for (const char* key : {"write_calls", "syscall_time_ns", "syscall_share", "bytes_per_call"})
    EXPECT_EQ(rows[0][key], "") << key;
  EXPECT_EQ(rows[0]["time_median_ns"], "2000000");  // the untraced runs' times stay
}

// Markdown and CSV draw the table's columns: every column but a bar (or a glyph) is a
// Markdown header, in the table's order, and every plain value a CSV key.
TEST(Reporters, MarkdownAndCsvCarryTheTablesColumns) {
  RunRecord rep = report({row("buffered", 17, 2000000), row("unbuffered", 100000, 56000000)});
  const Presentation pres{.latency = true};
  const std::vector<ResultRow> rows = bench_rows(rep, pres, true);
  const std::string table = render_table(rep, pres), md = render_markdown(rep, pres),
                    csv = render_csv(rep, pres);
  const std::size_t md_start = md.find("\n| ") + 1;
  const std::string md_header = md.substr(md_start, md.find("\n|:") - md_start);
  const std::string csv_header = csv.substr(0, csv.find('\n')) + ",";  // every key ends in ,
  std::size_t at = 0, shown = 0, keys = 0;
  for (const auto& col : bench_columns(rep, pres, rows)) {
    for (const auto& f : col.fields) {
      EXPECT_NE(csv_header.find(f.key + ","), std::string::npos) << f.key;
      EXPECT_EQ(csv_header.find("," + f.key + ","), csv_header.rfind("," + f.key + ","));
      ++keys;
    }
    if (col.head.bar_width > 0) continue;
    EXPECT_NE(table.find(col.head.title), std::string::npos) << col.head.title;
    const std::size_t found = md_header.find(col.head.title, at);
    EXPECT_NE(found, std::string::npos) << col.head.title << " after " << at << ": " << md_header;
    at = found;
    ++shown;
  }
  EXPECT_EQ(static_cast<std::size_t>(std::count(md_header.begin(), md_header.end(), '|')),
            shown + 1)
      << md_header;
  // The table's columns, and the row facts it shows elsewhere: lines, verified, dir, filesystem.
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv_header.begin(), csv_header.end(), ',')),
            keys + 4)
      << csv_header;
  EXPECT_NE(md_header.find("| vs unbuffered |"), std::string::npos) << md_header;
  EXPECT_NE(md_header.find("| % of time |"), std::string::npos) << md_header;
  EXPECT_EQ(csv_header.rfind(
                "strategy,status,error,lines,bytes,verified,runs,time_median_ns,time_mean_ns,"
                "time_stddev_ns,time_min_ns,time_max_ns,cpu_median_ns,minor_faults,major_faults,"
                "write_calls,syscall_time_ns,dir,filesystem,",
                0),
            0u)
      << csv_header;
}

TEST(Reporters, UnitsForPeople) {
  EXPECT_EQ(format_count(1088890), "1,088,890");
  EXPECT_EQ(format_count(17), "17");
  EXPECT_EQ(format_duration(950), "950 ns");
  EXPECT_EQ(format_duration(2.04e6), "2.04 ms");
  EXPECT_EQ(format_bytes(65536), "64.0 KiB");
}

/// What `write` puts on stderr, read back from a file in place of fd 2.
template <typename Write>
std::string stderr_of(Write write) {
  char path[] = "/tmp/iobench-notice-XXXXXX";
  const int fd = ::mkstemp(path);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(fd, STDERR_FILENO);
  write();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(fd);
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::unlink(path);
  return text;
}

// The runner's notices carry names as the bytes they are (a compare -n name, a --dir path);
// on stderr each is one escaped line, a warning or the kept file.
TEST(Notices, EachIsOneEscapedLineOnStderr) {
  const std::string err = stderr_of([] {
    Progress progress(false);  // stderr is no terminal: no progress line to step around
    const NoticeSink sink = progress.notices();
    sink({RunNotice::Kind::kWarning, "timings of a\nb\x1b[2J vary"});
    sink({RunNotice::Kind::kKept, "/tmp/out\tfile"});
  });
  EXPECT_EQ(err,
            "iobench: warning: timings of a\\nb\\x1b[2J vary\n"
            "kept: /tmp/out\\tfile\n");
}

}  // namespace
}  // namespace iobench

namespace iobench {
namespace {
// Issue 23 item 7: the heading names the options given that differ from their defaults.
TEST(Reporters, HeadingNamesTheNonDefaultOptions) {
  RunRecord rep = report({row("buffered", 17, 2000000)});
  EXPECT_EQ(render_table(rep, {}).find("options:"), std::string::npos);
  rep.options = {"--line-length 128", "--sync every:4"};
  EXPECT_NE(render_table(rep, {}).find("\noptions: --line-length 128 --sync every:4\n"),
            std::string::npos)
      << render_table(rep, {});
}
}  // namespace
}  // namespace iobench
