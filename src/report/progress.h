// A one-line progress display on stderr for long benchmarks: "buffered · run 3 of 7 (timed)
// · 4.2 s". Only on a terminal, so nothing ever reaches a log, a pipe or stdout's data; it
// appears once the benchmark has run for about a second and is erased when it is done.
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
  /// Shows progress when stderr is a terminal; otherwise every call does nothing.
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
  /// below the text, so the two never interleave (the live table, live_table.h).
  void print_above(const std::string& text);

 private:
  void tick_loop();
  void draw_locked();

  bool enabled_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool shown_ = false;
  std::string what_;  // "buffered · run 3 of 7 (timed)"
  std::thread ticker_;
};

}  // namespace iobench
