// Every strategy, run for real: a new file in a fresh temporary directory, compared byte for
// byte with the expected stream, over N that cross the digit-count boundaries and parameters
// chosen to break buffering (1-byte buffers, one line per call, one write in flight, a
// mapping window of one page). How they fail and what they refuse: strategy_errors_test.cc.
#include "strategies_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "kernel_probe.h"
#include "strategies/registry.h"
#include "strategies/strategy.h"
#include "strategies/support/line_format.h"

namespace iobench {
namespace {

namespace fs = std::filesystem;

using testing::expected_stream;
using testing::honours_direct;
using testing::make_job;
using testing::page_size;
using testing::read_all;
using testing::same_bytes;
using testing::strategies_under_test;
using testing::TempDir;

/// Why `s` may report unsupported here (the kernel refuses its ring, or `dir` cannot do
/// --direct), or "" when it must run: any other unsupported is a failure, not a skip.
std::string may_refuse(const Strategy* s, const StrategyParams& p, const std::string& dir) {
  return testing::may_be_unsupported(s->name, p.direct, dir);
}

// ---- Every strategy writes the exact stream -------------------------------------------------

struct Case {
  const Strategy* strategy;
  std::uint64_t lines;
  StrategyParams params;
  std::string label;  // the parameter that differs from the defaults, if any
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.strategy->name << " N=" << c.lines << (c.label.empty() ? "" : " ") << c.label;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Strategy* s : strategies_under_test())
    for (std::uint64_t n : {0, 1, 9, 10, 99, 1000, 100000}) out.push_back({s, n, {}, ""});

  const auto add_for = [&](const Strategy* s, std::uint64_t n, auto set, const std::string& label) {
    StrategyParams p;
    set(p);
    out.push_back({s, n, p, label});
  };
  const auto add = [&](const char* name, std::uint64_t n, auto set, const std::string& label) {
    add_for(find_strategy(name), n, set, label);
  };
  // Around kMaxLineBytes (26) the formatter switches from in-place to copied lines.
  for (std::size_t size : {1, 7, 25, 26, 27, 4096}) {
    for (std::uint64_t n : {1, 10, 1000}) {
      const std::string label = "buffer" + std::to_string(size);
      add(
          "buffered", n, [=](StrategyParams& p) { p.buffer_size = size; }, label);
      add(
          "io_uring", n, [=](StrategyParams& p) { p.buffer_size = size; }, label);
      add(
          "io_uring-sqpoll", n, [=](StrategyParams& p) { p.buffer_size = size; }, label);
    }
  }
  add(
      "io_uring-sqpoll", 1000, [](StrategyParams& p) { p.buffer_size = 7, p.queue_depth = 1; },
      "buffer7_depth1");
  add(
      "io_uring-sqpoll", 100000, [](StrategyParams& p) { p.buffer_size = 4096, p.queue_depth = 3; },
      "buffer4096_depth3");
  add(
      "buffered", 100000, [](StrategyParams& p) { p.buffer_size = 7; }, "buffer7");
  add(
      "io_uring", 1000, [](StrategyParams& p) { p.buffer_size = 7, p.queue_depth = 1; },
      "buffer7_depth1");
  add(
      "io_uring", 1000, [](StrategyParams& p) { p.buffer_size = 64, p.queue_depth = 3; },
      "buffer64_depth3");
  for (std::uint64_t n : {1, 1000, 100000})
    add(
        "io_uring", n, [](StrategyParams& p) { p.buffer_size = 4096, p.queue_depth = 1; },
        "buffer4096_depth1");
  // The largest ring: 266 chunks all in flight at once.
  add(
      "io_uring", 100000, [](StrategyParams& p) { p.buffer_size = 4096, p.queue_depth = 32768; },
      "buffer4096_depth32768");
  for (std::size_t size : {1, 7, 4096})
    for (std::uint64_t n : {1, 99, 1000})
      add(
          "stdio", n, [=](StrategyParams& p) { p.stdio_buffer = size; },
          "stdio_buffer" + std::to_string(size));
  add(
      "stdio", 100000, [](StrategyParams& p) { p.stdio_buffer = 4096; }, "stdio_buffer4096");
  for (std::size_t batch : {1, 7})
    for (std::uint64_t n : {1, 10, 1000})
      add(
          "writev", n, [=](StrategyParams& p) { p.batch = batch; },
          "batch" + std::to_string(batch));
  // Windows of one and two pages: lines straddle many window boundaries.
  for (std::size_t pages : {1, 2})
    for (std::uint64_t n : {1, 1000, 100000})
      add(
          "mmap", n, [=](StrategyParams& p) { p.map_window = pages * page_size(); },
          "window" + std::to_string(pages) + "pages");
  // --sync: the bytes do not change, whatever the policy and wherever the syncs fall
  // (the exact fdatasync counts are in strategy_counts_test.cc).
  for (const Strategy* s : strategies_under_test()) {
    add_for(
        s, 1000,
        [](StrategyParams& p) {
          p.sync = {SyncMode::kEnd, 0};
        },
        "sync_end");
    add_for(
        s, 10,
        [](StrategyParams& p) {
          p.sync = {SyncMode::kEvery, 1};
        },
        "sync_every1");
    add_for(
        s, 1000,
        [](StrategyParams& p) {
          p.sync = {SyncMode::kEvery, 300};
        },
        "sync_every300");
  }
  // --direct: aligned blocks, a padded and truncated tail, at sizes on and off a block edge.
  for (const Strategy* s : strategies_under_test()) {
    if (!honours_direct(s)) continue;
    for (std::uint64_t n : {0, 1, 9, 1000, 100000})
      add_for(
          s, n, [](StrategyParams& p) { p.direct = true; }, "direct");
    add_for(
        s, 100000, [](StrategyParams& p) { p.direct = true, p.buffer_size = 4096; },
        "direct_buffer4096");
    add_for(
        s, 1000,
        [](StrategyParams& p) {
          p.direct = true, p.sync = {SyncMode::kEnd, 0};
        },
        "direct_sync_end");
  }
  // Neither 8,890 bytes (N = 1000) nor 1,088,890 (N = 100,000) is a multiple of a block,
  // so the padded tail runs in every direct case above but N = 0.

