// The presentation, as an audience sees it: the table, its summary and footnotes, colour only
// where it belongs, sweeps with their knee, charts that parse and draw, and `iobench compare`
// on real programs with exact counts. Fast on purpose: small N, one run, no warm-up.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "base/error.h"
#include "cli/cli.h"
#include "report/grid.h"
#include "report/noise_note.h"
#include "report/plot.h"
#include "report/progress.h"
#include "report/reporter.h"
#include "report/sweep_report.h"
#include "report/table_parts.h"
#include "run/command_workload.h"
#include "run/noise.h"
#include "run_process.h"
#include "strategies/registry.h"
#include "strategies/support/line_format.h"
#include "wait_for.h"

namespace iobench {
namespace {

using nlohmann::json;
using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;

using testing::iobench;

/// iobench with extra environment variables (through env(1), so the test's own stays put).
ProcessOutput iobench_env(const std::vector<std::string>& env, std::vector<std::string> args) {
  args.insert(args.begin(), IOBENCH_BIN);
  args.insert(args.begin(), env.begin(), env.end());
  args.insert(args.begin(), "/usr/bin/env");
  return run_process(args);
}

/// iobench with stdout on a pseudo-terminal, as a presenter runs it; returns what it printed.
std::string iobench_on_terminal(const std::vector<std::string>& env,
                                std::vector<std::string> args) {
  int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  EXPECT_GE(master, 0);
  ::grantpt(master);
  ::unlockpt(master);
  std::string slave = ::ptsname(master);
  args.insert(args.begin(), IOBENCH_BIN);
  args.insert(args.begin(), env.begin(), env.end());
  args.insert(args.begin(), "/usr/bin/env");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    int fd = ::open(slave.c_str(), O_RDWR);
    int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(fd, 1);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child closed the terminal
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  return out;
}

bool has_escape(const std::string& s) { return s.find('\x1b') != std::string::npos; }

/// The widest line below the two heading lines (which name the directory, any length).
std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0, start = text.find('\n', text.find('\n') + 1) + 1;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    widest = std::max(widest, display_width(text.substr(start, end - start)));
    start = end + 1;
  }
  return widest;
}

/// The titles of the SVG's plot elements (<g id="gnuplot_plot_..."><title>T</title>), one
/// per bar or point per panel.
std::vector<std::string> mark_titles(const std::string& svg) {
  static const std::regex kMark(R"re(<g id="gnuplot_plot_[0-9]+[a-z]*" ><title>([^<]*)</title>)re");
  std::vector<std::string> out;
  for (std::sregex_iterator it(svg.begin(), svg.end(), kMark), end; it != end; ++it)
    out.push_back((*it)[1]);
  return out;
}

long count(const std::vector<std::string>& v, const std::string& x) {
  return std::count(v.begin(), v.end(), x);
}

/// Well-formed XML (xmllint) that draws (rsvg-convert makes a PNG of it).
void expect_svg_draws(const std::string& svg_path) {
  EXPECT_EQ(std::system(("xmllint --noout '" + svg_path + "'").c_str()), 0) << svg_path;
  const std::string png = svg_path + ".png";
  ASSERT_EQ(std::system(("rsvg-convert '" + svg_path + "' -o '" + png + "'").c_str()), 0);
  const std::string bytes = slurp(png);
  ASSERT_GT(bytes.size(), 10000u) << "a chart, not an empty canvas";
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
}

StrategyResult row(const std::string& name, std::uint64_t calls, std::vector<std::int64_t> times) {
  StrategyResult r;
  r.strategy = name;
  r.bytes = 1088890;
  r.verified = true;
  r.time_ns = summarize(times);
  r.noisy = noisy(r.time_ns);  // as the runner judges it
  r.cpu_ns = summarize(times);
  r.minor_faults = 50;
  r.write_calls = calls;
  r.syscall_time_ns = times.front() / 2;
  r.syscall_share = 0.5;  // what set_syscall_share() takes from the traced run
  TraceResult t;
  t.available = true;
  r.trace = t;
  return r;
}

