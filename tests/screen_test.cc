// The table on a real terminal: iobench runs on a pseudo-terminal of a given size, as a
// presenter's laptop would run it, and the test reads the screen's bytes.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "report/grid.h"
#include "run_process.h"
#include "sample_report.h"
#include "strategies/registry.h"

namespace {

/// iobench on a pty of `cols` columns: the child's stdin, stdout and stderr are the terminal.
class PtyRun {
 public:
  PtyRun(const std::vector<std::string>& args, unsigned short cols, unsigned short rows = 60,
         const char* term = "xterm") {
    winsize ws{};
    ws.ws_row = rows;
    ws.ws_col = cols;
    pid_ = ::forkpty(&master_, nullptr, nullptr, &ws);
    if (pid_ == 0) {
      std::vector<char*> argv;
      argv.reserve(args.size() + 1);
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::setenv("TERM", term, 1);
      ::setenv("IOBENCH_TEST_STRATEGIES", "1", 1);
      ::unsetenv("COLUMNS");
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~PtyRun() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) ::close(master_);
  }

  /// Reads what the terminal shows until `done(screen)` holds or the program closes it; the
  /// outer deadline only guards against a hang, it is not what the test measures.
  template <typename Done>
  bool read_until(Done done, std::chrono::seconds limit = std::chrono::seconds(240)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!done(screen_)) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd pfd{master_, POLLIN, 0};
      if (::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::read(master_, buf, sizeof buf);
      if (n <= 0) return done(screen_);  // EIO: the program closed the terminal
      screen_.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  }
  void read_to_end() {
    read_until([](const std::string&) { return false; });
  }
  /// The exit status, once the program is done.
  int wait() {
    int st = 0;
    ::waitpid(pid_, &st, 0);
    reaped_ = true;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  bool running() const { return ::waitpid(pid_, nullptr, WNOHANG) == 0; }
  pid_t pid() const { return pid_; }
  const std::string& screen() const { return screen_; }

 private:
  int master_ = -1;
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::string screen_;
};

/// The terminal's text, line by line: escape sequences removed, \r\n and lone \r (progress
/// redraws, live-table erasing) both ending a line.
std::vector<std::string> lines_of(const std::string& raw) {
  std::vector<std::string> out(1);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\x1b' && i + 1 < raw.size() && raw[i + 1] == '[') {
      i += 2;
      while (i < raw.size() && !std::isalpha(static_cast<unsigned char>(raw[i]))) ++i;
      continue;
    }
    if (raw[i] == '\r' || raw[i] == '\n') {
      if (!out.back().empty()) out.emplace_back();
      continue;
    }
    out.back() += raw[i];
  }
  return out;
}

bool has_row(const std::vector<std::string>& lines, const std::string& name) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.rfind(name + " ", 0) == 0; });
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Piped output is what scripts and README samples hold: fitting the table to a terminal must
// not change a byte of it. The golden file is the table as it was before tables could fit.
// IOBENCH_UPDATE_GOLDEN=1 rewrites it after an intended change, as render_golden_test.cc's.
TEST(TableLayout, PipedTableIsByteIdentical) {
  if (std::getenv("IOBENCH_UPDATE_GOLDEN"))
    std::ofstream(std::string(GOLDEN_DIR) + "/table_piped.txt", std::ios::binary)
        << iobench::render_table(iobench::testing::sample_report(), {});
  const std::string golden = iobench::testing::slurp(std::string(GOLDEN_DIR) + "/table_piped.txt");
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(iobench::render_table(iobench::testing::sample_report(), {}), golden);
}

TEST(TableLayout, WideTerminalKeepsThePipedLayout) {
  auto rep = iobench::testing::sample_report();
  const std::string piped = iobench::render_table(rep, {});
  EXPECT_EQ(iobench::render_table(rep, {.columns = 200}), piped);
}

TEST(TableLayout, EveryWidthFromSixtyFitsWithOneLinePerRow) {
  auto rep = iobench::testing::sample_report();
  for (std::size_t cols = 60; cols <= 130; ++cols) {
    const auto lines = split_lines(iobench::render_table(rep, {.columns = cols}));
    for (const auto& line : lines) EXPECT_LE(iobench::display_width(line), cols) << line;
    for (const auto& r : rep.results) {
      const auto rows = std::count_if(lines.begin(), lines.end(), [&](const auto& l) {
        return l.rfind(r.strategy + " ", 0) == 0;
      });
      EXPECT_EQ(rows, 1) << r.strategy << " at " << cols << " columns";
    }
  }
}

TEST(TableLayout, MinimalTableKeepsNameCallsMedianAndVs) {
  auto rep = iobench::testing::sample_report();
  const std::string table = iobench::render_table(rep, {.columns = 60});
  EXPECT_NE(table.find("unbuffered-pieces  300,000  162.13 ms  3.14× slower"), std::string::npos)
      << table;
}

