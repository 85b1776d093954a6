#include "line_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

LineLog::LineLog(const std::string& path)
    : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) {}

LineLog::~LineLog() {
  flush();
  ::close(fd_);
}

void LineLog::add(const std::string& line) {
  if (used_ + line.size() + 1 > sizeof buf_) flush();
  std::memcpy(buf_ + used_, line.data(), line.size());
  used_ += line.size();
  buf_[used_++] = '\n';
#ifndef LINE_LOG_MUTATION_MISCOUNT
  ++lines_;
#else  // tests/sample_project_test.sh: the same writes, the first line of each buffer not counted
  if (used_ > line.size() + 1) ++lines_;
#endif
#ifdef LINE_LOG_MUTATION_EXTRA_WRITES  // tests/sample_project_test.sh: a flush per line
  flush();
#endif
}

void LineLog::flush() {
  if (used_ == 0) return;
  if (::write(fd_, buf_, used_) == static_cast<ssize_t>(used_)) ++flushes_;
  used_ = 0;
}
