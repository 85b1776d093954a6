// Shared by the presentation tests (presentation_test.cc, presentation_plot_test.cc,
// presentation_commands_test.cc): iobench as a presenter runs it (with its own environment,
// on a pseudo-terminal), a fixed run of every strategy, and what a chart is checked with.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "report/grid.h"
#include "report/reporter.h"
#include "run/noise.h"
#include "run_process.h"

namespace iobench::testing {

/// iobench with extra environment variables (through env(1), so the test's own stays put).
inline ProcessOutput iobench_env(const std::vector<std::string>& env,
                                 std::vector<std::string> args) {
  args.insert(args.begin(), IOBENCH_BIN);
  args.insert(args.begin(), env.begin(), env.end());
  args.insert(args.begin(), "/usr/bin/env");
  return run_process(args);
}

/// iobench with stdout on a pseudo-terminal, as a presenter runs it; returns what it printed.
inline std::string iobench_on_terminal(const std::vector<std::string>& env,
                                       std::vector<std::string> args) {
  int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  EXPECT_GE(master, 0);
  ::grantpt(master);
  ::unlockpt(master);
  std::string slave = ::ptsname(master);
  args.insert(args.begin(), IOBENCH_BIN);
  args.insert(args.begin(), env.begin(), env.end());
  args.insert(args.begin(), "/usr/bin/env");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    int fd = ::open(slave.c_str(), O_RDWR);
    int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(fd, 1);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child closed the terminal
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  return out;
}

/// The widest line below the two heading lines (which name the directory, any length).
inline std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0, start = text.find('\n', text.find('\n') + 1) + 1;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    widest = std::max(widest, display_width(text.substr(start, end - start)));
    start = end + 1;
  }
  return widest;
}

/// The titles of the SVG's plot elements (<g id="gnuplot_plot_..."><title>T</title>), one
/// per bar or point per panel.
inline std::vector<std::string> mark_titles(const std::string& svg) {
  static const std::regex kMark(R"re(<g id="gnuplot_plot_[0-9]+[a-z]*" ><title>([^<]*)</title>)re");
  std::vector<std::string> out;
  for (std::sregex_iterator it(svg.begin(), svg.end(), kMark), end; it != end; ++it)
    out.push_back((*it)[1]);
  return out;
}

inline long count(const std::vector<std::string>& v, const std::string& x) {
  return std::count(v.begin(), v.end(), x);
}

/// Well-formed XML (xmllint) that draws (rsvg-convert makes a PNG of it).
inline void expect_svg_draws(const std::string& svg_path) {
  EXPECT_EQ(std::system(("xmllint --noout '" + svg_path + "'").c_str()), 0) << svg_path;
  const std::string png = svg_path + ".png";
  ASSERT_EQ(std::system(("rsvg-convert '" + svg_path + "' -o '" + png + "'").c_str()), 0);
  const std::string bytes = slurp(png);
  ASSERT_GT(bytes.size(), 10000u) << "a chart, not an empty canvas";
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
}

/// A measured, traced row: `calls` write calls taking half its first time, a trusted share.
inline StrategyResult row(const std::string& name, std::uint64_t calls,
                          std::vector<std::int64_t> times) {
  StrategyResult r;
  r.strategy = name;
  r.bytes = 1088890;
  r.verified = true;
  r.time_ns = summarize(times);
  r.noisy = noisy(r.time_ns);  // as the runner judges it
  r.cpu_ns = summarize(times);
  r.minor_faults = 50;
  r.write_calls = calls;
  r.syscall_time_ns = times.front() / 2;
  r.syscall_share = 0.5;  // what set_syscall_share() takes from the traced run
  TraceResult t;
  t.available = true;
  r.trace = t;
  return r;
}

/// A traced run of every strategy at 100,000 lines, with quiet timings.
inline RunRecord every_strategy() {
  RunRecord rep;
  rep.version = "test";
  rep.lines = 100000;
  rep.bytes = 1088890;
  rep.dir = "/tmp";
  rep.filesystem = "ext4";
  rep.runs = 3;
  rep.traced = true;
  rep.block_size = 4096;
  rep.host.cpu = "Test CPU";
  rep.host.cpus = 2;
  rep.results = {row("unbuffered", 100000, {56'000'000, 57'000'000, 58'000'000}),
                 row("unbuffered-pieces", 300000, {170'000'000, 171'000'000, 172'000'000}),
                 row("stdio", 266, {4'000'000, 4'100'000, 4'200'000}),
                 row("buffered", 17, {1'900'000, 2'000'000, 2'100'000}),
                 row("writev", 98, {4'700'000, 4'800'000, 4'900'000}),
                 row("io_uring", 1, {2'400'000, 2'500'000, 2'600'000}),
                 row("mmap", 0, {2'200'000, 2'300'000, 2'400'000}),
                 row("single-write", 1, {2'000'000, 2'100'000, 2'200'000}),
                 row("format-only", 0, {1'000'000, 1'050'000, 1'100'000})};
  rep.results[6].minor_faults = 306;
  rep.results[5].cpu_ns = summarize({5'000'000, 5'000'000, 5'000'000});  // io-wq workers
  return rep;
}

}  // namespace iobench::testing