  // --line-length: every strategy pads every line, from the shortest length that holds the
  // line numbers to the longest allowed (a line as large as format-only's whole buffer).
  for (const Strategy* s : strategies_under_test()) {
    for (std::size_t length : {std::size_t{64}, std::size_t{11}, std::size_t{4097}, kMaxLineLength})
      add_for(
          s, length == 11 ? 100000 : 100, [=](StrategyParams& p) { p.line_length = length; },
          "length" + std::to_string(length));
    if (honours_direct(s))
      for (std::size_t length : {std::size_t{64}, std::size_t{4096}})
        add_for(
            s, 1000, [=](StrategyParams& p) { p.direct = true, p.line_length = length; },
            "direct_length" + std::to_string(length));
  }
  // Padded lines that straddle small buffers, windows and batches, and sync every line.
  for (std::size_t size : {1, 7, 4096}) {
    const std::string label = "buffer" + std::to_string(size) + "_length100";
    for (const char* name : {"buffered", "io_uring", "io_uring-sqpoll"})
      add(
          name, 100, [=](StrategyParams& p) { p.buffer_size = size, p.line_length = 100; }, label);
  }
  add(
      "buffered", 10,
      [](StrategyParams& p) { p.buffer_size = 4096, p.line_length = kMaxLineLength; },
      "buffer4096_length65536");
  add(
      "mmap", 1000, [](StrategyParams& p) { p.map_window = page_size(), p.line_length = 1000; },
      "window1page_length1000");
  add(
      "writev", 100, [](StrategyParams& p) { p.batch = 7, p.line_length = 300; },
      "batch7_length300");
  add(
      "stdio", 100, [](StrategyParams& p) { p.stdio_buffer = 7, p.line_length = 300; },
      "stdio_buffer7_length300");
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name =
      std::string(info.param.strategy->name) + "_N" + std::to_string(info.param.lines);
  if (!info.param.label.empty()) name += "_" + info.param.label;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

class WritesExactStream : public ::testing::TestWithParam<Case> {};

TEST_P(WritesExactStream, ByteForByte) {
  const Case& c = GetParam();
  ASSERT_NE(c.strategy, nullptr);
  TempDir dir;
  const std::string path = dir.file("out");
  const StrategyOutcome out = c.strategy->run(make_job(path, c.lines, c.params));
  // Where io_uring (or SQPOLL) is not allowed, or the filesystem refuses O_DIRECT (tmpfs).
  if (out.status == RunStatus::kUnsupported &&
      !may_refuse(c.strategy, c.params, dir.path()).empty())
    GTEST_SKIP() << out.message;
  ASSERT_EQ(out.status, RunStatus::kOk) << out.message;
  const std::string want = expected_stream(c.lines, c.params.line_length);
  if (c.strategy->writes_file) {
    EXPECT_TRUE(same_bytes(read_all(path), want));
  } else {
    EXPECT_EQ(fs::file_size(path), 0u) << "format-only created the file and wrote nothing";
    EXPECT_EQ(out.produced_bytes, want.size());
  }
}

// The brief's own numbers, not the formula's: 100 lines of 64 bytes are 6,400 bytes.
TEST(LineLength, HundredLinesOf64BytesAre6400BytesInEveryStrategy) {
  for (const Strategy* s : strategies_under_test()) {
    TempDir dir;
    const std::string path = dir.file("out");
    StrategyParams p;
    p.line_length = 64;
    const WriteJob job = make_job(path, 100, p);
    EXPECT_EQ(job.expected_bytes, 6400u);
    const StrategyOutcome out = s->run(job);
    if (out.status == RunStatus::kUnsupported && !may_refuse(s, p, dir.path()).empty()) continue;
    ASSERT_EQ(out.status, RunStatus::kOk) << s->name << ": " << out.message;
    const std::string have = read_all(path);
    EXPECT_EQ(s->writes_file ? have.size() : out.produced_bytes, 6400u) << s->name;
    if (!s->writes_file) continue;
    EXPECT_EQ(have.substr(0, 64), "Line 0" + std::string(57, ' ') + "\n") << s->name;
    EXPECT_EQ(have.substr(99 * 64), "Line 99" + std::string(56, ' ') + "\n") << s->name;
  }
}

INSTANTIATE_TEST_SUITE_P(Strategies, WritesExactStream, ::testing::ValuesIn(cases()), case_name);

// ---- The registry's names -------------------------------------------------------------------

TEST(Registry, NamesAreTheContract) {
  std::vector<std::string> names;
  for (const Strategy* s : all_strategies()) names.emplace_back(s->name);
  EXPECT_EQ(names, (std::vector<std::string>{"unbuffered", "unbuffered-pieces", "stdio", "buffered",
                                             "writev", "io_uring", "io_uring-sqpoll", "mmap",
                                             "single-write", "format-only"}));
  for (const Strategy* s : all_strategies()) {
    EXPECT_EQ(find_strategy(s->name), s);
    EXPECT_FALSE(s->description.empty()) << s->name;
    EXPECT_EQ(s->writes_file, s->name != "format-only") << s->name;
  }
  EXPECT_EQ(find_strategy("template"), nullptr) << "the template is not registered";
}

}  // namespace
}  // namespace iobench
