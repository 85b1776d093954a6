// Every strategy, run for real: a new file in a fresh temporary directory, compared byte for
// byte with the expected stream, over N that cross the digit-count boundaries and parameters
// chosen to break buffering (1-byte buffers, one line per call, one write in flight, a
// mapping window of one page).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_probe.h"
#include "line_format.h"
#include "registry.h"
#include "strategy.h"

namespace iobench {

// Not in the registry; tested here so that the starting point for new strategies stays correct.
extern const Strategy kTemplate;

void PrintTo(RunStatus s, std::ostream* os) {
  *os << (s == RunStatus::kOk ? "kOk" : s == RunStatus::kUnsupported ? "kUnsupported" : "kFailed");
}

void PrintTo(const Strategy* s, std::ostream* os) { *os << s->name; }

namespace {

namespace fs = std::filesystem;

/// A mkdtemp directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "iobench-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const char* name) const { return (path_ / name).string(); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

std::string expected_stream(std::uint64_t lines) {
  std::string s;
  s.reserve(expected_bytes(lines));
  char buf[kMaxLineBytes];
  for (std::uint64_t i = 0; i < lines; ++i) s.append(buf, format_line(buf, i));
  return s;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Names the first difference instead of printing a megabyte.
::testing::AssertionResult same_bytes(const std::string& have, const std::string& want) {
  if (have == want) return ::testing::AssertionSuccess();
  const auto diff =
      std::mismatch(have.begin(), have.begin() + std::min(have.size(), want.size()), want.begin());
  const auto at = static_cast<std::size_t>(diff.first - have.begin());
  const std::size_t from = at < 16 ? 0 : at - 16;
  return ::testing::AssertionFailure()
         << have.size() << " bytes, want " << want.size() << "; first difference at offset " << at
         << ": got \"" << have.substr(from, 32) << "\", want \"" << want.substr(from, 32) << "\"";
}

WriteJob make_job(const std::string& path, std::uint64_t lines, StrategyParams params = {}) {
  params.lines = lines;
  return WriteJob{path.c_str(), params, expected_bytes(lines)};
}

/// Why `s` may report unsupported here (the kernel refuses its ring, or `dir` cannot do
/// --direct), or "" when it must run: any other unsupported is a failure, not a skip.
std::string may_refuse(const Strategy* s, const StrategyParams& p, const std::string& dir) {
  return testing::may_be_unsupported(s->name, p.direct, dir);
}

/// Honour --direct (the rest refuse it before creating anything).
bool honours_direct(const Strategy* s) {
  for (const char* name :
       {"buffered", "io_uring", "io_uring-sqpoll", "single-write", "format-only"})
    if (s->name == name) return true;
  return false;
}

std::vector<const Strategy*> strategies_under_test() {
  std::vector<const Strategy*> all(all_strategies().begin(), all_strategies().end());
  all.push_back(&kTemplate);
  return all;
}

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

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
  if (c.strategy->writes_file) {
    EXPECT_TRUE(same_bytes(read_all(path), expected_stream(c.lines)));
  } else {
    EXPECT_EQ(fs::file_size(path), 0u) << "format-only created the file and wrote nothing";
    EXPECT_EQ(out.produced_bytes, expected_bytes(c.lines));
  }
}

INSTANTIATE_TEST_SUITE_P(Strategies, WritesExactStream, ::testing::ValuesIn(cases()), case_name);

// ---- Every strategy creates the file the safe way and reports errors -----------------------

class EveryStrategy : public ::testing::TestWithParam<const Strategy*> {
 protected:
  /// Runs the strategy; false (and the test is skipped) where the kernel refuses io_uring.
  bool run(const WriteJob& job, StrategyOutcome& out) {
    out = GetParam()->run(job);
    return !(out.status == RunStatus::kUnsupported &&
             !testing::may_be_unsupported(GetParam()->name, false, "").empty());
  }
};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST_P(EveryStrategy, RefusesAnExistingFile) {
  TempDir dir;
  const std::string path = dir.file("out");
  write_text(path, "precious");
  StrategyOutcome out;
  if (!run(make_job(path, 10), out)) GTEST_SKIP() << out.message;
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_EQ(out.error, EEXIST);
  EXPECT_NE(std::string(out.message).find("File exists"), std::string::npos) << out.message;
  EXPECT_EQ(read_all(path), "precious");
}

TEST_P(EveryStrategy, DoesNotFollowAPlantedSymlink) {
  TempDir dir;
  const std::string path = dir.file("out");
  const std::string victim = dir.file("victim");
  const std::string nowhere = dir.file("nowhere");
  write_text(victim, "precious");
  fs::create_symlink(victim, path);
  StrategyOutcome out;
  if (!run(make_job(path, 10), out)) GTEST_SKIP() << out.message;
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_EQ(read_all(victim), "precious");

  // A dangling link must not create its target either.
  fs::remove(path);
  fs::create_symlink(nowhere, path);
  out = GetParam()->run(make_job(path, 10));
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_FALSE(fs::exists(fs::symlink_status(nowhere)));
  EXPECT_TRUE(fs::is_symlink(path));
}

TEST_P(EveryStrategy, ReportsAFailedWriteWithItsErrno) {
  // RLIMIT_FSIZE makes the kernel refuse bytes past 4 KiB with EFBIG (SIGXFSZ ignored), a real
  // write error without a full disk. A forked child, as in the runner, keeps the limit local.
  TempDir dir;
  const std::string path = dir.file("out");
  const WriteJob job = make_job(path, 1000);  // 8,890 bytes
  void* shared = ::mmap(nullptr, sizeof(StrategyOutcome), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(shared, MAP_FAILED);
  auto* result = new (shared) StrategyOutcome;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    *result = GetParam()->run(job);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const StrategyOutcome out = *result;
  ::munmap(shared, sizeof(StrategyOutcome));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  if (out.status == RunStatus::kUnsupported &&
      !testing::may_be_unsupported(GetParam()->name, false, "").empty())
    GTEST_SKIP() << out.message;

  if (!GetParam()->writes_file) {  // format-only never writes, so it cannot hit the limit
    EXPECT_EQ(out.status, RunStatus::kOk) << out.message;
    return;
  }
  EXPECT_EQ(out.status, RunStatus::kFailed) << out.message;
  EXPECT_EQ(out.error, EFBIG) << out.message;
  EXPECT_NE(std::string(out.message).find("File too large"), std::string::npos) << out.message;
  // Whatever got through before the limit is the start of the stream, nothing else.
  const std::string have = read_all(path);
  EXPECT_LE(have.size(), 4096u);
  EXPECT_TRUE(same_bytes(have, expected_stream(1000).substr(0, have.size())));
}

std::string strategy_name(const ::testing::TestParamInfo<const Strategy*>& info) {
  std::string name(info.param->name);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Strategies, EveryStrategy, ::testing::ValuesIn(strategies_under_test()),
                         strategy_name);

// ---- Strategy-specific limits ---------------------------------------------------------------

TEST(SingleWrite, RefusesMoreThanOneGibibyteBeforeCreatingAnything) {
  TempDir dir;
  const std::string path = dir.file("out");
  WriteJob job = make_job(path, 10);
  job.expected_bytes = (std::uint64_t{1} << 30) + 1;  // checked before any allocation
  const StrategyOutcome out = find_strategy("single-write")->run(job);
  EXPECT_EQ(out.status, RunStatus::kUnsupported);
  EXPECT_STREQ(out.message, "buffer of 1073741825 bytes exceeds the 1 GiB cap");
  EXPECT_FALSE(fs::exists(path));
}

TEST(SingleWrite, AcceptsExactlyOneGibibyteAsTheCap) {
  // The boundary itself is allowed; the mismatch with the lines is then reported, not overrun.
  TempDir dir;
  const std::string path = dir.file("out");
  WriteJob job = make_job(path, 10);
  job.expected_bytes = 4096;
  const StrategyOutcome out = find_strategy("single-write")->run(job);
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_STREQ(out.message, "expected_bytes does not match the lines");
}

TEST(Mmap, ReportsAnExpectedSizeThatDisagreesWithTheLines) {
  for (std::uint64_t wrong : {expected_bytes(1000) - 1, expected_bytes(1000) + 1}) {
    TempDir dir;
    const std::string path = dir.file("out");
    WriteJob job = make_job(path, 1000);
    job.expected_bytes = wrong;
    job.params.map_window = page_size();
    const StrategyOutcome out = find_strategy("mmap")->run(job);
    EXPECT_EQ(out.status, RunStatus::kFailed) << "expected_bytes " << wrong;
  }
}

// ---- --direct --------------------------------------------------------------------------------

class DirectRefused : public ::testing::TestWithParam<const Strategy*> {};

TEST_P(DirectRefused, IsUnsupportedWithAReasonAndCreatesNothing) {
  TempDir dir;
  const std::string path = dir.file("out");
  StrategyParams p;
  p.direct = true;
  const StrategyOutcome out = GetParam()->run(make_job(path, 1000, p));
  EXPECT_EQ(out.status, RunStatus::kUnsupported) << out.message;
  EXPECT_EQ(std::string(out.message).rfind("--direct: ", 0), 0u) << out.message;
  EXPECT_FALSE(fs::exists(fs::symlink_status(path)));
}

std::vector<const Strategy*> refusing_direct() {
  std::vector<const Strategy*> out;
  for (const Strategy* s : strategies_under_test())
    if (!honours_direct(s)) out.push_back(s);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Strategies, DirectRefused, ::testing::ValuesIn(refusing_direct()),
                         strategy_name);

TEST(Direct, ABufferOffTheBlockSizeIsUnsupported) {
  for (const char* name : {"buffered", "io_uring"}) {
    TempDir dir;
    StrategyParams p;
    p.direct = true;
    p.buffer_size = 1000;  // no filesystem aligns direct I/O to 1000 bytes
    const StrategyOutcome out = find_strategy(name)->run(make_job(dir.file("out"), 1000, p));
    EXPECT_EQ(out.status, RunStatus::kUnsupported) << name << ": " << out.message;
    // A filesystem without direct I/O (the probe, not the message, says so) is refused
    // earlier, for its own reason; everywhere else the alignment is the reason.
    const std::string message = out.message;
    if (!testing::may_be_unsupported(name, false, "").empty()) continue;  // no ring at all
    if (testing::direct_refused(dir.path()).empty()) {
      EXPECT_NE(message.find("not a multiple"), std::string::npos) << message;
    } else {
      EXPECT_EQ(message.rfind("--direct: ", 0), 0u) << message;
    }
  }
}

TEST(Direct, TmpfsIsUnsupported) {
  if (!fs::is_directory("/dev/shm") || ::access("/dev/shm", W_OK) != 0)
    GTEST_SKIP() << "no writable /dev/shm";
  const std::string path = "/dev/shm/iobench-direct-test-" + std::to_string(::getpid());
  StrategyParams p;
  p.direct = true;
  const StrategyOutcome out = find_strategy("buffered")->run(make_job(path, 10, p));
  ::unlink(path.c_str());
  EXPECT_EQ(out.status, RunStatus::kUnsupported) << out.message;
}

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
