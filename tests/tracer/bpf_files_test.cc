// --tracer bpf against ptrace on the same programs: the files each call went to (path as
// /proc/PID/fd shows it, kind as fd_kind.h decides, calls and errors per syscall), the
// write_calls they add up to, and the per-process rows. Skipped where bpf cannot load.
#include <fcntl.h>
#include <pty.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/unique_fd.h"
#include "bpf_test_util.h"
#include "strategies/registry.h"
#include "strategies/support/line_format.h"
#include "tracer/bpf_backend.h"
#include "tracer/write_calls.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

using namespace std::string_literals;

/// (path, kind) -> syscall -> (calls, errors). Two runs make two pipes, sockets, terminals:
/// their numbers are masked.
using Cell = std::pair<std::uint64_t, std::uint64_t>;
using FileCalls = std::map<std::pair<std::string, FdKind>, std::map<std::string, Cell>>;

std::string masked(const std::string& path) {
  for (const char* prefix : {"pipe:[", "socket:[", "/dev/pts/"})
    if (path.rfind(prefix, 0) == 0) return std::string(prefix) + "N";
  return path;
}

FileCalls file_calls(const TraceResult& r) {
  FileCalls out;
  for (const FileStats& f : r.files)
    for (const auto& [name, s] : f.syscalls)
      out[{masked(f.path), f.kind}][name] = {s.calls, s.errors};
  return out;
}

/// Each process's calls per syscall, in pid order (the pids differ between runs).
std::vector<std::map<std::string, Cell>> process_calls(const TraceResult& r) {
  std::vector<std::map<std::string, Cell>> out;
  for (const ProcessStats& p : r.processes) {
    auto& row = out.emplace_back();
    for (const auto& [name, s] : p.syscalls) row[name] = {s.calls, s.errors};
  }
  return out;
}

std::string describe(const FileCalls& files) {
  std::string out;
  for (const auto& [file, calls] : files)
    for (const auto& [name, c] : calls)
      out += file.first + " kind " + std::to_string(static_cast<int>(file.second)) + " " + name +
             " calls " + std::to_string(c.first) + " errors " + std::to_string(c.second) + "\n";
  return out;
}

/// One program under both backends, in `mode` (ptrace times every call: errors are exact).
struct Both {
  TraceResult bpf, ptrace;
};
Both run_both(const std::function<std::function<int()>()>& child, TraceMode mode) {
  Both b;
  BpfBackend bpf{TracerOptions{.mode = mode}};
  b.bpf = bpf.run(child(), std::chrono::seconds(30));
  Tracer tracer(TracerOptions{.mode = mode, .time_all = true});
  b.ptrace = tracer.run(child(), std::chrono::seconds(30));
  return b;
}

/// A Command made anew per run (it records the pid of its own run), `before` each.
std::function<std::function<int()>()> exec_of(
    std::vector<std::string> args, std::function<void()> before = [] {}) {
  auto keep = std::make_shared<std::vector<std::unique_ptr<Command>>>();
  return [args = std::move(args), keep, before = std::move(before)] {
    before();
    keep->push_back(std::make_unique<Command>(args));
    return keep->back()->fn();
  };
}

/// The two backends agree on every file, kind and count, and on write_calls.
void expect_same_files(const Both& b, std::uint64_t write_calls) {
  ASSERT_TRUE(b.bpf.available) << b.bpf.unavailable_reason;
  EXPECT_EQ(b.bpf.exit_code, 0);
  EXPECT_EQ(b.ptrace.exit_code, 0);
  const FileCalls bpf = file_calls(b.bpf), ptrace = file_calls(b.ptrace);
  EXPECT_EQ(bpf, ptrace) << "bpf:\n" << describe(bpf) << "ptrace:\n" << describe(ptrace);
  EXPECT_EQ(count_writes(b.bpf).calls, write_calls);
  EXPECT_EQ(count_writes(b.ptrace).calls, write_calls);
  EXPECT_EQ(process_calls(b.bpf), process_calls(b.ptrace));
}

