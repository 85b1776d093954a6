// The code under test: a log that buffers lines and writes them to its file in few calls.
#pragma once

#include <cstddef>
#include <string>

class LineLog {
 public:
  static constexpr std::size_t kBufferBytes = 4096;

  explicit LineLog(const std::string& path);
  ~LineLog();
  LineLog(const LineLog&) = delete;
  LineLog& operator=(const LineLog&) = delete;

  void add(const std::string& line);
  /// Lines added so far.
  std::size_t lines() const { return lines_; }
  /// write(2) calls made so far: one per full buffer, and the last at destruction.
  std::size_t flushes() const { return flushes_; }

 private:
  void flush();

  int fd_;
  char buf_[kBufferBytes];
  std::size_t used_ = 0, lines_ = 0, flushes_ = 0;
};
