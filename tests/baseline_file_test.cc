// --baseline FILE through the real binary, where the file is not what a baseline should be:
// a device, a FIFO, a directory, a huge file, the file this run would overwrite, a baseline
// with counts against an untraced run, values spelled as an edited file spells them. Each is
// decided before anything runs (exit 2, stdout empty), at once and in bounded memory.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "asan.h"
#include "run_process.h"
#include "wait_for.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::vector<std::string> kRun = {"--lines", "100", "--strategy", "buffered,writev",
                                       "--runs",  "1",   "--warmup",   "0"};

std::vector<std::string> run_with(std::vector<std::string> extra, const ScratchDir& dir) {
  std::vector<std::string> args = kRun;
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--dir", dir.path()});
  return args;
}

/// A real baseline of kRun at `path`, as --save-baseline writes it.
void save_baseline(const ScratchDir& dir, const std::string& path,
                   std::vector<std::string> extra = {}) {
  extra.insert(extra.end(), {"--save-baseline", path});
  ProcessOutput save = iobench(run_with(extra, dir));
  ASSERT_EQ(save.status, 0) << save.err;
}

/// iobench with `args` under `ulimit -v` (KiB of address space) and a time bound: a
/// baseline read until memory runs out, or one that blocks, fails here rather than hangs.
ProcessOutput bounded_iobench(const std::vector<std::string>& args) {
#if defined(IOBENCH_TEST_ASAN)
  // AddressSanitizer reserves terabytes of shadow address space at start: no `ulimit -v` fits
  // it, so the sanitizer build bounds time only (the Release suite bounds memory too).
  const char* script = "exec \"$@\"";
#else
  const char* script = "ulimit -v 1000000 && exec \"$@\"";
#endif
  std::vector<std::string> cmd = {"/usr/bin/timeout", "60", "/bin/sh", "-c", script, "sh",
                                  IOBENCH_BIN};
  cmd.insert(cmd.end(), args.begin(), args.end());
  return run_process(cmd);
}

// A symlink to /dev/zero was read until std::bad_alloc, a FIFO blocked until a signal.
// Only a regular file is read, at most 8 MiB of it, and at most that is parsed: the
// costliest JSON of that size still fits in the `ulimit -v` of a small machine.
TEST(BaselineFile, OnlyARegularFileOfAtMost8MiBIsRead) {
  ScratchDir dir;
  const std::string zero = dir.path() + "/zero.json", urandom = dir.path() + "/urandom.json",
                    fifo = dir.path() + "/fifo.json", big = dir.path() + "/big.json";
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  ASSERT_EQ(::symlink("/dev/urandom", urandom.c_str()), 0);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Sparse: 8 MiB and one byte, one past the cap, costs no disk.
  std::ofstream(big).put(' ');
  ASSERT_EQ(::truncate(big.c_str(), (off_t{8} << 20) + 1), 0);
  const std::pair<std::string, std::string> cases[] = {
      {zero, "a character device, not a regular file"},
      {urandom, "a character device, not a regular file"},
      {fifo, "a FIFO, not a regular file"},
      {dir.path(), "a directory, not a regular file"},
      {big, "larger than 8 MiB, the most a baseline may be"},
      {dir.path() + "/missing.json", "cannot read it: No such file or directory"},
  };
  for (const auto& [path, why] : cases) {
    ProcessOutput r = bounded_iobench(run_with({"--baseline", path}, dir));
    EXPECT_EQ(r.status, 2) << path << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    EXPECT_TRUE(contains(r.err, fmt::format("iobench: error: --baseline {}: {}", path, why)))
        << r.err;
    EXPECT_TRUE(r.out.empty()) << path << ": nothing may run\n" << r.out;
  }
  // At the cap it is read and parsed, and refused for what it holds: 8 MiB of empty strings,
  // the JSON with the most values per byte (about 30 bytes of memory for each 3 of text).
  std::string costly = R"({"schema":"iobench/1","x":[)";
  const std::size_t cap = std::size_t{8} << 20, tail = 3;  // `""]}` closes it
  while (costly.size() + 3 + tail < cap) costly += R"("",)";
  costly += R"(""]})";
  costly.resize(cap, ' ');
  std::ofstream(big, std::ios::trunc) << costly;
  ProcessOutput at_cap = bounded_iobench(run_with({"--baseline", big}, dir));
  EXPECT_EQ(at_cap.status, 2) << at_cap.err;
  EXPECT_EQ(at_cap.err, "iobench: error: --baseline " + big + ": config.lines is missing\n");
}

