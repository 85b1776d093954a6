// The demo as a presenter shows it: in tmux at 80×50 and 120×50, with and without
// --no-interleave, what tmux holds once iobench is done (its scrollback included) must be the
// run's output once: the lines written above the live table while it ran (notices), then
// the final table and its notes exactly as the run printed them after its last erase (the
// same lines piped output has, fitted to the terminal), nothing glued to the progress line,
// no stale copy of the live table or its heading. tmux is the terminal emulator: it applies
// every cursor move and erase; its pipe-pane records the bytes the run wrote.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

constexpr int kRows = 50;

/// A shell command's stdout (stderr discarded), and its exit status.
std::string output_of(const std::string& cmd, int* status = nullptr) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = ::pclose(p);
  if (status != nullptr) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

bool have_tmux() {
  int status = -1;
  output_of("tmux -V 2>/dev/null", &status);
  return status == 0;
}

/// A private tmux server (its own socket) with one detached window of `cols`×kRows.
class Tmux {
 public:
  explicit Tmux(int cols) : socket_("iobench-test-" + std::to_string(::getpid())), cols_(cols) {
    conf_ = ::testing::TempDir() + "/" + socket_ + ".conf";
    std::ofstream(conf_) << "set -g history-limit 20000\n";
  }
  ~Tmux() {
    output_of(tmux() + " kill-server 2>/dev/null");
    std::remove(conf_.c_str());
    std::remove(raw_path().c_str());
  }
  Tmux(const Tmux&) = delete;
  Tmux& operator=(const Tmux&) = delete;