TEST(TableLayout, ALongCellLosesItsMiddleKeepingTheFileName) {
  using iobench::elide_middle;
  EXPECT_EQ(elide_middle("/a/b/file.txt", 13), "/a/b/file.txt");
  EXPECT_EQ(elide_middle("/tmp/" + std::string(100, 'd') + "/out.txt", 30),
            "/tmp/" + std::string(16, 'd') + "…/out.txt");
  // A file name too long to keep whole: as much of each end.
  EXPECT_EQ(elide_middle("/tmp/" + std::string(50, 'x'), 30),
            "/tmp/" + std::string(10, 'x') + "…" + std::string(14, 'x'));
  // Cells, not bytes: wide characters are cut whole.
  EXPECT_EQ(elide_middle("\u6570\u636e\u6570\u636e\u6570\u636e", 9), "\u6570\u636e…\u6570\u636e");
  const std::vector<iobench::GridColumn> cols = {{.title = "file", .right = false, .elide = true},
                                                 {"calls", true}};
  EXPECT_EQ(
      iobench::render_grid(cols, {{"/tmp/" + std::string(100, 'd') + "/out.txt", "1"}}, false, 37),
      "file                            calls\n"
      "─────────────────────────────────────\n"
      "/tmp/" +
          std::string(16, 'd') + "…/out.txt      1\n");
}

