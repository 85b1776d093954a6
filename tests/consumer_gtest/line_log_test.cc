// LineLog's write calls as GoogleTest checks them, with <iobench/gtest.h>: each test traces the
// code, asserts inside the traced callable as anywhere else, and holds the trace to a matcher
// that prints the trace's table when it fails.
#include "line_log.h"

#include <gtest/gtest.h>
#include <iobench/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

namespace {

/// A file of its own for each test, removed after it.
class LineLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/line-log-test.XXXXXX";
    const int fd = ::mkstemp(tmpl);
    ::close(fd);
    path_ = tmpl;
  }
  void TearDown() override { ::unlink(path_.c_str()); }
  std::string path_;
};

// 1,000 lines of 9,890 bytes through a 4 KiB buffer: three write calls.
TEST_F(LineLogTest, WritesAThousandLinesInThreeCalls) {
  const iobench::Trace t = iobench::trace([&] {
    LineLog log(path_);
    for (int i = 0; i < 1000; ++i) log.add("event " + std::to_string(i));
    EXPECT_EQ(log.lines(), 1000u);  // in the traced child: a failure here fails this test
    EXPECT_EQ(log.flushes(), 2u) << "two full buffers before the last one";
  });
  EXPECT_THAT(t, iobench::MakesWriteCalls(3));
  EXPECT_THAT(t, iobench::WritesToFile(path_, 3));
}

TEST_F(LineLogTest, AFewLinesAreOneWrite) {
  const iobench::Trace t = iobench::trace([&] {
    LineLog log(path_);
    for (int i = 0; i < 20; ++i) log.add("event " + std::to_string(i));
  });
  EXPECT_THAT(t, iobench::MakesAtMostWriteCalls(1));
}

}  // namespace
