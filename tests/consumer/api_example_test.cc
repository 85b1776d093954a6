// How a user counts the syscalls of their own code: a function that writes 1000 lines
// through a 4 KiB user-space buffer must make exactly ceil(bytes / 4096) write calls.
// Built in-tree, and out-of-tree against the installed package (tests/consumer/CMakeLists.txt).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <iobench/trace.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

/// The code under test: a tiny buffered logger.
class Logger {
 public:
  explicit Logger(const char* path)
      : fd_(::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) {}
  ~Logger() {
    flush();
    ::close(fd_);
  }
  void log(const std::string& line) {
    if (used_ + line.size() + 1 > sizeof buf_) flush();
    std::memcpy(buf_ + used_, line.data(), line.size());
    used_ += line.size();
    buf_[used_++] = '\n';
  }
  void flush() {
    if (used_ > 0 && ::write(fd_, buf_, used_) < 0) std::perror("write");
    used_ = 0;
  }

 private:
  int fd_;
  char buf_[4096];
  std::size_t used_ = 0;
};

std::string temp_path() {
  char tmpl[] = "/tmp/iobench-api-example.XXXXXX";
  int fd = ::mkstemp(tmpl);
  ::close(fd);
  return tmpl;
}

TEST(IobenchApi, CountsTheWritesOfABufferedLogger) {
  const std::string path = temp_path();
  std::size_t bytes = 0;
  for (int i = 0; i < 1000; ++i) bytes += std::string("event " + std::to_string(i)).size() + 1;

  // Timing mode, for the bytes (each call's return); counting alone is the default.
  iobench::Trace t = iobench::trace(
      [&] {
        Logger logger(path.c_str());
        for (int i = 0; i < 1000; ++i) logger.log("event " + std::to_string(i));
      },
      {.timing = true});

  if (!t.traced()) GTEST_SKIP() << "ptrace is not available here";
  EXPECT_EQ(t.exit_status(), 0);
  // The logger flushes before a line would overflow, so count the flushes exactly.
  std::size_t used = 0, flushes = 0;
  for (int i = 0; i < 1000; ++i) {
    std::size_t len = std::string("event " + std::to_string(i)).size() + 1;
    if (used + len > 4096) ++flushes, used = 0;
    used += len;
  }
  ++flushes;  // the final flush in the destructor
  EXPECT_EQ(t.syscall_calls("write"), flushes);
  EXPECT_EQ(t.write_calls(), flushes);
  EXPECT_EQ(t.file_calls(path), flushes);
  EXPECT_EQ(t.file_bytes(path), bytes);
  // The same figures in files(), the header's own plain rows.
  const auto row = std::find_if(t.files().begin(), t.files().end(),
                                [&](const iobench::TracedFile& f) { return f.path == path; });
  ASSERT_NE(row, t.files().end());
  EXPECT_EQ(row->calls, flushes);
  EXPECT_EQ(row->bytes, bytes);
  EXPECT_NE(t.to_json().find("\"schema\": \"iobench-trace/1\""), std::string::npos);
  ::unlink(path.c_str());
}

TEST(IobenchApi, AFunctionThatThrowsExitsWithStatusOneAndSaysWhat) {
  const int line = __LINE__ + 1;  // where trace() was called: where an exception is reported
  iobench::Trace t = iobench::trace([] { throw std::runtime_error("boom"); });
  EXPECT_EQ(t.exit_status(), 1);
  ASSERT_EQ(t.failures().size(), 1u);
  EXPECT_TRUE(t.failures()[0].exception);
  EXPECT_EQ(t.failures()[0].message, "boom");
  EXPECT_EQ(t.failures()[0].line, line);
}

// Any test framework's glue, or the code itself, reports through report_failure; without
// <iobench/gtest.h> nothing else fails the test, and failures() says what happened.
TEST(IobenchApi, AFailureReportedInsideComesBack) {
  iobench::Trace t = iobench::trace([] {
    if (!iobench::report_failure("logger.cc", 7, "flushed twice")) std::abort();
  });
  EXPECT_EQ(t.exit_status(), 1);
  ASSERT_EQ(t.failures().size(), 1u);
  EXPECT_EQ(t.failures()[0].file, "logger.cc");
  EXPECT_EQ(t.failures()[0].line, 7);
  EXPECT_EQ(t.failures()[0].message, "flushed twice");
  EXPECT_FALSE(t.failures()[0].exception);
  EXPECT_FALSE(iobench::report_failure("logger.cc", 8, "outside: not recorded"));
}

}  // namespace