/// This process's stdout (what a child inherits as its stream) sent to a file for a while:
/// a regular file that is a stream, which only the stream test tells from a file.
class StdoutToFile {
 public:
  explicit StdoutToFile(const std::string& path) : saved_(::dup(STDOUT_FILENO)) {
    std::fflush(stdout);
    const UniqueFd file(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    ::dup2(file.get(), STDOUT_FILENO);
  }
  ~StdoutToFile() {
    std::fflush(stdout);
    ::dup2(saved_.get(), STDOUT_FILENO);
  }
  StdoutToFile(const StdoutToFile&) = delete;
  StdoutToFile& operator=(const StdoutToFile&) = delete;

 private:
  UniqueFd saved_;
};

class BpfFiles : public TracerTest {
 protected:
  void SetUp() override {
    TracerTest::SetUp();
    if (const std::string why = tracing::bpf_clock_unavailable_reason(); !why.empty())
      GTEST_SKIP() << "kernel clock unavailable: " << why;
  }
  TempDir dir;
};

TEST_F(BpfFiles, AFileAPipeAndStdoutAsPtraceSeesThem) {
  // 3 writes a round to the file count; the pipe, stdout, fsync and ftruncate do not.
  const Both b =
      run_both(exec_of({PROGRAM_MIXED_WRITER, dir.file("out"), "100"}), TraceMode::kCount);
  expect_same_files(b, 300);
  EXPECT_EQ(file_calls(b.bpf).count({dir.file("out"), FdKind::kFile}), 1u);
  // Stdout a regular file: still the stream, not a file written to.
  const StdoutToFile redirected(dir.file("stdout"));
  const Both to_file =
      run_both(exec_of({PROGRAM_MIXED_WRITER, dir.file("out2"), "100"}), TraceMode::kCount);
  expect_same_files(to_file, 300);
  EXPECT_EQ(file_calls(to_file.bpf).count({dir.file("stdout"), FdKind::kStream}), 1u);
}

TEST_F(BpfFiles, PipesFifosAndAnonymousInodes) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{PROGRAM_FD_KINDS, "pipe", "50"},
        {PROGRAM_FD_KINDS, "fifo", dir.file("fifo"), "50"},
        {PROGRAM_FD_KINDS, "anon", "50"}}) {
    SCOPED_TRACE(args[1]);
    const auto child = exec_of(args, [this] { std::filesystem::remove(dir.file("fifo")); });
    expect_same_files(run_both(child, TraceMode::kCount), 0);
  }
}

TEST_F(BpfFiles, ReadOnlyAndBadFdsFailAsErrorsOfTheirKind) {
  { std::ofstream(dir.file("ro")) << "x"; }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{PROGRAM_FD_KINDS, "readonly", dir.file("ro"), "40"},
        {PROGRAM_FD_KINDS, "badfd", "40"}}) {
    SCOPED_TRACE(args[1]);
    const Both b = run_both(exec_of(args), TraceMode::kTiming);
    expect_same_files(b, 0);
    for (const FileStats& f : b.bpf.files) EXPECT_EQ(f.syscalls.at("write").errors, 40u);
  }
}

TEST_F(BpfFiles, DevNullDdAndTar) {
  expect_same_files(
      run_both(exec_of({"/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=1k", "count=50"}),
               TraceMode::kCount),
      0);
  expect_same_files(run_both(exec_of({"/bin/dd", "if=/dev/zero", "of=" + dir.file("dd"), "bs=4k",
                                      "count=64", "conv=notrunc"}),
                             TraceMode::kCount),
                    64);
  std::filesystem::create_directory(dir.file("src"));
  for (int i = 0; i < 5; ++i) std::ofstream(dir.file("src/f" + std::to_string(i))) << "tar me\n";
  const Both tar = run_both(
      exec_of({"/bin/tar", "-cf", dir.file("a.tar"), "-C", dir.path(), "src"}), TraceMode::kCount);
  expect_same_files(tar, count_writes(tar.ptrace).calls);
  EXPECT_GT(file_calls(tar.bpf).count({dir.file("a.tar"), FdKind::kFile}), 0u);
}

TEST_F(BpfFiles, RingsCountOnceTheySubmitAWriteToAFile) {
  { std::ofstream(dir.file("rw")) << "kinds line \n"; }
  // 20 reads on a ring that only reads so far, then 20 writes: the second half counts.
  const Both rw = run_both(exec_of({PROGRAM_FD_KINDS, "uring-read-write", dir.file("rw"), "20"}),
                           TraceMode::kCount);
  expect_same_files(rw, 20);
  EXPECT_EQ(file_calls(rw.bpf).count({"anon_inode:[io_uring]", FdKind::kWritingRing}), 1u);
  // Writes to stdout through a ring never make it a writing ring, a regular file though it is.
  const StdoutToFile redirected(dir.file("stdout"));
  const Both out = run_both(exec_of({PROGRAM_FD_KINDS, "uring-stdout", "20"}), TraceMode::kCount);
  expect_same_files(out, 0);
  EXPECT_EQ(file_calls(out.bpf).count({"anon_inode:[io_uring]", FdKind::kRing}), 1u);
}

TEST_F(BpfFiles, IoSubmitCountsThoughItsIocbsAreNotNamed) {
  // The kernel clock does not read iocbs: filed as an unnamed file, counted as ptrace counts.
  const Both b =
      run_both(exec_of({PROGRAM_FD_KINDS, "aio", dir.file("aio"), "30"}), TraceMode::kCount);
  EXPECT_EQ(count_writes(b.bpf).calls, 30u);
  EXPECT_EQ(count_writes(b.ptrace).calls, 30u);
  EXPECT_EQ(file_calls(b.bpf).count({"(unreadable fd)", FdKind::kUnknown}), 1u);
}