RunRecord every_strategy() {
  RunRecord rep;
  rep.version = "test";
  rep.lines = 100000;
  rep.bytes = 1088890;
  rep.dir = "/tmp";
  rep.filesystem = "ext4";
  rep.runs = 3;
  rep.traced = true;
  rep.block_size = 4096;
  rep.host.cpu = "Test CPU";
  rep.host.cpus = 2;
  rep.results = {row("unbuffered", 100000, {56'000'000, 57'000'000, 58'000'000}),
                 row("unbuffered-pieces", 300000, {170'000'000, 171'000'000, 172'000'000}),
                 row("stdio", 266, {4'000'000, 4'100'000, 4'200'000}),
                 row("buffered", 17, {1'900'000, 2'000'000, 2'100'000}),
                 row("writev", 98, {4'700'000, 4'800'000, 4'900'000}),
                 row("io_uring", 1, {2'400'000, 2'500'000, 2'600'000}),
                 row("mmap", 0, {2'200'000, 2'300'000, 2'400'000}),
                 row("single-write", 1, {2'000'000, 2'100'000, 2'200'000}),
                 row("format-only", 0, {1'000'000, 1'050'000, 1'100'000})};
  rep.results[6].minor_faults = 306;
  rep.results[5].cpu_ns = summarize({5'000'000, 5'000'000, 5'000'000});  // io-wq workers
  return rep;
}

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

// ---- plots ----

TEST(Plot, ComparisonChartHasOneBarPerStrategyInEachPanelAndDraws) {
  ScratchDir dir;
  const std::string svg = dir.path() + "/cmp.svg", results = dir.path() + "/r.json";
  ProcessOutput r = iobench({"--lines", "1000", "--runs", "1", "--warmup", "0", "--dir", dir.path(),
                             "--plot", svg, "--export-json", results});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = slurp(svg);
  ASSERT_FALSE(text.empty());
  const auto marks = mark_titles(text);
  const json doc = json::parse(slurp(results));  // a range-for over a temporary's member dangles
  for (const json& res : doc["results"]) {
    // Three panels (time, write calls, share in syscalls); a row that did not measure
    // (io_uring where rings are refused) has no bar.
    const std::string name = res["strategy"];
    EXPECT_EQ(count(marks, name), res["status"] == "ok" ? 3 : 0) << name;
  }
  EXPECT_NE(text.find("1,000 lines"), std::string::npos) << "the title names N";
  EXPECT_NE(text.find("CPUs"), std::string::npos) << "and the machine";
  expect_svg_draws(svg);
}

TEST(Plot, ScriptsQuoteAnyName) {
  RunRecord rep = every_strategy();
  rep.results[0].strategy = R"(we"ird \ name)";
  const std::string s = comparison_plot_script(rep, {});
  // The label reads as the table shows the name (a backslash as \\, README "Names with any
  // bytes"), each of those characters then escaped for gnuplot.
  EXPECT_NE(s.find(R"("we\"ird \\\\ name")"), std::string::npos) << s;
}