// A syscall time far above the whole untraced run is a failed correction, not "nearly all":
// "—" and the note, never "329%"; a share never reads above 100%.
TEST(TableLayout, AnImpossibleSyscallShareIsADashNotANumber) {
  auto rep = iobench::testing::sample_report();
  rep.results[0].syscall_time_ns = 170000000;  // 3.3x unbuffered's 51.59 ms median
  const std::string table = iobench::render_table(rep, {});
  EXPECT_EQ(table.find("329%"), std::string::npos) << table;
  EXPECT_NE(table.find("unbuffered         100,000 ███████▎      11 B   51.59 ms ±7% ██▌           "
                       "   1.00×         —     —"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("syscall time —: the tracer's own cost per call varied"), std::string::npos);
  EXPECT_NE(iobench::render_table(iobench::testing::sample_report(), {}).find(" 100% "),
            std::string::npos);
}

class ScreenWidth : public ::testing::TestWithParam<int> {};

TEST_P(ScreenWidth, NoLineWiderThanTheTerminalAndOneLinePerRow) {
  const auto cols = static_cast<unsigned short>(GetParam());
  PtyRun run({IOBENCH_BIN, "--lines", "2000", "--strategy", "all", "--runs", "2", "--warmup", "0"},
             cols);
  run.read_to_end();
  ASSERT_EQ(run.wait(), 0) << run.screen();
  for (const std::string& line : lines_of(run.screen()))
    EXPECT_LE(iobench::display_width(line), cols) << "at " << cols << " columns: " << line;
  // The final table follows the last erase of the live one ("\x1b[J").
  const std::string& raw = run.screen();
  const std::size_t last_erase = raw.rfind("\x1b[J");
  ASSERT_NE(last_erase, std::string::npos) << "no live table was drawn";
  const auto final_lines = lines_of(raw.substr(last_erase));
  for (const iobench::Strategy* s : iobench::all_strategies()) {
    const auto rows = std::count_if(final_lines.begin(), final_lines.end(), [&](const auto& l) {
      return l.rfind(std::string(s->name) + " ", 0) == 0;
    });
    EXPECT_EQ(rows, 1) << s->name << " at " << cols << " columns";
  }
  EXPECT_TRUE(std::any_of(final_lines.begin(), final_lines.end(),
                          [](const auto& l) { return l.rfind("Summary", 0) == 0; }));
}

INSTANTIATE_TEST_SUITE_P(Widths, ScreenWidth, ::testing::Values(60, 80, 100, 120, 200));

// TERM=dumb can move no cursor: as ls and git do, iobench then writes what it writes to a pipe
// (no progress line, no live table redrawn in place), not one escape sequence.
TEST(Screen, ADumbTerminalGetsNoEscapeSequences) {
  // Over a second: long enough for the progress line to show on any other terminal.
  PtyRun run({IOBENCH_BIN, "--lines", "20000", "--strategy", "all", "--runs", "3", "--warmup", "0"},
             100, 60, "dumb");
  run.read_to_end();
  ASSERT_EQ(run.wait(), 0) << run.screen();
  EXPECT_EQ(run.screen().find('\x1b'), std::string::npos) << run.screen();
  EXPECT_EQ(run.screen().find(" · run "), std::string::npos) << "a progress line";
  const auto lines = lines_of(run.screen());
  for (const iobench::Strategy* s : iobench::all_strategies()) {
    EXPECT_EQ(
        std::count_if(lines.begin(), lines.end(),
                      [&](const auto& l) { return l.rfind(std::string(s->name) + " ", 0) == 0; }),
        1)
        << s->name << ": once, in the final table\n"
        << run.screen();
  }
}

// A path near PATH_MAX in `iobench trace`'s file table: on an 80-column terminal its row
// keeps within 80 columns, the path's start and its file name either side of "…"; the JSON
// document has it whole.
TEST(Screen, ALongPathLosesItsMiddleInTheTraceTable) {
  iobench::testing::ScratchDir dir;
  std::string path = dir.path();
  while (path.size() < 3900) {
    path += "/" + std::string(150, 'd');
    ASSERT_EQ(::mkdir(path.c_str(), 0755), 0) << path;
  }
  path += "/out.txt";
  const std::string json = dir.path() + "/t.json";
  // ptrace names a file by /proc/PID/fd, whole at any depth.
  // One write to it, by the shell's echo; the path is $0, never parsed by the shell.
  PtyRun run({IOBENCH_BIN, "trace", "--tracer", "ptrace", "--count-only", "--export-json", json,
              "--", "/bin/sh", "-c", "echo x > \"$0\"", path},
             80);
  run.read_to_end();
  ASSERT_EQ(run.wait(), 0) << run.screen();
  const auto lines = lines_of(run.screen());
  for (const std::string& line : lines) EXPECT_LE(iobench::display_width(line), 80u) << line;
  // 80 columns less calls' and bytes' (and their gaps): 66 for the file, "…/out.txt" its end.
  const std::string row = path.substr(0, 57) + "…/out.txt      1      —";
  EXPECT_EQ(std::count(lines.begin(), lines.end(), row), 1) << run.screen();
  EXPECT_NE(iobench::testing::slurp(json).find("\"path\": \"" + path + "\""), std::string::npos);
}

TEST(Screen, FirstRowIsShownBeforeTheLastStrategyRuns) {
  // test-hang never returns: its row cannot exist until the timeout, so a buffered row on the
  // screen while iobench still runs can only be the live table. --no-interleave: interleaved
  // timed runs complete every row together, after test-hang's timed run.
  PtyRun run({IOBENCH_BIN, "--lines", "2000", "--strategy", "buffered,test-hang", "--runs", "1",
              "--warmup", "0", "--timeout", "600", "--no-interleave"},
             100);
  ASSERT_TRUE(run.read_until([](const std::string& s) { return has_row(lines_of(s), "buffered"); }))
      << run.screen();
  EXPECT_TRUE(run.running());
  EXPECT_FALSE(has_row(lines_of(run.screen()), "test-hang"));
  ::kill(run.pid(), SIGINT);
  EXPECT_EQ(run.wait(), 130);
}

TEST(Screen, OnATerminalShorterThanTheOutputEachNoteIsOneLineAndNotesKeepsThemWhole) {
  const std::vector<std::string> args = {IOBENCH_BIN, "--lines", "2000",     "--strategy", "all",
                                         "--runs",    "3",       "--warmup", "0"};
  const auto final_output = [](const std::string& raw) {
    const std::size_t erase = raw.rfind("\x1b[J");
    return lines_of(erase == std::string::npos ? raw : raw.substr(erase));
  };
  const auto cut = [](const std::vector<std::string>& lines) {
    return std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
      return l.size() >= 3 && l.compare(l.size() - 3, 3, "…") == 0;
    });
  };
  PtyRun small(args, 80, 20);
  small.read_to_end();
  ASSERT_EQ(small.wait(), 0) << small.screen();
  std::vector<std::string> all = args;
  all.push_back("--notes");
  PtyRun whole(all, 80, 20);
  whole.read_to_end();
  ASSERT_EQ(whole.wait(), 0) << whole.screen();
  const auto shown = final_output(small.screen()), full = final_output(whole.screen());
  EXPECT_GT(cut(shown), 0) << small.screen();
  EXPECT_EQ(cut(full), 0) << whole.screen();
  EXPECT_LT(shown.size(), full.size());
  EXPECT_TRUE(has_row(shown, "unbuffered")) << small.screen();
}

TEST(Screen, BareIobenchSaysWhatItRunsInOneLineAndCtrlCStopsIt) {
  PtyRun run({IOBENCH_BIN}, 80);
  const auto announced = [](const std::string& s) {
    const auto lines = lines_of(s);
    return std::any_of(lines.begin(), lines.end(),
                       [](const std::string& l) { return l.rfind("iobench: running ", 0) == 0; });
  };
  ASSERT_TRUE(run.read_until(announced, std::chrono::seconds(30))) << run.screen();
  for (const std::string& l : lines_of(run.screen())) {
    if (l.rfind("iobench: running ", 0) != 0) continue;
    EXPECT_NE(l.find(" strategies × 100,000 lines in /tmp"), std::string::npos) << l;
    EXPECT_NE(l.find("Ctrl-C stops"), std::string::npos) << l;
    EXPECT_LE(iobench::display_width(l), 80u) << l;
  }
  ::kill(run.pid(), SIGINT);
  EXPECT_EQ(run.wait(), 130);
}

}  // namespace