/// A child that writes `n` times to one end of a socket pair, or to a terminal.
std::function<int()> writes_to(int fd, int n) {
  return [fd, n]() noexcept {
    for (int i = 0; i < n; ++i)
      if (::write(fd, "x", 1) != 1) return 3;
    return 0;
  };
}

TEST_F(BpfFiles, ASocketAndATerminal) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  const UniqueFd a(pair[0]), b(pair[1]);
  expect_same_files(run_both([&] { return writes_to(a.get(), 30); }, TraceMode::kCount), 0);
  int master = -1, slave = -1;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  const UniqueFd m(master), s(slave);
  const Both pty = run_both([&] { return writes_to(s.get(), 30); }, TraceMode::kCount);
  expect_same_files(pty, 0);
  EXPECT_EQ(file_calls(pty.bpf).count({"/dev/pts/N", FdKind::kTerminal}), 1u)
      << describe(file_calls(pty.bpf));
}

TEST_F(BpfFiles, ThreadsAndForksTwentyRunsIdentical) {
  for (const char* program : {PROGRAM_THREADS_WRITER, PROGRAM_FORK_WRITER}) {
    SCOPED_TRACE(program);
    const auto child = exec_of({program, dir.file("out"), "500"});
    Tracer tracer(TracerOptions{TraceMode::kCount});
    const TraceResult want = tracer.run(child(), std::chrono::seconds(30));
    BpfBackend bpf{TracerOptions{TraceMode::kCount}};
    for (int run = 0; run < 20; ++run) {
      const TraceResult got = bpf.run(child(), std::chrono::seconds(30));
      ASSERT_EQ(file_calls(got), file_calls(want)) << "run " << run;
      ASSERT_EQ(process_calls(got), process_calls(want)) << "run " << run;
      ASSERT_EQ(count_writes(got).calls, count_writes(want).calls) << "run " << run;
    }
  }
}

TEST_F(BpfFiles, EveryStrategysFilesAndWriteCallsAreAsPtraceSeesThem) {
  for (const Strategy* strategy : all_strategies()) {
    SCOPED_TRACE(strategy->name);
    const std::string path = dir.file(std::string(strategy->name));
    StrategyParams params;
    params.lines = 2000;
    const WriteJob job{path.c_str(), params, expected_bytes(params.lines)};
    const Both b = run_both(
        [&] {
          std::filesystem::remove(path);  // the strategy creates it (O_EXCL)
          return [&]() noexcept { return exit_status_of(strategy->run(job)); };
        },
        TraceMode::kCount);
    if (b.ptrace.exit_code == kUnsupportedExit) continue;  // a ring the kernel refuses
    ASSERT_EQ(b.bpf.exit_code, 0);
    ASSERT_EQ(b.ptrace.exit_code, 0) << b.ptrace.unavailable_reason;
    EXPECT_EQ(file_calls(b.bpf), file_calls(b.ptrace)) << "bpf:\n"
                                                       << describe(file_calls(b.bpf)) << "ptrace:\n"
                                                       << describe(file_calls(b.ptrace));
    EXPECT_EQ(count_writes(b.bpf, path).calls, count_writes(b.ptrace, path).calls);
    EXPECT_EQ(process_calls(b.bpf), process_calls(b.ptrace));
  }
}

TEST_F(BpfFiles, EachProcessLeavesItsCommForItsRow) {
  const tracing::BpfClockRun r = run_under_bpf({PROGRAM_FORK_WRITER, dir.file("out"), "10"});
  ASSERT_EQ(r.processes.size(), 2u);  // the parent and its forked child, each writing
  for (const tracing::BpfProcessStats& p : r.processes)
    EXPECT_EQ(r.comms.at(p.tgid), "tracer_program_"s.append("fork_writer").substr(0, 15));
}

// The kernel clock names a file by its 16 deepest components of up to 127 bytes each: a
// deeper path, or a longer name, is not the file's path and must not read as one. It is
// marked "…" at its start; ptrace, which reads /proc/PID/fd, has it whole.
TEST_F(BpfFiles, APathTooDeepToNameWholeIsMarkedCut) {
  std::string deep = dir.path();
  for (int i = 0; i < 20; ++i) {
    deep += "/d";
    ASSERT_EQ(::mkdir(deep.c_str(), 0755), 0) << deep;
  }
  const std::string out = deep + "/out";
  const Both b = run_both(exec_of({PROGRAM_WRITER, out, "1"}), TraceMode::kCount);
  ASSERT_TRUE(b.bpf.available) << b.bpf.unavailable_reason;
  std::string fifteen;
  for (int i = 0; i < 15; ++i) fifteen += "/d";
  EXPECT_EQ(file_calls(b.bpf).count({"…" + fifteen + "/out", FdKind::kFile}), 1u)
      << describe(file_calls(b.bpf));
  EXPECT_EQ(file_calls(b.ptrace).count({out, FdKind::kFile}), 1u) << describe(file_calls(b.ptrace));
}

}  // namespace
}  // namespace iobench::tracer_test