/// The names in `dir` that were opened since `watch` began (inotify IN_OPEN), read without
/// waiting: every event of a finished process is queued by then.
std::vector<std::string> opened_names(int watch) {
  std::vector<std::string> names;
  alignas(inotify_event) char buf[4096];
  for (ssize_t n; (n = ::read(watch, buf, sizeof buf)) > 0;) {
    for (char* p = buf; p < buf + n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(p);
      if (ev->len > 0) names.emplace_back(ev->name);
      p += sizeof(inotify_event) + ev->len;
    }
  }
  return names;
}

// The baseline was opened first and checked after: opening a device can itself do something
// (rewind a tape, arm /dev/watchdog). What is not a regular file is refused unopened.
TEST(BaselineFile, WhatIsNotARegularFileIsNeverOpened) {
  ScratchDir dir;
  const std::string fifo = dir.path() + "/fifo.json", device = dir.path() + "/null.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::pair<std::string, std::string>> cases = {{fifo, "a FIFO"}};
  // /dev/null's numbers: opening it is harmless, and inotify sees the open as for a FIFO.
  if (::mknod(device.c_str(), S_IFCHR | 0600, ::makedev(1, 3)) == 0)
    cases.emplace_back(device, "a character device");
  else
    std::printf("no device node (mknod: %s): the FIFO only\n", std::strerror(errno));
  const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch, 0) << std::strerror(errno);
  ASSERT_GE(::inotify_add_watch(watch, dir.path().c_str(), IN_OPEN), 0) << std::strerror(errno);
  for (const auto& [path, what] : cases) {
    ProcessOutput r = bounded_iobench(run_with({"--baseline", path}, dir));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "--baseline " + path + ": " + what + ", not a regular file"))
        << r.err;
  }
  const std::vector<std::string> opened = opened_names(watch);
  ::close(watch);
  for (const auto& [path, what] : cases) {
    const std::string name = path.substr(path.rfind('/') + 1);
    EXPECT_EQ(std::count(opened.begin(), opened.end(), name), 0) << name << " was opened";
  }
}

