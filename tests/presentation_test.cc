// The presentation, as an audience sees it: the table, its summary and footnotes, the noise
// line, colour only where it belongs and the progress line. Charts are in
// presentation_plot_test.cc; sweeps and `iobench compare` in presentation_commands_test.cc.
// Fast on purpose: small N, one run, no warm-up.
#include "presentation_test.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <regex>
#include <sstream>

#include "report/grid.h"
#include "report/noise_note.h"
#include "report/progress.h"
#include "report/reporter.h"
#include "report/sweep_report.h"
#include "report/table_parts.h"
#include "run_process.h"
#include "wait_for.h"

namespace iobench {
namespace {

using testing::every_strategy;
using testing::iobench;
using testing::iobench_env;
using testing::iobench_on_terminal;
using testing::ProcessOutput;
using testing::row;
using testing::ScratchDir;
using testing::slurp;
using testing::widest_line;

bool has_escape(const std::string& s) { return s.find('\x1b') != std::string::npos; }

// ---- the summary's arithmetic ----

TEST(Summary, RatioOfMediansWithAnIntervalOnTheLogOfTheRatio) {
  StrategyResult fast = row("buffered", 17, {9, 10, 11});
  StrategyResult slow = row("unbuffered", 100000, {270, 280, 290});
  Speedup s = speedup(fast, slow);
  EXPECT_DOUBLE_EQ(s.ratio, 28.0);
  // Each median's relative standard error, 1.2533 · (1.4826 · MAD / median) / √n, added in
  // quadrature on the log scale: MAD 1 of 10 and 10 of 280, three runs each.
  auto se = [](double mad, double median) {
    return 1.2533 * 1.4826 * mad / median / std::sqrt(3.0);
  };
  const double sigma = std::hypot(se(1, 10), se(10, 280));
  EXPECT_NEAR(s.log_sigma, sigma, 1e-12);
  EXPECT_NEAR(s.low, 28.0 * std::exp(-sigma), 1e-9);
  EXPECT_NEAR(s.high, 28.0 * std::exp(sigma), 1e-9);
  EXPECT_NEAR(s.low * s.high, 28.0 * 28.0, 1e-9);  // a factor each way
  EXPECT_NE(render_summary({&slow, false, {s}}, false)
                .find("buffered ran 28.00 (24.99–31.38) times faster than unbuffered\n"),
            std::string::npos)
      << render_summary({&slow, false, {s}}, false);
  // One run each: no spread, no interval.
  const Speedup single = speedup(row("a", 1, {10}), row("b", 1, {280}));
  EXPECT_EQ(single.log_sigma, 0);
  EXPECT_EQ(single.low, single.high);
}

TEST(Summary, AWildlyNoisyRowNeverGivesAnIntervalBelowZero) {
  // hyperfine's ratio ± σ read "34.78 ± 41.37" for rows like these.
  const Speedup s = speedup(row("writev", 98, {1, 2, 40, 3, 90, 2, 1}),
                            row("unbuffered", 100000, {60, 70, 500, 65, 62, 900, 64}));
  EXPECT_GT(s.low, 0);
  EXPECT_LT(s.low, s.ratio);
  EXPECT_GT(s.high, s.ratio);
}

// ---- the noise line after the table ----

TEST(NoiseNote, AQuietRunSaysNothing) { EXPECT_EQ(noise_note(every_strategy()), ""); }

TEST(NoiseNote, NoisyNeighboursCloserThanTheirNoiseAreNamedWithTheTablesSpread) {
  RunRecord rep = every_strategy();
  // stdio (4.1 ms) and writev (4.8 ms): noisy enough that their order may be chance.
  rep.results[2] = row("stdio", 266, {3'000'000, 4'100'000, 5'600'000, 4'000'000, 5'900'000});
  rep.results[4] = row("writev", 98, {4'200'000, 4'800'000, 5'500'000, 3'900'000, 6'000'000});
  ASSERT_TRUE(rep.results[2].noisy);
  EXPECT_EQ(noise_note(rep),
            "timings too noisy to rank stdio (±40%) against writev (±22%): the machine may be "
            "busy; more --runs or a quieter machine would tell\n");
}

TEST(NoiseNote, ANoisyRowFarFromEveryOtherChangesNoConclusion) {
  RunRecord rep = every_strategy();
  // unbuffered-pieces varies by ±18% but is three times slower than its neighbour.
  rep.results[1] = row("unbuffered-pieces", 300000,
                       {120'000'000, 171'000'000, 220'000'000, 150'000'000, 190'000'000});
  ASSERT_TRUE(rep.results[1].noisy);
  EXPECT_EQ(noise_note(rep), "");
}

TEST(NoiseNote, AQuietNearTieIsARealTieNotNoise) {
  RunRecord rep = every_strategy();
  rep.results[4] = row("writev", 98, {4'000'000, 4'100'000, 4'200'000});  // stdio's times
  EXPECT_EQ(noise_note(rep), "");
}

TEST(NoiseNote, NoisyRowsWithinTenPercentAreATieNotNoise) {
  RunRecord rep = every_strategy();
  rep.results[2] = row("stdio", 266, {3'000'000, 4'100'000, 5'600'000, 4'000'000, 5'900'000});
  rep.results[4] = row("writev", 98, {3'100'000, 4'450'000, 5'500'000, 3'900'000, 6'000'000});
  ASSERT_TRUE(rep.results[2].noisy);
  ASSERT_LT(rep.results[4].time_ns.median / rep.results[2].time_ns.median, 1.10);
  ASSERT_GT(rep.results[4].time_ns.median / rep.results[2].time_ns.median, 1.05);
  EXPECT_EQ(noise_note(rep), "");
}

TEST(NoiseNote, TwoDirectoriesEachNameTheirOwn) {
  RunRecord rep;
  for (const char* dir : {"/a", "/b"}) {
    for (StrategyResult r :
         {row("stdio", 266, {3'000'000, 4'100'000, 5'600'000, 4'000'000, 5'900'000}),
          row("writev", 98, {4'200'000, 4'800'000, 5'500'000, 3'900'000, 6'000'000})}) {
      r.dir = dir;
      rep.results.push_back(r);
    }
  }
  const std::string note = noise_note(rep);
  EXPECT_NE(
      note.find(
          "stdio (±40%) against writev (±22%) in /a; stdio (±40%) against writev (±22%) in /b:"),
      std::string::npos)
      << note;
  EXPECT_EQ(std::count(note.begin(), note.end(), '\n'), 1) << "one line";
}

TEST(NoiseNote, ASweepNamesTheValues) {
  SweepReport rep;
  rep.strategy = "buffered";
  rep.flag = "--buffer-size";
  rep.parameter = "buffer_size";
  rep.sizes = true;
  rep.points = {
      {1024, row("buffered", 1000, {9'000'000, 10'000'000, 11'000'000})},
      {4096, row("buffered", 250, {3'000'000, 4'100'000, 5'600'000, 4'000'000, 5'900'000})},
      {8192, row("buffered", 125, {4'200'000, 4'800'000, 5'500'000, 3'900'000, 6'000'000})}};
  const std::string note = sweep_noise_note(rep, false);
  EXPECT_NE(note.find("rank buffered --buffer-size 4 KiB (±40%) against 8 KiB (±22%):"),
            std::string::npos)
      << note;
  EXPECT_EQ(note.find("1 KiB"), std::string::npos) << note;
}

TEST(Summary, EachStrategyAgainstUnbufferedFastestFirstWithoutFormatOnly) {
  RunRecord rep = every_strategy();
  Comparison c = compare_rows(rep);
  ASSERT_NE(c.reference, nullptr);
  EXPECT_EQ(c.reference->strategy, "unbuffered");
  EXPECT_TRUE(c.against_naive);
  ASSERT_EQ(c.lines.size(), 7u);  // nine rows less unbuffered and format-only
  EXPECT_EQ(c.lines.front().faster->strategy, "buffered");
  EXPECT_EQ(c.lines.back().faster->strategy, "unbuffered");  // it beats unbuffered-pieces
  EXPECT_EQ(c.lines.back().slower->strategy, "unbuffered-pieces");
  std::string text = render_summary(c, false);
  EXPECT_NE(text.find("  buffered ran 28.50 ("), std::string::npos) << text;
  EXPECT_NE(text.find(" times faster than unbuffered\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("format-only ran"), std::string::npos) << text;
}

TEST(Summary, WithoutUnbufferedTheFastestAgainstEachSlowerOne) {
  RunRecord rep = every_strategy();
  rep.results.erase(rep.results.begin());
  Comparison c = compare_rows(rep);
  EXPECT_FALSE(c.against_naive);
  EXPECT_EQ(c.reference->strategy, "buffered");
  for (const auto& s : c.lines) EXPECT_EQ(s.faster->strategy, "buffered");
}

// ---- the table ----

TEST(Table, FitsAProjectorWithBarsFootnotesAndProvenance) {
  RunRecord rep = every_strategy();
  std::string t = render_table(rep, {});
  EXPECT_LE(widest_line(t), 120u) << t;
  EXPECT_FALSE(has_escape(t));
  EXPECT_NE(t.find("100,000 █"), std::string::npos) << "a calls bar beside the count\n" << t;
  EXPECT_NE(t.find("Summary"), std::string::npos);
  EXPECT_NE(t.find("mmap: no write calls"), std::string::npos) << t;
  EXPECT_NE(t.find("306 page faults"), std::string::npos) << t;
  EXPECT_NE(t.find("io_uring: its 1 write call is io_uring_enter"), std::string::npos) << t;
  EXPECT_NE(t.find("CPU 5.00 ms exceeds its 2.50 ms wall time"), std::string::npos) << t;
  EXPECT_NE(t.find("stdio: glibc's FILE buffer, the file's st_blksize: 4.0 KiB here, so about 266 "
                   "write calls (bytes / 4096)."),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("format-only: the floor"), std::string::npos) << t;
  EXPECT_NE(t.find("median of 3 untraced runs per strategy"), std::string::npos) << t;
  EXPECT_NE(t.find("ptrace + seccomp"), std::string::npos) << t;
  EXPECT_NE(t.find("28.5× faster"), std::string::npos) << t;
  EXPECT_NE(t.find("3.00× slower"), std::string::npos) << t;
}

TEST(Table, BriefIsHeadingTableAndSummaryAndOneLineNotesAreCut) {
  const RunRecord rep = every_strategy();
  const std::string full = render_table(rep, {.columns = 80});
  const std::string brief = render_table(rep, {.columns = 80, .notes = Notes::kNone});
  const std::string short_notes = render_table(rep, {.columns = 80, .notes = Notes::kOneLine});
  const auto head = [&](const std::string& t) {
    return t.substr(0, t.find("\n\n", t.find("Summary")));
  };
  EXPECT_EQ(brief, head(full) + "\n") << "the heading, the table and the summary as ever";
  EXPECT_EQ(brief.find("mmap: no write calls"), std::string::npos) << brief;
  EXPECT_EQ(brief.find("median of 3 untraced runs"), std::string::npos) << brief;
  EXPECT_EQ(head(short_notes), head(full));
  // Every note and provenance entry there, each on one line, cut with "…" where it went on.
  EXPECT_NE(short_notes.find("mmap: no write calls"), std::string::npos) << short_notes;
  EXPECT_NE(short_notes.find("median of 3 untraced runs per strategy."), std::string::npos);
  EXPECT_EQ(short_notes.find("306 page faults"), std::string::npos) << "its second line";
  EXPECT_NE(short_notes.find("…\n"), std::string::npos) << short_notes;
  EXPECT_LE(widest_line(short_notes), 80u) << short_notes;
  EXPECT_LT(std::count(short_notes.begin(), short_notes.end(), '\n'),
            std::count(full.begin(), full.end(), '\n'));
  for (std::size_t at = short_notes.find("\n\n", short_notes.find("Summary")) + 2;
       at < short_notes.size();) {
    const std::size_t end = short_notes.find('\n', at);
    EXPECT_NE(short_notes.compare(at, 2, "  "), 0)
        << "a continuation line: " << short_notes.substr(at, end - at);
    at = end + 1;
  }
}

TEST(Grid, FirstLineCutsWithAnEllipsisOnlyWhenSomethingFollows) {
  EXPECT_EQ(first_line("one line", 80), "one line");
  EXPECT_EQ(first_line("one line\n", 80), "one line");
  EXPECT_EQ(first_line("first\n  second", 0), "first…");
  const std::string cut = first_line(std::string(30, 'x') + " " + std::string(30, 'y'), 40);
  EXPECT_EQ(cut, std::string(30, 'x') + "…");
  EXPECT_LE(display_width(first_line("ααααα ααααα ααααα", 12)), 12u);
}

TEST(Cli, TheHeadingListsEveryOptionGivenButNotHowTheOutputLooks) {
  const ProcessOutput out = iobench({"--lines", "2000", "--strategy", "buffered", "--runs", "3",
                                     "--warmup", "0", "--sync", "end", "--line-length", "64",
                                     "--no-trace", "--columns", "100", "--brief"});
  ASSERT_EQ(out.status, 0) << out.err;
  std::istringstream text(out.out);
  std::string third;
  for (int i = 0; i < 3; ++i) std::getline(text, third);
  EXPECT_EQ(third,
            "options: --lines 2000 --strategy buffered --runs 3 --warmup 0 --no-trace --sync end "
            "--line-length 64")
      << out.out;  // --columns and --brief say how it looks, not what was measured
}

TEST(Cli, BriefAndNotesTogetherAreAUsageError) {
  const ProcessOutput out = iobench({"--brief", "--notes", "--lines", "10"});
  EXPECT_EQ(out.status, 2);
  EXPECT_NE(out.err.find("iobench: error: "), std::string::npos) << out.err;
}

TEST(Table, SyscallTimesTheTracerCouldNotResolveAreNotShownAsZero) {
  RunRecord rep = every_strategy();
  rep.results[0].syscall_time_ns = 0;  // 100,000 calls "took 0 ns"
  // More than the traced run's own time, though within 1.5x the untraced median:
  rep.results[1].syscall_time_ns = static_cast<std::int64_t>(1.2 * rep.results[1].time_ns.median);
  rep.results[1].syscall_share.reset();  // set_syscall_share() left no share
  std::string t = render_table(rep, {});
  std::size_t row = t.find("\nunbuffered ");
  std::string line = t.substr(row + 1, t.find('\n', row + 1) - row - 1);
  EXPECT_EQ(line.find("0 ns"), std::string::npos) << line;
  EXPECT_NE(t.find("syscall time —: the tracer's own cost per call varied"), std::string::npos)
      << t;
  EXPECT_NE(t.find("% of time —: the corrected syscall time came out above"), std::string::npos)
      << t;
  EXPECT_EQ(t.find("235%"), std::string::npos) << t;
  EXPECT_EQ(render_table(every_strategy(), {}).find("% of time —"), std::string::npos);
}

TEST(Table, ColourOnlyWhenAskedAndAlignmentSurvivesIt) {
  RunRecord rep = every_strategy();
  const std::string plain = render_table(rep, {});
  const std::string coloured = render_table(rep, {.color = true});
  EXPECT_TRUE(has_escape(coloured));
  // Remove the escapes and the table is the same, byte for byte.
  EXPECT_EQ(std::regex_replace(coloured, std::regex("\x1b\\[[0-9;]*m"), ""), plain);
}

TEST(Table, SortOrders) {
  RunRecord rep = every_strategy();
  auto first_row = [&](SortOrder order) {
    std::string t = render_table(rep, {.sort = order});
    std::size_t rule = t.find("─");
    std::size_t line = t.find('\n', rule) + 1;
    return t.substr(line, t.find(' ', line) - line);
  };
  EXPECT_EQ(first_row(SortOrder::kRegistry), "unbuffered");
  EXPECT_EQ(first_row(SortOrder::kName), "buffered");
  EXPECT_EQ(first_row(SortOrder::kTime), "format-only");
  EXPECT_EQ(first_row(SortOrder::kSyscalls), "mmap");  // 0 calls, and before format-only
}

TEST(Table, BarsUseEighthsAndNeverHideSmallValues) {
  EXPECT_EQ(bar(1.0, 8), "████████");
  EXPECT_EQ(bar(0.5, 2), "█");
  EXPECT_EQ(bar(0.0001, 8), "▏");
  EXPECT_EQ(bar(0, 8), "");
  EXPECT_EQ(display_width(bar(0.99, 8)), 8u);
}

TEST(Cli, PipedOutputIsPlainAndColourFollowsTheFlagAndNoColor) {
  ScratchDir dir;
  const std::vector<std::string> args = {"--lines",    "500",   "--runs",     "1",
                                         "--warmup",   "0",     "--strategy", "unbuffered,buffered",
                                         "--no-trace", "--dir", dir.path()};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = args;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  ProcessOutput piped = iobench(args);
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_FALSE(has_escape(piped.out));
  EXPECT_EQ(piped.err.find(" of "), std::string::npos)
      << "no progress when stderr is not a terminal";
  EXPECT_EQ(piped.err.find('\r'), std::string::npos) << piped.err;
  // One run of 500 lines: which is faster is up to the machine, that there is a summary is not.
  EXPECT_TRUE(std::regex_search(piped.out, std::regex("\n  (buffered ran .* times faster than "
                                                      "unbuffered|unbuffered ran .* times faster "
                                                      "than buffered)\n")))
      << piped.out;
  EXPECT_TRUE(has_escape(iobench(with({"--color", "always"})).out));
  EXPECT_TRUE(has_escape(iobench_env({"NO_COLOR=1"}, with({"--color", "always"})).out));
  EXPECT_FALSE(has_escape(iobench(with({"--color", "never"})).out));
  EXPECT_FALSE(has_escape(iobench(with({"--format", "json", "--color", "always"})).out));
  // On a terminal: colour by default, none with NO_COLOR or --color never.
  EXPECT_TRUE(has_escape(iobench_on_terminal({}, args)));
  EXPECT_FALSE(has_escape(iobench_on_terminal({"NO_COLOR=1"}, args)));
  EXPECT_FALSE(has_escape(iobench_on_terminal({}, with({"--color", "never"}))));
  ProcessOutput bad = iobench(with({"--sort", "speed"}));
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--sort: unknown order 'speed'"), std::string::npos) << bad.err;
  EXPECT_EQ(iobench(with({"--color", "sometimes"})).status, 2);
}

TEST(Progress, AppearsAfterASecondOnStderrAndIsErasedWhenDone) {
  ScratchDir dir;
  const std::string path = dir.path() + "/stderr";
  const int saved = ::dup(STDERR_FILENO);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ::dup2(fd, STDERR_FILENO);
  {
    Progress p(true);  // as if stderr were a terminal
    p.on_run({"buffered", 2, 7, RunKind::kTimed});
    // However late the line comes on a busy machine, it says when it was drawn (below).
    EXPECT_TRUE(testing::wait_until([&] { return !slurp(path).empty(); })) << "no progress line";
    p.finish();
  }
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(fd);
  const std::string err = slurp(path);
  std::smatch line;
  ASSERT_TRUE(std::regex_search(
      err, line, std::regex("\riobench: buffered · run 2 of 7 \\(timed\\) · ([0-9]+\\.[0-9]) s")))
      << err;
  EXPECT_GE(std::stod(line[1]), 1.0) << "quiet for the first second: " << err;
  ASSERT_GE(err.size(), 4u);
  EXPECT_EQ(err.substr(err.size() - 4), "\r\x1b[K") << "erased at the end";
}

}  // namespace
}  // namespace iobench