TEST(Plot, MissingGnuplotIsAUsageErrorBeforeAnythingRuns) {
  ScratchDir dir;
  ProcessOutput r = iobench_env({"PATH=/nonexistent"}, {"--lines", "100", "--dir", dir.path(),
                                                        "--plot", dir.path() + "/x.svg"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "iobench: error: --plot needs gnuplot (apt-get install gnuplot-nox)\n");
  EXPECT_EQ(dir.entries(), 0);
  ProcessOutput nodir =
      iobench({"--lines", "100", "--dir", dir.path(), "--plot", "/nonexistent/x.svg"});
  EXPECT_EQ(nodir.status, 2) << nodir.err;
}

// The extension chooses gnuplot's terminal: the file holds that format's bytes, whatever
// its case.
TEST(Plot, TheExtensionChoosesTheFormat) {
  ScratchDir dir, out;
  const std::vector<std::pair<std::string, std::string>> formats = {
      {"x.png", "\x89PNG\r\n\x1a\n"}, {"x.pdf", "%PDF"}, {"x.svg", "<?xml"}, {"X.PNG", "\x89PNG"}};
  for (const auto& [name, magic] : formats) {
    const std::string path = out.path() + "/" + name;
    ProcessOutput r =
        iobench({"--lines", "1000", "--strategy", "buffered,stdio", "--runs", "1", "--warmup", "0",
                 "--count-only", "--dir", dir.path(), "--plot", path});
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    const std::string bytes = slurp(path);
    EXPECT_EQ(bytes.substr(0, magic.size()), magic) << name;
    if (name == "x.svg") EXPECT_NE(bytes.find("<svg"), std::string::npos);
    if (name == "x.pdf") EXPECT_NE(bytes.find("%%EOF"), std::string::npos) << "a whole PDF";
  }
}

TEST(Plot, AnUnknownOrMissingExtensionIsAUsageErrorBeforeAnythingRuns) {
  ScratchDir dir, out;
  for (const std::string name : {"x.bmp", "chart", "x.svg.gz"}) {
    const std::string path = out.path() + "/" + name;
    const std::string error = "iobench: error: --plot: " + path +
                              ": not .svg, .png or .pdf (the extension chooses the format)\n";
    ProcessOutput r = iobench({"--lines", "1000", "--strategy", "buffered", "--runs", "1", "--keep",
                               "--dir", dir.path(), "--plot", path});
    EXPECT_EQ(r.status, 2) << name;
    EXPECT_EQ(r.out, "") << name;
    EXPECT_EQ(r.err, error);
    ProcessOutput sweep =
        iobench({"sweep", "--strategy", "buffered", "--buffer-size", "1K,4K", "--lines", "100",
                 "--runs", "1", "--keep", "--dir", dir.path(), "--plot", path});
    EXPECT_EQ(sweep.status, 2) << name;
    EXPECT_EQ(sweep.err, error);
    EXPECT_EQ(dir.entries(), 0) << "a strategy ran: " << name;
    EXPECT_EQ(out.entries(), 0) << "a file was left: " << name;
  }
}

// The latency axis starts at the smallest curve's 1st percentile: calls the correction took
// too much from (1-2 ns) would stretch it over decades where no call's time lies.
TEST(Plot, LatencyAxisStartsAtTheFirstPercentileNotAtOverCorrectedCalls) {
  RunRecord rep = every_strategy();
  rep.results.resize(2);
  rep.results[0].latency = LatencySummary{
      450, 600, 1'100, 20'000, 95'000, {{1, 0.004}, {2, 0.008}, {400, 0.2}, {95'000, 1.0}}};
  rep.results[1].latency =
      LatencySummary{900, 1'000, 2'000, 3'000, 9'000, {{800, 0.5}, {9'000, 1.0}}};
  const std::string s = latency_plot_script(rep, {});
  EXPECT_NE(s.find("set xrange [320:*]\n"), std::string::npos) << s;  // 400 ns, a little room
  EXPECT_NE(s.find("set key outside"), std::string::npos) << "the key sits on no curve";
}

TEST(Plot, TitlesListTheFilesystemsAndTheShareLabelSaysWhatItIsOver) {
  RunRecord rep = every_strategy();
  rep.filesystem = "ext4,tmpfs,ext4";
  const std::string s = comparison_plot_script(rep, {});
  EXPECT_NE(s.find("on ext4 and tmpfs ·"), std::string::npos) << s;
  EXPECT_NE(s.find(R"(set xlabel "syscall time over the\nuntraced median time")"),
            std::string::npos)
      << s;
  rep.results[0].trace->tracing_cost_ns = 1000;  // bpf: the traced run's own time, one clock
  EXPECT_NE(comparison_plot_script(rep, {}).find("run's\\nown time less what tracing cost it"),
            std::string::npos);
}

// ---- sweeps ----

TEST(Sweep, KneeIsTheSmallestValueBeyondWhichNothingGainsTenPercent) {
  auto points = [](std::vector<std::int64_t> times) {
    std::vector<SweepPoint> p;
    for (std::size_t i = 0; i < times.size(); ++i) {
      SweepPoint s;
      s.value = 1ull << (4 * i);
      s.result = row("buffered", 1, {times[i]});
      p.push_back(s);
    }
    return p;
  };
  EXPECT_EQ(find_knee(points({1000, 100, 20, 19, 19})), 2u);
  EXPECT_EQ(find_knee(points({10000, 1000, 200, 250, 185})), 2u) << "185 is not 10% below 200";
  EXPECT_EQ(find_knee(points({10000, 1000, 200, 250, 100, 95})), 4u)
      << "a later 10% gain moves the knee";
  EXPECT_EQ(find_knee(points({1000, 100, 10})), std::nullopt) << "still falling at the end";
  EXPECT_EQ(find_knee(points({10, 10})), 0u);
  auto failed = points({1000, 100, 20, 19});
  failed[1].result.status = ResultStatus::kFailed;
  EXPECT_EQ(find_knee(failed), 2u);
}

TEST(Sweep, JsonHasAPointPerValueWithExactCountsAndAChartThatDraws) {
  ScratchDir dir;
  const std::string svg = dir.path() + "/sweep.svg";
  ProcessOutput r = iobench({"sweep", "--strategy", "buffered", "--buffer-size", "64K,1K,4K",
                             "--lines", "10000", "--runs", "1", "--warmup", "0", "--dir",
                             dir.path(), "--format", "json", "--plot", svg});
  ASSERT_EQ(r.status, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "iobench-sweep/1");
  EXPECT_EQ(doc["strategy"], "buffered");
  EXPECT_EQ(doc["parameter"], "buffer_size");
  ASSERT_EQ(doc["points"].size(), 3u);
  const std::uint64_t bytes = expected_bytes(10000);
  const std::uint64_t sizes[] = {1024, 4096, 65536};  // ascending, whatever the order given
  for (std::size_t i = 0; i < 3; ++i) {
    const json& p = doc["points"][i];
    EXPECT_EQ(p["value"], sizes[i]);
    EXPECT_EQ(p["result"]["status"], "ok") << p["result"]["error"];
    EXPECT_EQ(p["result"]["write_calls"], (bytes + sizes[i] - 1) / sizes[i]);
    for (const char* k : {"strategy", "time_ns", "cpu_ns", "syscalls", "files", "syscall_time_ns"})
      EXPECT_TRUE(p["result"].contains(k)) << k;
  }
  EXPECT_TRUE(doc.contains("knee"));
  EXPECT_TRUE(doc["knee"].is_null() || doc["knee"].is_number());
  const auto marks = mark_titles(slurp(svg));
  for (const char* v : {"1 KiB", "4 KiB", "64 KiB"})
    EXPECT_EQ(count(marks, v), 2) << v;  // two panels
  expect_svg_draws(svg);
  EXPECT_EQ(dir.entries(), 2) << "the chart and its PNG, nothing else";
}

TEST(Sweep, ConfigHasEveryKeyOfARunsConfig) {
  ScratchDir dir;
  const std::vector<std::string> common = {"--strategy", "buffered", "--lines", "1000",    "--runs",
                                           "1",          "--warmup", "0",       "--sync",  "end",
                                           "--format",   "json",     "--dir",   dir.path()};
  std::vector<std::string> run_args = common, sweep_args = common;
  sweep_args.insert(sweep_args.begin(), {"sweep", "--buffer-size", "1K,4K"});
  const ProcessOutput run = iobench(run_args), sweep = iobench(sweep_args);
  ASSERT_EQ(run.status, 0) << run.err;
  ASSERT_EQ(sweep.status, 0) << sweep.err;
  const json a = json::parse(run.out)["config"], b = json::parse(sweep.out)["config"];
  for (const auto& [key, value] : a.items()) {
    ASSERT_TRUE(b.contains(key)) << key;
    if (key == "buffer_size") {
      EXPECT_TRUE(b[key].is_null()) << "the swept knob: see points[].value";
    } else if (key == "tracer") {
      for (const auto& [k, v] : value.items()) EXPECT_TRUE(b[key].contains(k)) << key << "." << k;
      for (const char* k : {"enabled", "mode", "backend"}) EXPECT_EQ(b[key][k], value[k]) << k;
    } else {
      EXPECT_EQ(b[key], value) << key;
    }
  }
}

TEST(Sweep, TableHasARowPerValueAndSaysWhereTheKneeIs) {
  ScratchDir dir;
  ProcessOutput r =
      iobench({"sweep", "--strategy", "writev", "--batch", "1,64,1024", "--lines", "3000", "--runs",
               "1", "--warmup", "0", "--no-trace", "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("sweep writev --batch"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("knee"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("median of 1 untraced run per value"), std::string::npos) << r.out;
  EXPECT_LE(widest_line(r.out), 120u) << r.out;
}

TEST(Sweep, LineLengthSweepHasARowPerValueTimePerKiBAndAChart) {
  ScratchDir dir;
  const std::string svg = dir.path() + "/lengths.svg";
  ProcessOutput r = iobench({"sweep", "--strategy", "unbuffered", "--line-length", "16,256,4K,64K",
                             "--lines", "200", "--runs", "1", "--warmup", "0", "--dir", dir.path(),
                             "--columns", "200", "--plot", svg});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("sweep unbuffered --line-length · 200 lines"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time per KiB"), std::string::npos) << r.out;
  // One row per value, each one write per line: 200 calls of exactly the line length.
  const std::pair<const char*, const char*> rows[] = {
      {"16 B", "16 B"}, {"256 B", "256 B"}, {"4 KiB", "4.0 KiB"}, {"64 KiB", "64.0 KiB"}};
  for (const auto& [value, per_call] : rows) {
    const std::regex row_re("\n *" + std::string(value) + " +200 [^\n]* " + per_call + " ");
    EXPECT_TRUE(std::regex_search(r.out, row_re)) << value << "\n" << r.out;
  }
  const auto marks = mark_titles(slurp(svg));
  for (const char* v : {"16 B", "256 B", "4 KiB", "64 KiB"}) EXPECT_EQ(count(marks, v), 2) << v;
  EXPECT_NE(slurp(svg).find("time per KiB"), std::string::npos);
  expect_svg_draws(svg);

  ProcessOutput j = iobench({"sweep", "--strategy", "unbuffered", "--line-length", "16,4K",
                             "--lines", "100", "--runs", "1", "--warmup", "0", "--count-only",
                             "--tracer", "ptrace", "--dir", dir.path(), "--format", "json"});
  ASSERT_EQ(j.status, 0) << j.err;
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["parameter"], "line_length");
  EXPECT_TRUE(doc["config"]["line_length"].is_null()) << "the swept one: see points[].value";
  EXPECT_TRUE(doc["knee"].is_null());
  ASSERT_EQ(doc["points"].size(), 2u);
  EXPECT_EQ(doc["points"][0]["result"]["bytes"], 1600);
  EXPECT_EQ(doc["points"][1]["result"]["bytes"], 409600);
  EXPECT_EQ(doc["points"][1]["result"]["write_calls"], 100);
}

TEST(Sweep, ScalingSweepShowsTimePerLine) {
  ScratchDir dir;
  ProcessOutput r = iobench({"sweep", "--strategy", "buffered", "--lines", "1K,4K", "--runs", "1",
                             "--warmup", "0", "--no-trace", "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("per"), std::string::npos);
  EXPECT_NE(r.out.find("no knee"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4,096"), std::string::npos) << r.out;
}

TEST(Sweep, UsageErrorsNameTheProblem) {
  ScratchDir dir;
  auto err = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "sweep");
    args.push_back("--dir");
    args.push_back(dir.path());
    ProcessOutput r = iobench(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "");
    return r.err;
  };
  EXPECT_NE(err({"--strategy", "buffered"}).find("give one flag a comma list"), std::string::npos);
  EXPECT_NE(err({"--strategy", "io_uring", "--buffer-size", "4K,8K", "--queue-depth", "1,2"})
                .find("only one flag"),
            std::string::npos);
  EXPECT_NE(
      err({"--strategy", "buffered", "--batch", "1,2"}).find("--batch does not change buffered"),
      std::string::npos);
  EXPECT_NE(err({"--buffer-size", "1,2"}).find("exactly one strategy"), std::string::npos);
  EXPECT_NE(err({"--strategy", "buffered", "--buffer-size", "0,2"}).find("--buffer-size"),
            std::string::npos);
  EXPECT_NE(err({"--strategy", "buffered", "--buffer-size", "1,,2"}).find("empty value"),
            std::string::npos);
  EXPECT_EQ(dir.entries(), 0);
  ProcessOutput help = iobench({"sweep", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("knee"), std::string::npos);
}

// ---- compare ----

TEST(Compare, WordsSplitLikeAShellWithoutExpansion) {
  EXPECT_EQ(split_words("./w  out.txt 100"), (std::vector<std::string>{"./w", "out.txt", "100"}));
  EXPECT_EQ(split_words(R"(a 'b c' "d \"e\" $f" g\ h '')"),
            (std::vector<std::string>{"a", "b c", R"(d "e" $f)", "g h", ""}));
  EXPECT_EQ(split_words(R"("a\nb")"), (std::vector<std::string>{R"(a\nb)"}));
  EXPECT_EQ(split_words("   "), (std::vector<std::string>{}));
  EXPECT_THROW(split_words("'open"), Error);
  EXPECT_THROW(split_words("\"open"), Error);
}

TEST(Compare, CountsDataWritesToFilesButNotStdoutStderrOrPipes) {
  TraceResult t;
  t.available = true;
  // The kinds are what the tracer saw the fds to be (README "What counts as a write").
  auto file = [](std::string path, FdKind kind, std::map<std::string, SyscallStats> s) {
    FileStats f;
    f.path = std::move(path);
    f.kind = kind;
    f.syscalls = std::move(s);
    return f;
  };
  t.files = {
      file("/tmp/out.txt", FdKind::kFile,
           {{"write", {10, 0, 100, 50}}, {"pwrite64", {2, 0, 20, 5}}, {"fsync", {1, 0, 0, 1000}}}),
      file("/tmp/other", FdKind::kFile, {{"writev", {3, 0, 30, 6}}}),
      file("/dev/null", FdKind::kNull, {{"write", {7, 0, 70, 7}}}),
      file("/dev/pts/3", FdKind::kTerminal, {{"write", {7, 0, 70, 7}}}),
      file("pipe:[123]", FdKind::kPipe, {{"write", {7, 0, 70, 7}}}),
      file("socket:[9]", FdKind::kSocket, {{"sendto", {7, 0, 70, 7}}, {"write", {1, 0, 1, 1}}}),
      file("anon_inode:[io_uring]", FdKind::kWritingRing, {{"io_uring_enter", {4, 0, 0, 40}}}),
      file("anon_inode:[io_uring]", FdKind::kRing, {{"io_uring_enter", {9, 0, 0, 90}}}),
      file("anon_inode:[eventfd]", FdKind::kAnon, {{"write", {9, 0, 72, 9}}}),
      // Its stdout, a regular file, renamed since: the inode said so, not the name.
      file("/tmp/stdout.log.old", FdKind::kStream, {{"write", {5, 0, 50, 5}}}),
      // Two failed: errors, not write calls.
      file("/tmp/full", FdKind::kFile, {{"write", {3, 2, 12, 3}}})};
  StrategyResult r;
  attribute_command_writes(t, r);
  EXPECT_EQ(r.write_calls, 10u + 2 + 3 + 4 + 1);
  EXPECT_EQ(r.bytes, 150u + 12);
  EXPECT_EQ(r.syscall_time_ns, 50 + 5 + 6 + 40 + 3);
}

TEST(Compare, RealProgramsSideBySideWithExactCounts) {
  ScratchDir dir;
  const std::string a = dir.path() + "/a.txt", b = dir.path() + "/b.txt";
  const std::string svg = dir.path() + "/compare.svg";
  ProcessOutput r =
      iobench({"compare", "-n", "per-line", fmt::format("{} per-line {} 2000", LINE_WRITER_BIN, a),
               "-n", "buffered", fmt::format("'{}' buffered '{}' 2000", LINE_WRITER_BIN, b),
               "--runs", "1", "--warmup", "0", "--format", "json", "--plot", svg});
  ASSERT_EQ(r.status, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "iobench/1");
  ASSERT_EQ(doc["results"].size(), 2u);
  const std::uint64_t bytes = expected_bytes(2000);
  EXPECT_EQ(slurp(a).size(), bytes) << "the commands' files are theirs, and left in place";
  const json& per_line = doc["results"][0];
  const json& buffered = doc["results"][1];
  EXPECT_EQ(per_line["strategy"], "per-line");
  EXPECT_EQ(per_line["status"], "ok") << per_line["error"];
  EXPECT_EQ(per_line["write_calls"], 2000) << "one per line; stdout and stderr not counted";
  EXPECT_EQ(per_line["bytes"], bytes);
  EXPECT_EQ(buffered["strategy"], "buffered");
  EXPECT_EQ(buffered["write_calls"], (bytes + 4095) / 4096);
  EXPECT_EQ(buffered["time_ns"]["samples"].size(), 1u);
  EXPECT_EQ(doc["config"]["commands"][1]["name"], "buffered");
  const auto marks = mark_titles(slurp(svg));
  EXPECT_EQ(count(marks, "per-line"), 3);
  EXPECT_EQ(count(marks, "buffered"), 3);
  expect_svg_draws(svg);
}

TEST(Compare, TableAndSummaryForCommands) {
  ScratchDir dir;
  ProcessOutput r =
      iobench({"compare", "-n", "sh", "--shell", "--runs", "2", "--warmup", "0",
               fmt::format("{} per-line {}/a 300 && true", LINE_WRITER_BIN, dir.path())});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("compare · 1 command"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nsh "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("median of 2 untraced runs per command"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("to any file but stdout, stderr,\n  terminals, pipes and sockets"),
            std::string::npos)
      << r.out;
}

TEST(Compare, AFailingCommandIsAFailedRowAndExitThree) {
  ScratchDir dir;
  ProcessOutput r = iobench({"compare", "-n", "ok",
                             fmt::format("{} buffered {}/a 10", LINE_WRITER_BIN, dir.path()), "-n",
                             "broken", fmt::format("{} fail {}/b 10", LINE_WRITER_BIN, dir.path()),
                             "--runs", "1", "--warmup", "0", "--no-trace"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.out.find("broken: failed: exited with status 3"), std::string::npos) << r.out;
  ProcessOutput missing = iobench({"compare", "no-such-program-iobench x"});
  EXPECT_EQ(missing.status, 127);
  EXPECT_NE(missing.err.find("command not found: 'no-such-program-iobench'"), std::string::npos)
      << missing.err;
  EXPECT_EQ(iobench({"compare"}).status, 2);
  EXPECT_EQ(iobench({"compare", "-n", "a", "-n", "b", "true"}).status, 2);
  EXPECT_NE(iobench({"compare", "--help"}).out.find("theirs"), std::string::npos);
}

}  // namespace
}  // namespace iobench
