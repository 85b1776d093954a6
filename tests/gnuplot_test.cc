// report/gnuplot: the real gnuplot as a child, its script on a pipe, the SVG and its
// messages drained while the script is still going in.
#include "report/gnuplot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "base/error.h"
#include "report/escape.h"
#include "report/plot.h"
#include "run_process.h"
#include "sample_report.h"

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

// A name from outside (compare -n, --dir) goes into the script: gnuplot must neither run the
// command in its backquotes (it does inside double quotes) nor put ESC or a non-UTF-8 byte
// into the SVG, which is XML.
TEST(Gnuplot, ANameIsTextNeverACommandAndTheSvgStaysUtf8) {
  if (find_gnuplot().empty()) GTEST_SKIP() << "no gnuplot on PATH";
  testing::ScratchDir dir;
  const std::string marker = dir.path() + "/ran";
  RunRecord rep = testing::sample_report();
  rep.results.resize(2);
  rep.results[0].strategy = "`touch " + marker + "`\x1b\xff\"q\\";
  rep.results[1].strategy = "two\nlines";
  rep.commands = {{rep.results[0].strategy, "a"}, {rep.results[1].strategy, "b"}};
  const std::string svg = run_gnuplot(plot_terminal("x.svg") + comparison_plot_script(rep, {}));
  EXPECT_NE(::access(marker.c_str(), F_OK), 0) << "gnuplot ran the name as a command";
  EXPECT_TRUE(is_utf8(svg));
  EXPECT_EQ(svg.find('\x1b'), std::string::npos);
  EXPECT_NE(svg.find("`touch " + marker + "`\\x1b\\xff\"q\\\\"), std::string::npos) << svg;
}

}  // namespace
}  // namespace iobench
