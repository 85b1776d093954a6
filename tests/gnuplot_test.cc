// report/gnuplot: the real gnuplot as a child, its script on a pipe, the SVG and its
// messages drained while the script is still going in.
#include "report/gnuplot.h"

#include <gtest/gtest.h>

#include <string>

#include "base/error.h"

namespace iobench {
namespace {

TEST(Gnuplot, DrawsAScriptToSvg) {
  if (find_gnuplot().empty()) GTEST_SKIP() << "no gnuplot on PATH";
  const std::string svg = run_gnuplot("set terminal svg size 200,100\nplot x title 'line'\n");
  EXPECT_NE(svg.find("<svg"), std::string::npos) << svg.substr(0, 200);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST(Gnuplot, AFailingScriptIsARunFailureNamingGnuplotsLastLine) {
  if (find_gnuplot().empty()) GTEST_SKIP() << "no gnuplot on PATH";
  try {
    // Something on stderr before the error: only the last line names the problem.
    run_gnuplot("set terminal svg\nprint 'before'\nplot nosuchfunction(x)\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_status(), kExitRunFailed);
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("gnuplot failed: ", 0), 0u) << what;
    EXPECT_EQ(what.find("before"), std::string::npos) << what;
    EXPECT_NE(what.find("undefined function: nosuchfunction"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;  // one line
  }
}

TEST(Gnuplot, OutputWhileTheScriptIsStillGoingInDoesNotBlock) {
  if (find_gnuplot().empty()) GTEST_SKIP() << "no gnuplot on PATH";
  // Far more than a pipe holds each way: gnuplot prints to stderr as it reads, so a
  // writer that fed the whole script before reading would deadlock with it.
  std::string script = "set terminal svg size 200,100\n";
  for (int i = 0; i < 20000; ++i) script += "print 'a line of gnuplot output to stderr'\n";
  script += "plot x\n";
  ASSERT_GT(script.size(), 4u * 65536);
  const std::string svg = run_gnuplot(script);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

}  // namespace
}  // namespace iobench