  /// Runs `cmd` in the window; true once it has exited (within `limit`). The window then stays
  /// as the command left it: a shell that sleeps, not remain-on-exit, whose "Pane is dead"
  /// line scrolls the screen by one.
  bool run(const std::string& cmd, std::chrono::seconds limit) {
    const std::string done = conf_ + ".done";
    std::remove(done.c_str());
    // The pause: pipe-pane is on before the run writes its first byte.
    output_of(tmux() + " new-session -d -x " + std::to_string(cols_) + " -y " +
              std::to_string(kRows) + " 'sleep 1; " + cmd + "; touch " + done + "; sleep 600'");
    output_of(tmux() + " pipe-pane -o 'cat > " + raw_path() + "'");
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      if (::access(done.c_str(), F_OK) == 0) {
        std::remove(done.c_str());
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }
  /// What the run wrote to the terminal, as bytes.
  std::string raw() const {
    std::ifstream in(raw_path(), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  /// The scrollback and the screen, as text, wrapped lines joined.
  std::string capture() { return output_of(tmux() + " capture-pane -p -J -S - -E -"); }
  /// What the screen shows, without the scrollback.
  std::string visible() { return output_of(tmux() + " capture-pane -p"); }

 private:
  std::string tmux() const { return "tmux -L " + socket_ + " -f " + conf_; }
  std::string raw_path() const { return conf_ + ".raw"; }
  std::string socket_, conf_;
  int cols_;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line.erase(line.find_last_not_of(' ') + 1);
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

/// The lines terminal bytes leave when no cursor moves up: \r returns to the line's start,
/// text overwrites, ESC[K clears to the line's end (the progress line's draw and erase),
/// other escape sequences change nothing here.
std::vector<std::string> lines_written(const std::string& raw) {
  std::vector<std::string> out;
  std::string line;
  std::size_t at = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\x1b' && i + 1 < raw.size() && raw[i + 1] == '[') {
      i += 2;
      while (i < raw.size() && !std::isalpha(static_cast<unsigned char>(raw[i]))) ++i;
      if (i < raw.size() && raw[i] == 'K') line.resize(at);
    } else if (raw[i] == '\r') {
      at = 0;
    } else if (raw[i] == '\n') {
      line.erase(line.find_last_not_of(' ') + 1);
      if (!line.empty()) out.push_back(line);
      line.clear();
      at = 0;
    } else {
      if (at < line.size())
        line[at] = raw[i];
      else
        line += raw[i];
      ++at;
    }
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

class StageScreen : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(StageScreen, TheScreenHoldsTheRunsOutputOnceAndNothingElse) {
  if (!have_tmux()) GTEST_SKIP() << "tmux is not installed (tools/setup.sh installs it)";
  const auto [cols, no_interleave] = GetParam();
  // The demo's screen, at a fifth of its lines: the same rows, notes and live table.
  std::string cmd = std::string(IOBENCH_BIN) + " --lines 20000 --strategy all";
  if (no_interleave) cmd += " --no-interleave";

  Tmux tmux(cols);
  ASSERT_TRUE(tmux.run(cmd, std::chrono::seconds(240))) << "still running after 240 s";
  std::vector<std::string> screen = lines_of(tmux.capture());
  const std::string raw = tmux.raw();
  // The live table's last erase (progress.cc: up, clear the line, clear below it): what the
  // run printed after it is its final output.
  const std::size_t erase = raw.rfind("\x1b[J\x1b[A");
  ASSERT_NE(erase, std::string::npos) << "no live table was drawn";
  const std::vector<std::string> final_lines = lines_written(raw.substr(erase));
  ASSERT_GE(screen.size(), final_lines.size());
  const std::size_t before = screen.size() - final_lines.size();
  EXPECT_EQ(std::vector<std::string>(screen.begin() + static_cast<long>(before), screen.end()),
            final_lines)
      << "the screen does not end with the run's final output";
  // Above it only lines written above the live table: iobench's own, each whole.
  for (std::size_t i = 0; i < before; ++i)
    EXPECT_EQ(screen[i].rfind("iobench: ", 0), 0u) << "stale or glued line: " << screen[i];
  for (const std::string& l : screen) {
    EXPECT_EQ(l.find(" · run "), std::string::npos) << "progress left on screen: " << l;
    EXPECT_TRUE(l.find("iobench:") == std::string::npos || l.rfind("iobench:", 0) == 0)
        << "a message glued to another line: " << l;
  }
  // Piped output starts with the same heading (its first words: the rest is this run's).
  const std::vector<std::string> piped = lines_of(output_of(
      cmd + " --runs 1 --warmup 0 --no-trace --columns " + std::to_string(cols) + " 2>/dev/null"));
  ASSERT_FALSE(piped.empty());
  EXPECT_EQ(final_lines.front(), screen[before]);
  EXPECT_EQ(piped.front().substr(0, 8), final_lines.front().substr(0, 8)) << "heading first";
}

TEST(StageScreen, BriefFitsOneScreenWithTheHeadingAndTheUnbufferedRow) {
  if (!have_tmux()) GTEST_SKIP() << "tmux is not installed (tools/setup.sh installs it)";
  Tmux tmux(80);
  ASSERT_TRUE(tmux.run(std::string(IOBENCH_BIN) + " --lines 20000 --strategy all --brief",
                       std::chrono::seconds(240)));
  const std::vector<std::string> shown = lines_of(tmux.visible());
  const auto starts = [&](const std::string& prefix) {
    return std::any_of(shown.begin(), shown.end(),
                       [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
  };
  EXPECT_TRUE(starts("iobench ")) << tmux.visible();
  EXPECT_TRUE(starts("unbuffered ")) << tmux.visible();
  EXPECT_TRUE(starts("Summary")) << tmux.visible();
  EXPECT_FALSE(starts("time, CPU")) << "--brief has no provenance\n" << tmux.visible();
}

// A table wider than the terminal (--columns past its width) wraps on the screen: the live
// table's erase must go up the rows it took, not its lines, or each redraw leaves its top
// rows (the heading) behind. The final screen holds the heading and each row once.
TEST(StageScreen, ATableWiderThanTheTerminalIsOnTheScreenOnce) {
  if (!have_tmux()) GTEST_SKIP() << "tmux is not installed (tools/setup.sh installs it)";
  Tmux tmux(60);
  ASSERT_TRUE(tmux.run(std::string(IOBENCH_BIN) +
                           " --lines 2000 --strategy buffered,unbuffered,unbuffered-pieces "
                           "--runs 2 --warmup 0 --columns 120",
                       std::chrono::seconds(240)));
  const std::vector<std::string> screen = lines_of(tmux.capture());
  const auto count = [&](const std::string& prefix) {
    return std::count_if(screen.begin(), screen.end(),
                         [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
  };
  EXPECT_EQ(count("iobench 0"), 1) << tmux.capture();  // the heading: "iobench VERSION · ..."
  EXPECT_EQ(count("options: "), 1) << tmux.capture();
  EXPECT_EQ(count("strategy "), 1) << tmux.capture();
  for (const char* row : {"buffered ", "unbuffered ", "unbuffered-pieces "})
    EXPECT_EQ(count(row), 1) << row << "\n" << tmux.capture();
}

INSTANTIATE_TEST_SUITE_P(Terminals, StageScreen,
                         ::testing::Combine(::testing::Values(80, 120), ::testing::Bool()));

}  // namespace