// --save-baseline onto the --baseline it is compared with saved a regressed run as the new
// baseline, and the next CI run passed. Refused by name and by inode, before the run, for
// every output a run writes.
TEST(BaselineFile, NoOutputMayOverwriteTheBaseline) {
  ScratchDir dir;
  const std::string base = dir.path() + "/b.json", link = dir.path() + "/link.json",
                    hard = dir.path() + "/hard.json";
  save_baseline(dir, base);
  const std::string saved = slurp(base);
  ASSERT_EQ(::symlink("b.json", link.c_str()), 0);
  ASSERT_EQ(::link(base.c_str(), hard.c_str()), 0);
  const std::pair<const char*, std::string> outputs[] = {
      {"--save-baseline", base},   {"--save-baseline", link},
      {"--save-baseline", hard},   {"--save-baseline", dir.path() + "/./b.json"},
      {"--export-json", base},     {"--export-csv", link},
      {"--export-markdown", hard}, {"--export-junit", base},
  };
  for (const auto& [flag, path] : outputs) {
    // A regression (256-byte buffers: 4 write calls, not 1) that would have replaced it.
    ProcessOutput r =
        iobench(run_with({"--buffer-size", "256", "--baseline", base, flag, path}, dir));
    EXPECT_EQ(r.status, 2) << flag << " " << path << "\n" << r.err;
    EXPECT_EQ(r.err, fmt::format("iobench: error: {} {} is the --baseline it is compared with "
                                 "({}): a regressed run would replace it; write to another file\n",
                                 flag, path, base));
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_EQ(slurp(base), saved) << "the baseline is untouched";
  // The same run saving elsewhere compares, fails, and saves.
  ProcessOutput other =
      iobench(run_with({"--buffer-size", "256", "--baseline", link, "--time-tolerance", "1e300",
                        "--save-baseline", dir.path() + "/new.json"},
                       dir));
  EXPECT_EQ(other.status, 1) << other.err;
  EXPECT_TRUE(contains(other.err, "iobench: regression: buffered.write_calls: 1 → 4 (+3)\n"))
      << other.err;
  EXPECT_FALSE(slurp(dir.path() + "/new.json").empty());
}

// Untraced, every count was "not measured on one side" and the run passed whatever the
// counts had become.
TEST(BaselineFile, NoTraceAgainstABaselineWithCountsIsNotComparable) {
  ScratchDir dir;
  const std::string traced = dir.path() + "/traced.json", untraced = dir.path() + "/untraced.json";
  save_baseline(dir, traced);
  ProcessOutput r = iobench(run_with({"--no-trace", "--baseline", traced}, dir));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err,
            "iobench: error: baseline not comparable: it has counts (buffered.write_calls) and "
            "--no-trace measures none; drop --no-trace\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
  // A baseline without counts compares its medians with an untraced run.
  save_baseline(dir, untraced, {"--no-trace"});
  ProcessOutput times =
      iobench(run_with({"--no-trace", "--baseline", untraced, "--time-tolerance", "1e300"}, dir));
  EXPECT_EQ(times.status, 0) << times.err;
  EXPECT_TRUE(contains(times.out, "buffered.time (median)")) << times.out;
}

// --trace-all on one side only: the syscalls the other did not trace compared as 0, so
// openat 1 → 0 was a regression (or 0 → 1, the other way round). Both sides, or neither.
TEST(BaselineFile, TraceAllOnOneSideOnlyIsNotComparable) {
  ScratchDir dir;
  const std::string all = dir.path() + "/all.json", family = dir.path() + "/family.json";
  save_baseline(dir, all, {"--trace-all"});
  save_baseline(dir, family);
  ProcessOutput without = iobench(run_with({"--baseline", all}, dir));
  EXPECT_EQ(without.status, 2) << without.err;
  EXPECT_EQ(without.err,
            "iobench: error: baseline not comparable: it counts buffered.close, which only "
            "--trace-all traces; add --trace-all\n");
  ProcessOutput with = iobench(run_with({"--trace-all", "--baseline", family}, dir));
  EXPECT_EQ(with.status, 2) << with.err;
  EXPECT_EQ(with.err,
            "iobench: error: baseline not comparable: it was saved without --trace-all, so it "
            "counts only the write family; drop --trace-all\n");
  for (const ProcessOutput* r : {&without, &with}) EXPECT_TRUE(r->out.empty()) << r->out;
  // Comparable, so not refused. Whether it then passes is not this test's question: mmap
  // counts follow the allocator's state inherited from iobench (under AddressSanitizer they
  // differ between runs), and a 100-line run's median can be a stall's.
  ProcessOutput both = iobench(run_with({"--trace-all", "--baseline", all}, dir));
  EXPECT_NE(both.status, 2) << both.out << both.err;
  EXPECT_EQ(both.err.find("not comparable"), std::string::npos) << both.err;
}

// As an edited file spells them: -0 and 1.0 are counts, a median of 1e-300 ns is a
// regression printed in a few characters.
TEST(BaselineFile, EditedValuesAreReadAsTheirValues) {
  ScratchDir dir;
  const std::string base = dir.path() + "/b.json", edited = dir.path() + "/edited.json";
  save_baseline(dir, base);
  nlohmann::json doc = nlohmann::json::parse(slurp(base));
  ASSERT_EQ(doc["results"][0]["write_calls"], 1);
  std::string text = doc.dump();
  const std::string one = "\"write_calls\":1}";
  ASSERT_TRUE(contains(text, one)) << text;
  text.replace(text.find(one), one.size(), "\"write_calls\":1.0}");
  text.replace(text.find(one), one.size(), "\"write_calls\":-0}");  // writev's: 0 → 1
  std::ofstream(edited) << text;
  ProcessOutput counts =
      iobench(run_with({"--baseline", edited, "--time-tolerance", "1e300"}, dir));
  EXPECT_EQ(counts.status, 1) << counts.err;
  EXPECT_TRUE(contains(counts.err, "iobench: regression: writev.write_calls: 0 → 1 (+1)\n"))
      << counts.err;
  EXPECT_FALSE(contains(counts.err, "buffered.write_calls")) << counts.err;

  doc["results"][0]["time_ns"]["median"] = 1e-300;
  std::ofstream(edited) << doc.dump();
  ProcessOutput tiny = iobench(run_with({"--baseline", edited}, dir));
  EXPECT_EQ(tiny.status, 1) << tiny.err;
  EXPECT_TRUE(contains(tiny.err, "iobench: regression: buffered.time (median): 1e-300 ns → "))
      << tiny.err;
  EXPECT_TRUE(contains(tiny.err, " (>999×)\n")) << tiny.err;
  EXPECT_LT(tiny.out.size(), 2000u) << tiny.out;
}

/// tests/programs/stall_fs mounted in `dir`: a file that never ends and one whose read
/// stalls until interrupted. Unmounted and stopped at the end.
class StallFs {
 public:
  explicit StallFs(const ScratchDir& dir)
      : mnt_(dir.path() + "/mnt"), reading_(dir.path() + "/reading") {
    ::mkdir(mnt_.c_str(), 0700);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl(STALL_FS_BIN, STALL_FS_BIN, mnt_.c_str(), reading_.c_str(), nullptr);
      ::_exit(127);
    }
    struct stat st {};
    int status = 0;
    testing::wait_until([&] {
      mounted_ = ::stat(path("stall.json").c_str(), &st) == 0;
      return mounted_ || ::waitpid(pid_, &status, WNOHANG) == pid_;
    });
  }
  ~StallFs() {
    ::umount2(mnt_.c_str(), MNT_DETACH);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  StallFs(const StallFs&) = delete;
  StallFs& operator=(const StallFs&) = delete;
  bool mounted() const { return mounted_; }
  std::string path(const std::string& name) const { return mnt_ + "/" + name; }
  /// Whether a read of stall.json has reached the filesystem (and is now stalled there).
  bool reading() const { return ::access(reading_.c_str(), F_OK) == 0; }

 private:
  std::string mnt_, reading_;
  pid_t pid_ = -1;
  bool mounted_ = false;
};

// A read of a stalled mount (a network filesystem, FUSE) interrupted by SIGTERM failed with
// EINTR, which became "cannot read it" (exit 2): it is the user's stop, 128 + 15. And a
// file whose size says 0 but never ends is refused at the cap, not read until memory runs out.
TEST(BaselineFile, AStalledReadStopsOnSigtermAndAnEndlessOneAtTheCap) {
  ScratchDir dir;
  StallFs fs(dir);
  if (!fs.mounted()) GTEST_SKIP() << "cannot mount a FUSE filesystem (needs root and /dev/fuse)";
  const std::string endless = fs.path("endless.json");
  ProcessOutput capped = bounded_iobench(run_with({"--baseline", endless}, dir));
  EXPECT_EQ(capped.status, 2) << capped.err;
  EXPECT_TRUE(contains(capped.err, "--baseline " + endless + ": larger than 8 MiB")) << capped.err;

  const std::string out = dir.path() + "/out", err = dir.path() + "/err";
  const std::vector<std::string> args = run_with({"--baseline", fs.path("stall.json")}, dir);
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen(out.c_str(), "w", stdout);
    std::freopen(err.c_str(), "w", stderr);
    std::vector<char*> argv = {const_cast<char*>(IOBENCH_BIN)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(IOBENCH_BIN, argv.data());
    ::_exit(127);
  }
  EXPECT_TRUE(testing::wait_until([&] { return fs.reading(); })) << "the read never started";
  ::kill(pid, SIGTERM);
  int st = 0;
  // Bounded: a reader that retries the read on EINTR (std::ifstream does) never ends.
  const bool ended = testing::wait_until([&] { return ::waitpid(pid, &st, WNOHANG) == pid; });
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &st, 0);
  }
  ASSERT_TRUE(ended) << "still reading after SIGTERM";
  ASSERT_TRUE(WIFEXITED(st)) << "killed by signal " << WTERMSIG(st);
  EXPECT_EQ(WEXITSTATUS(st), 128 + SIGTERM);
  EXPECT_EQ(slurp(err), "iobench: error: interrupted by SIGTERM\n");
  EXPECT_EQ(slurp(out), "") << "nothing may run";
}

}  // namespace
}  // namespace iobench
