// --sync and --direct under iobench's own tracer: a real file, a real child, an exact count.
// Each case runs one strategy in a traced child (count mode) and checks how many fdatasync,
// ftruncate and data-write calls reached its file: the policy's arithmetic (README
// "Durability and direct I/O"), not just the bytes (strategies_test.cc checks those).
#include <gtest/gtest.h>
#include <sched.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "kernel_probe.h"
#include "line_format.h"
#include "registry.h"
#include "result.h"
#include "strategy.h"
#include "tracer/tracer.h"

namespace iobench {
namespace {

namespace fs = std::filesystem;

/// A private directory under $TMPDIR or /tmp, by its canonical path (what /proc/PID/fd shows).
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "iobench-counts-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = fs::canonical(tmpl).string();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const char* name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Calls per syscall name on one file, from one traced run; not `ran` when it cannot be traced
/// or the strategy reports unsupported where the kernel allows that (io_uring refused, a
/// filesystem without O_DIRECT: kernel_probe.h). Any other unsupported is a failure.
struct Calls {
  bool ran = false;
  std::string why;
  std::map<std::string, std::uint64_t> by_name;
  std::uint64_t operator[](const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? 0 : it->second;
  }
};

Calls trace_calls(const char* strategy, std::uint64_t lines, StrategyParams params) {
  TempDir dir;
  const std::string path = dir.file("out");
  params.lines = lines;
  const WriteJob job{path.c_str(), params, expected_bytes(lines)};
  const Strategy* s = find_strategy(strategy);
  TracerOptions options;
  options.mode = TraceMode::kCount;
  Tracer tracer(options);
  // Exit status 2: unsupported here. The message is lost with the child; the bytes tests
  // report it.
  const TraceResult r = tracer.run([&]() noexcept {
    const StrategyOutcome out = s->run(job);
    return out.status == RunStatus::kOk ? 0 : out.status == RunStatus::kUnsupported ? 2 : 1;
  });
  Calls c;
  if (!r.available) {
    c.why = "cannot trace: " + r.unavailable_reason;
    return c;
  }
  const std::string may_refuse = testing::may_be_unsupported(strategy, params.direct, dir.path());
  if (r.exit_code == 2 && !may_refuse.empty()) {
    c.why = std::string(strategy) + " is unsupported here: " + may_refuse;
    return c;
  }
  EXPECT_EQ(r.exit_code, 0) << strategy << (r.exit_code == 2 ? " unsupported" : " failed");
  c.ran = true;
  for (const FileStats& f : r.files)
    if (f.path == path)
      for (const auto& [name, st] : f.syscalls) c.by_name[name] += st.calls;
  return c;
}

std::uint64_t calls_named(const TraceResult& r, const std::string& name) {
  auto it = r.syscalls.find(name);
  return it == r.syscalls.end() ? 0 : it->second.calls;
}

StrategyParams sync_every(std::uint64_t n) {
  StrategyParams p;
  p.sync = {SyncMode::kEvery, n};
  return p;
}

struct SyncCase {
  const char* strategy;
  StrategyParams params;  // sync policy and the knobs that set the unit count
  std::uint64_t syncs;    // fdatasync calls expected at N = 1000 (8,890 bytes)
};

void PrintTo(const SyncCase& c, std::ostream* os) { *os << c.strategy; }

// every:N syncs after each N units and once more before close for the rest: ceil(units/N),
// and at least one (a new file is not durable until synced, even empty).
std::vector<SyncCase> sync_cases() {
  auto with = [](StrategyParams p, auto set) {
    set(p);
    return p;
  };
  return {
      {"unbuffered", sync_every(300), 4},          // 1000 writes: 3 + the rest
      {"unbuffered-pieces", sync_every(300), 10},  // 3000 writes: exactly 10, no rest
      {"stdio", sync_every(300), 4},               // 1000 lines, each flushed on a sync
      {"buffered", with(sync_every(2), [](StrategyParams& p) { p.buffer_size = 1024; }),
       5},                                                                           // 9 buffers
      {"writev", with(sync_every(3), [](StrategyParams& p) { p.batch = 100; }), 4},  // 10 calls
      {"io_uring", with(sync_every(2), [](StrategyParams& p) { p.buffer_size = 1024; }),
       5},  // 9 chunks
      {"io_uring-sqpoll", with(sync_every(2), [](StrategyParams& p) { p.buffer_size = 1024; }), 5},
      {"mmap", with(sync_every(2), [](StrategyParams& p) { p.map_window = 4096; }),
       2},                                 // 3 windows
      {"single-write", sync_every(5), 1},  // one write
      {"format-only", sync_every(5), 1},   // no writes: the closing sync only
  };
}

class SyncCounts : public ::testing::TestWithParam<SyncCase> {};

TEST_P(SyncCounts, EveryNUnitsAndTheRestBeforeClose) {
  const SyncCase& c = GetParam();
  const Calls calls = trace_calls(c.strategy, 1000, c.params);
  if (!calls.ran) GTEST_SKIP() << calls.why;
  EXPECT_EQ(calls["fdatasync"], c.syncs);
  EXPECT_EQ(calls["fsync"], 0u) << "fdatasync, not fsync";
}

TEST_P(SyncCounts, EndIsOneSyncAndNoneIsNone) {
  StrategyParams p = GetParam().params;
  p.sync = {SyncMode::kEnd, 0};
  Calls calls = trace_calls(GetParam().strategy, 1000, p);
  if (!calls.ran) GTEST_SKIP() << calls.why;
  EXPECT_EQ(calls["fdatasync"], 1u);
  std::map<std::string, std::uint64_t> with_sync = calls.by_name;
  with_sync.erase("fdatasync");
  p.sync = {};
  calls = trace_calls(GetParam().strategy, 1000, p);
  ASSERT_TRUE(calls.ran) << calls.why;  // "no fdatasync" means nothing if it did not run
  EXPECT_EQ(calls["fdatasync"], 0u);
  // The same calls on the file but the sync: the run did all its work, only without it.
  EXPECT_EQ(calls.by_name, with_sync);
}

std::string sync_name(const ::testing::TestParamInfo<SyncCase>& info) {
  std::string name = info.param.strategy;
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Strategies, SyncCounts, ::testing::ValuesIn(sync_cases()), sync_name);

// --direct: whole aligned blocks, the last one padded, then one ftruncate back to the exact
// size (8,890 bytes is no multiple of any block size).
TEST(DirectCounts, WholeBlocksThenOneTruncate) {
  StrategyParams p;
  p.direct = true;
  p.buffer_size = 4096;
  const std::pair<const char*, std::uint64_t> cases[] = {
      {"buffered", 3},      // 4096 + 4096 + 698 padded to a block
      {"single-write", 1},  // 8,890 padded to a block
  };
  for (const auto& [strategy, writes] : cases) {
    const Calls calls = trace_calls(strategy, 1000, p);
    if (!calls.ran) GTEST_SKIP() << calls.why;
    EXPECT_EQ(calls["write"], writes) << strategy;
    EXPECT_EQ(calls["ftruncate"], 1u) << strategy;
  }
}

TEST(DirectCounts, NoTruncateWhenTheFileEndsOnABlock) {
  StrategyParams p;
  p.direct = true;
  const Calls calls = trace_calls("single-write", 0, p);
  if (!calls.ran) GTEST_SKIP() << calls.why;
  EXPECT_EQ(calls["write"], 0u);
  EXPECT_EQ(calls["ftruncate"], 0u);
}

// The point of SQPOLL: the kernel thread takes the submissions. Exactly one io_uring_enter,
// to wake the poller at the start, whether or not it had gone to sleep yet (a count that
// depended on that made baselines flap); 266 chunks need no other. (A second would mean the
// process stood still for the poller's 1 s idle time: a badly overloaded machine.)
TEST(SqpollCounts, ExactlyOneRingEnterToWakeThePoller) {
  StrategyParams p;
  p.buffer_size = 4096;
  TempDir dir;
  const std::string path = dir.file("out");
  p.lines = 100000;
  const WriteJob job{path.c_str(), p, expected_bytes(p.lines)};
  TracerOptions options;
  options.mode = TraceMode::kCount;
  Tracer tracer(options);
  const TraceResult r = tracer.run([&]() noexcept {
    // On one CPU, as the tracer used to pin every tracee: the poller (which inherits the
    // mask) then runs when the program yields. Free on two loaded CPUs it can fall asleep
    // between rounds and need more wake-ups (seen untraced too, with perf counters).
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(::sched_getcpu(), &one);
    ::sched_setaffinity(0, sizeof(one), &one);
    const StrategyOutcome out = find_strategy("io_uring-sqpoll")->run(job);
    return out.status == RunStatus::kOk ? 0 : out.status == RunStatus::kUnsupported ? 2 : 1;
  });
  if (!r.available) GTEST_SKIP() << r.unavailable_reason;
  if (r.exit_code == 2 && !testing::ring_refused(true).empty())
    GTEST_SKIP() << "io_uring-sqpoll is unsupported here: " << testing::ring_refused(true);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(calls_named(r, "io_uring_enter"), 1u);
  EXPECT_EQ(calls_named(r, "write") + calls_named(r, "writev"), 0u)
      << "the poller, not write(2), takes the data";
}

}  // namespace
}  // namespace iobench
