#include "report/progress.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "report/escape.h"
#include "report/grid.h"
#include "report/presentation.h"
#include "report/terminal.h"

namespace iobench {
namespace {

constexpr auto kQuiet = std::chrono::seconds(1);        // short benchmarks show nothing
constexpr auto kTick = std::chrono::milliseconds(250);  // the elapsed time moves visibly

const char* kind_name(RunKind k) {
  switch (k) {
    case RunKind::kWarmup:
      return "warm-up";
    case RunKind::kTimed:
      return "timed";
    case RunKind::kTraced:
      return "traced";
  }
  return "";
}

/// write(2) straight to fd 2: no stdio buffer to interleave with, nothing to lock that a
/// forked child could inherit locked.
void put(const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(STDERR_FILENO, s.data() + done, s.size() - done);
    if (n <= 0) return;  // a progress line is never worth an error
    done += static_cast<std::size_t>(n);
  }
}

// The Progress of the run now live: the one writer of the terminal (print_line).
std::atomic<Progress*> g_live{nullptr};

}  // namespace

Progress::Progress() : Progress(moves_cursor(STDERR_FILENO)) {}

Progress::Progress(bool enabled)
    : enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      stderr_on_screen_(is_terminal(STDERR_FILENO)) {
  g_live = this;
  if (!enabled_) return;
  // The ticker must never take a process-directed SIGINT/SIGTERM: the main thread's waits
  // rely on EINTR to stop the run. Block everything in the new thread, then restore ours.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  ticker_ = std::thread([this] { tick_loop(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

Progress::~Progress() {
  finish();
  Progress* self = this;
  g_live.compare_exchange_strong(self, nullptr);
}

void Progress::on_run(const RunEvent& e) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  // The name may be a compare -n name: escaped, so the line stays one line on the terminal.
  what_ =
      fmt::format("{} · run {} of {} ({})", escape_text(e.name), e.run, e.total, kind_name(e.kind));
}

RunObserver Progress::observer() {
  return [this](const RunEvent& e) { on_run(e); };
}

void Progress::on_notice(const RunNotice& n) {
  const char* prefix = n.kind == RunNotice::Kind::kKept ? "kept: " : "iobench: warning: ";
  std::lock_guard lock(mutex_);
  put_line_locked(prefix + escape_text(n.text) + "\n");
}

void Progress::print_line(const std::string& line) {
  if (Progress* live = g_live.load()) {
    std::lock_guard lock(live->mutex_);
    live->put_line_locked(line);
  } else {
    std::fputs(line.c_str(), stderr);
  }
}

std::string Progress::erase_locked(bool for_stderr) {
  // A line on stderr lands among our lines only when stderr is this terminal too.
  if (for_stderr && !stderr_on_screen_) return "";
  if (enabled_ && shown_ && !stop_) put("\r\x1b[K");
  // Up to the block's first row, then clear to the end of the screen: block_lines_ counts
  // the rows its lines took, a wrapped one (a table wider than the terminal: --columns past
  // its width, or narrower than the smallest table) as many as it wrapped onto. That first
  // row is cleared alone and the rest from the row below: tmux keeps a screen cleared from
  // its top-left corner in its history (scroll-on-clear), one stale copy of the block per
  // redraw.
  return block_lines_ == 0 ? "" : fmt::format("\x1b[{}A\r\x1b[2K\x1b[B\x1b[J\x1b[A", block_lines_);
}

void Progress::put_line_locked(const std::string& line) {
  const bool around = stderr_on_screen_ && (block_lines_ > 0 || (enabled_ && shown_ && !stop_));
  if (around) write_stdout(erase_locked(true));
  put(line);
  if (!around) return;
  write_stdout(block_);
  if (enabled_ && shown_ && !stop_) draw_locked();
}

NoticeSink Progress::notices() {
  return [this](const RunNotice& n) { on_notice(n); };
}

void Progress::finish() {
  if (!enabled_) return;
  {
    std::lock_guard lock(mutex_);
    if (stop_) return;
    stop_ = true;
    if (shown_) put("\r\x1b[K");  // erase the line: what follows starts on a clean one
  }
  wake_.notify_all();
  ticker_.join();
}

void Progress::print_above(const std::string& text) {
  std::lock_guard lock(mutex_);
  write_stdout(erase_locked(false) + text + block_);
  if (enabled_ && shown_ && !stop_) draw_locked();
}

void Progress::show_block(const std::string& block) {
  std::lock_guard lock(mutex_);
  write_stdout(erase_locked(false) + block);
  block_ = block;
  block_lines_ = screen_rows(block, terminal_width(STDOUT_FILENO));
  if (enabled_ && shown_ && !stop_) draw_locked();
}

void Progress::tick_loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kTick);
    if (!stop_ && std::chrono::steady_clock::now() - start_ >= kQuiet && !what_.empty())
      draw_locked();
  }
}

void Progress::draw_locked() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = fmt::format("iobench: {} · {:.1f} s", what_, elapsed);
  // A line wider than the terminal wraps, and \r would then erase only its last part.
  line = cut_to_width(std::move(line), terminal_width(STDERR_FILENO) - 1);
  put("\r" + line + "\x1b[K");
  shown_ = true;
}

}  // namespace iobench
