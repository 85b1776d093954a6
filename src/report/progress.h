// A one-line progress display on stderr for long benchmarks: "buffered · run 3 of 7 (timed)
// · 4.2 s". Only on a terminal, so nothing ever reaches a log, a pipe or stdout's data; it
// appears once the benchmark has run for about a second and is erased when it is done.
//
// While a run is live it is the one writer of the terminal: the live table (a block on
// stdout) and the progress line sit at the bottom, and every notice or error line is written
// above them, the two redrawn below it, so nothing is overwritten, glued or left stale.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "model/run_event.h"

namespace iobench {

class Progress {
 public:
  /// Shows progress when stderr is a terminal that moves its cursor (not TERM=dumb);
  /// otherwise every call does nothing.
  Progress();
  /// `enabled` decides explicitly (tests; the caller's own terminal check).
  explicit Progress(bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Records the run about to start; the line shows it from the next tick.
  void on_run(const RunEvent& event);
  /// A Runner observer that forwards to on_run.
  RunObserver observer();
  /// Writes a runner's notice to stderr ("iobench: warning: …", "kept: …"), its names
  /// escaped, with the progress line out of its way as print_above does.
  void on_notice(const RunNotice& notice);
  /// A Runner notice sink that forwards to on_notice.
  NoticeSink notices();
  /// Erases the line and stops updating it (idempotent; the destructor calls it).
  void finish();
  /// Writes `text` to stdout with the progress line out of its way: erased first, redrawn
  /// below the text, so the two never interleave.
  void print_above(const std::string& text);
  /// Shows `block` (the live table, live_table.h: whole lines, none wider than the terminal)
  /// on stdout in place of the block shown before, the progress line below it; "" erases it.
  void show_block(const std::string& block);
  /// Writes one diagnostic line (ending in "\n") to stderr above the block and the progress
  /// line of the live Progress, if any; straight to stderr otherwise.
  static void print_line(const std::string& line);

 private:
  void tick_loop();
  void draw_locked();
  /// Erases the progress line and the block when stderr's lines would land among them.
  std::string erase_locked(bool for_stderr);
  void put_line_locked(const std::string& line);

  bool enabled_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool shown_ = false;
  std::string what_;             // "buffered · run 3 of 7 (timed)"
  bool stderr_on_screen_;        // stderr is a terminal: its lines land among ours
  std::string block_;            // the block on stdout (the live table), drawn above the line
  std::size_t block_lines_ = 0;  // the rows it takes on the screen, its wrapped lines' too
  std::thread ticker_;
};

}  // namespace iobench
