// Exact counts: real programs, real files, every call accounted for per syscall, per file
// and per process.
#include <sys/mman.h>

#include <algorithm>

#include "tracer/probe.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

constexpr std::uint64_t kN = 1000;
const std::string kN_str = std::to_string(kN);

TraceResult run_traced(Tracer& tracer, const Command& cmd) {
  TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(30));
  EXPECT_TRUE(r.available) << r.unavailable_reason;
  EXPECT_TRUE(r.ptrace->seccomp);
  EXPECT_FALSE(r.timed_out);
  return r;
}

void expect_single_writer(const TraceResult& r, const Command& cmd, const std::string& out,
                          std::uint64_t n, bool timing) {
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.term_signal, 0);
  // Only the write family is reported: the close/dup bookkeeping stops are not results.
  ASSERT_EQ(r.syscalls.size(), 1u);
  const SyscallStats& w = r.syscalls.at("write");
  EXPECT_EQ(w.calls, n);
  EXPECT_EQ(w.errors, 0u);
  EXPECT_EQ(w.bytes, timing ? n * kLineBytes : 0);
  if (!timing) {
    EXPECT_EQ(w.time_ns, 0);
  }
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].path, out);
  EXPECT_EQ(r.files[0].calls(), n);
  EXPECT_EQ(r.files[0].bytes(), timing ? n * kLineBytes : 0);
  ASSERT_EQ(r.processes.size(), 1u);
  const ProcessStats& p = r.processes[0];
  EXPECT_EQ(p.pid, cmd.pid());
  EXPECT_EQ(calls(p.syscalls, "write"), n);
  EXPECT_EQ(p.name, comm_of(cmd.program()));
  ASSERT_EQ(p.files.size(), 1u);  // its own file row, every thread's calls in it
  EXPECT_EQ(p.files[0].path, out);
  EXPECT_EQ(p.files[0].calls(), n);
  EXPECT_EQ(p.files[0].bytes(), timing ? n * kLineBytes : 0);
  EXPECT_GT(r.wall_ns, 0);
}

/// The process's files as path -> calls.
std::map<std::string, std::uint64_t> file_rows(const ProcessStats& p) {
  std::map<std::string, std::uint64_t> rows;
  for (const FileStats& f : p.files) rows[f.path] += f.calls();
  return rows;
}

using Counts = TracerTest;

TEST_F(Counts, OneProgramTimingMode) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  Command cmd({PROGRAM_WRITER, dir.file("out"), kN_str});
  const TraceResult r = run_traced(tracer, cmd);
  expect_single_writer(r, cmd, dir.file("out"), kN, true);
  EXPECT_EQ(r.mode, TraceMode::kTiming);
  // Every call timed (fewer than the sampler's first kFullyTimed), and a time that means
  // something: positive, or explicitly uncertain (its 95% interval holds 0).
  const SyscallStats& w = r.syscalls.at("write");
  EXPECT_EQ(w.timed_calls, kN);
  EXPECT_FALSE(w.estimated());
  EXPECT_GT(r.ptrace->overhead_ns, 0);
  EXPECT_TRUE(w.time_ns > 0 || w.time_uncertain()) << w.time_ns;
  ASSERT_TRUE(w.latency.has_value());
  EXPECT_LE(w.latency->p50, w.latency->max);
}

TEST_F(Counts, OneProgramCountMode) {
  TempDir dir;
  Tracer tracer(TracerOptions{TraceMode::kCount});
  Command cmd({PROGRAM_WRITER, dir.file("out"), kN_str});
  const TraceResult r = run_traced(tracer, cmd);
  expect_single_writer(r, cmd, dir.file("out"), kN, false);
  EXPECT_EQ(r.ptrace->overhead_ns, 0);
}

TEST_F(Counts, StaticallyLinkedProgram) {
  // No dynamic loader, no libc.so: the same calls straight from a static binary.
  TempDir dir;
  Tracer tracer(TracerOptions{});
  Command cmd({PROGRAM_STATIC_WRITER, dir.file("out"), kN_str});
  expect_single_writer(run_traced(tracer, cmd), cmd, dir.file("out"), kN, true);
}

TEST_F(Counts, FourThreads) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  Command cmd({PROGRAM_THREADS_WRITER, dir.file("out"), kN_str});
  const TraceResult r = run_traced(tracer, cmd);
  expect_single_writer(r, cmd, dir.file("out"), 4 * kN, true);
}

TEST_F(Counts, ForkedChildIsItsOwnProcess) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  const std::string out = dir.file("out");
  Command cmd({PROGRAM_FORK_WRITER, out, kN_str});
  const TraceResult r = run_traced(tracer, cmd);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(calls(r.syscalls, "write"), 3 * kN);
  EXPECT_EQ(r.syscalls.at("write").bytes, 3 * kN * kLineBytes);
  EXPECT_EQ(file_calls(r, out), kN);
  EXPECT_EQ(file_calls(r, out + ".child"), 2 * kN);
  ASSERT_EQ(r.processes.size(), 2u);
  for (const auto& p : r.processes) {
    EXPECT_EQ(calls(p.syscalls, "write"), p.pid == cmd.pid() ? kN : 2 * kN) << p.pid;
    // A fork that never execs keeps its parent's name, as ps shows it.
    EXPECT_EQ(p.name, comm_of(PROGRAM_FORK_WRITER)) << p.pid;
    using Rows = std::map<std::string, std::uint64_t>;
    const Rows own = p.pid == cmd.pid() ? Rows{{out, kN}} : Rows{{out + ".child", 2 * kN}};
    EXPECT_EQ(file_rows(p), own) << p.pid;
  }
}

TEST_F(Counts, ExecRenamesTheProcessAndKeepsItsFiles) {
  // One process: a shell writes a line to `first`, then becomes the writer.
  TempDir dir;
  Tracer tracer(TracerOptions{});
  const std::string first = dir.file("first");
  const std::string out = dir.file("out");
  Command cmd({"/bin/sh", "-c", "echo x > \"$1\"; exec \"$2\" \"$3\" \"$4\"", "sh", first,
               PROGRAM_WRITER, out, kN_str});
  const TraceResult r = run_traced(tracer, cmd);
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.processes.size(), 1u);
  const ProcessStats& p = r.processes[0];
  EXPECT_EQ(p.name, comm_of(PROGRAM_WRITER));  // not "sh": the name after its last exec
  EXPECT_EQ(file_rows(p), (std::map<std::string, std::uint64_t>{{first, 1}, {out, kN}}));
}

TEST_F(Counts, VforkThenExec) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  const std::string out = dir.file("out");
  Command cmd({PROGRAM_VFORK_EXEC, PROGRAM_WRITER, out, kN_str});
  const TraceResult r = run_traced(tracer, cmd);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(file_calls(r, out + ".parent"), 2u);
  EXPECT_EQ(file_calls(r, out), kN);
  ASSERT_EQ(r.processes.size(), 2u);
  for (const auto& p : r.processes) {
    EXPECT_EQ(calls(p.syscalls, "write"), p.pid == cmd.pid() ? 2 : kN) << p.pid;
  }
}

TEST_F(Counts, ReusedFdNumbersNameTheRightFiles) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  Command cmd({PROGRAM_FD_REUSE, dir.path(), kN_str, PROGRAM_WRITER});
  const TraceResult r = run_traced(tracer, cmd);
  ASSERT_EQ(r.exit_code, 0) << "the kernel did not reuse the fd number as planned";
  // close, dup2, close_range, dup3 and exec each free the number in turn.
  EXPECT_EQ(file_calls(r, dir.file("a")), kN);
  EXPECT_EQ(file_calls(r, dir.file("b")), kN + 1);
  EXPECT_EQ(file_calls(r, dir.file("c")), kN + 2);
  EXPECT_EQ(file_calls(r, dir.file("d")), kN + 3);
  EXPECT_EQ(file_calls(r, dir.file("f")), kN + 4);
  EXPECT_EQ(file_calls(r, dir.file("e")), kN + 5);
  EXPECT_EQ(r.files.size(), 6u);
  ASSERT_EQ(r.processes.size(), 1u);  // exec keeps the pid
  EXPECT_EQ(calls(r.syscalls, "write"), 6 * kN + 15);
}

TEST_F(Counts, SignalHandlerWritesBetweenWrites) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  const std::string out = dir.file("out");
  Command cmd({PROGRAM_SIGNAL_WRITER, out, kN_str});
  const TraceResult r = run_traced(tracer, cmd);
  ASSERT_EQ(r.exit_code, 0) << "SIGALRM never reached the handler";
  const std::uint64_t handled = count_lines(out, "signal");
  EXPECT_GE(handled, 3u);  // the tracer delivered the program's signals
  EXPECT_EQ(file_calls(r, out), count_lines(out));
  EXPECT_EQ(r.syscalls.at("write").errors, 0u);
  EXPECT_EQ(r.syscalls.at("write").bytes, count_lines(out) * kLineBytes);
}

TEST_F(Counts, IoUringEntersCountUnderTheRing) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  const std::string out = dir.file("out");
  Command cmd({PROGRAM_URING_WRITER, out, "100"});
  const TraceResult r = run_traced(tracer, cmd);
  if (r.exit_code == 77) GTEST_SKIP() << "io_uring unavailable";
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(count_lines(out), 100u);
  EXPECT_EQ(file_calls(r, "anon_inode:[io_uring]"), 100u);
  EXPECT_EQ(file_calls(r, out), 0u);  // the ring wrote it: no write(2) at all
  EXPECT_EQ(calls(r.syscalls, "write"), 0u);
}

TEST_F(Counts, ErrorsAndCallsWithoutFd) {
  Tracer tracer(TracerOptions{});
  void* page = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  const TraceResult r = tracer.run([page] {
    for (int i = 0; i < 3; ++i) {
      if (::write(-1, "x", 1) != -1) return 1;
    }
    return ::msync(page, 4096, MS_SYNC) == 0 ? 0 : 2;
  });
  ::munmap(page, 4096);
  ASSERT_TRUE(r.available);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.syscalls.at("write").calls, 3u);
  EXPECT_EQ(r.syscalls.at("write").errors, 3u);
  EXPECT_EQ(r.syscalls.at("write").bytes, 0u);
  EXPECT_EQ(r.syscalls.at("msync").calls, 1u);
  EXPECT_EQ(r.syscalls.at("msync").errors, 0u);
  EXPECT_EQ(file_calls(r, "(bad fd)"), 3u);
  EXPECT_EQ(file_calls(r, "(no fd)"), 1u);
}

TEST_F(Counts, ARestartedWriteCountsOnceWithoutAnError) {
  // A signal interrupts the timed blocking write: its exit stop says -ERESTARTSYS (no error
  // the program sees), and the kernel restarts it: one call, whose restart stops again.
  TracerOptions options;
  options.time_all = true;  // the write is timed: its exit stop is seen
  Tracer tracer(options);
  Command cmd({PROGRAM_RESTART_WRITER});
  const TraceResult r = run_traced(tracer, cmd);
  ASSERT_GE(r.exit_code, 1) << "the pipe never filled";
  ASSERT_LT(r.exit_code, 100) << "a step of the program failed";
  const auto fills = static_cast<std::uint64_t>(r.exit_code);
  // The fills, the EAGAIN that ended them, and the blocking write once.
  EXPECT_EQ(r.syscalls.at("write").calls, fills + 2);
  EXPECT_EQ(r.syscalls.at("write").errors, 1u);
  EXPECT_EQ(r.syscalls.at("write").bytes, fills * 4096 + 1);
}

TEST_F(Counts, TraceAllReportsEverySyscall) {
  TempDir dir;
  Tracer tracer(TracerOptions{TraceMode::kTiming, /*trace_all=*/true});
  const std::string out = dir.file("out");
  Command cmd({PROGRAM_WRITER, out, "100"});
  const TraceResult r = run_traced(tracer, cmd);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(calls(r.syscalls, "write"), 100u);
  EXPECT_EQ(r.syscalls.at("write").bytes, 100 * kLineBytes);
  EXPECT_EQ(calls(r.syscalls, "execve"), 1u);
  EXPECT_EQ(calls(r.syscalls, "exit_group"), 1u);
  EXPECT_GE(calls(r.syscalls, "openat"), 1u);
  EXPECT_GE(calls(r.syscalls, "close"), 1u);
  EXPECT_GE(calls(r.syscalls, "mmap"), 1u);
  // Files still name where the write family went.
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].path, out);
}

/// Per-process counts without the pids, which differ from run to run.
std::vector<std::map<std::string, std::uint64_t>> process_counts(const TraceResult& r) {
  std::vector<std::map<std::string, std::uint64_t>> out;
  for (const auto& p : r.processes) {
    std::map<std::string, std::uint64_t> m;
    for (const auto& [name, s] : p.syscalls) m[name] = s.calls;
    out.push_back(m);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_F(Counts, CountModeCountsWhatTimingModeCounts) {
  for (const char* program : {PROGRAM_FD_REUSE, PROGRAM_FORK_WRITER, PROGRAM_THREADS_WRITER}) {
    SCOPED_TRACE(program);
    std::map<std::string, std::uint64_t> per_syscall[2], per_file[2];
    std::vector<std::map<std::string, std::uint64_t>> per_process[2];
    for (int m = 0; m < 2; ++m) {
      TempDir dir;
      Tracer tracer(TracerOptions{m == 0 ? TraceMode::kTiming : TraceMode::kCount});
      const bool reuse = std::string(program) == PROGRAM_FD_REUSE;
      Command cmd(reuse ? std::vector<std::string>{program, dir.path(), "200", PROGRAM_WRITER}
                        : std::vector<std::string>{program, dir.file("out"), "200"});
      const TraceResult r = run_traced(tracer, cmd);
      EXPECT_EQ(r.exit_code, 0);
      for (const auto& [name, s] : r.syscalls) per_syscall[m][name] = s.calls;
      // Strip the directory, which differs between the two runs.
      for (const auto& f : r.files) per_file[m][f.path.substr(dir.path().size())] = f.calls();
      per_process[m] = process_counts(r);
    }
    EXPECT_EQ(per_syscall[0], per_syscall[1]);
    EXPECT_EQ(per_file[0], per_file[1]);
    EXPECT_EQ(per_process[0], per_process[1]);
  }
}

// Timing borrows the tracee's registers for a probe after each timed call (tracer/probe.h);
// the program must see exactly its own results: writer checks every write's return value
// (exit 101 otherwise), and every timed call here was probed.
TEST_F(Counts, ProbesFollowTimedCallsAndTheProgramSeesOnlyItsOwnResults) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  const std::string out = dir.file("out");
  const TraceResult r = run_traced(tracer, Command({PROGRAM_WRITER, out, "5000"}));
  ASSERT_TRUE(r.available);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(calls(r.syscalls, "write"), 5000u);
  EXPECT_EQ(r.syscalls.at("write").bytes, 5000u * kLineBytes);
  if (!tracing::kCanProbe) GTEST_SKIP() << "no probe on this architecture";
  EXPECT_EQ(r.ptrace->probed_calls, r.syscalls.at("write").timed_calls);
  EXPECT_GT(r.ptrace->probed_calls, 0u);
}

// A program with a seccomp filter of its own could answer the probe's write(-1) before our
// filter stops it (an ERRNO outranks a TRACE): it is never probed, and sees its own results.
TEST_F(Counts, AProgramWithItsOwnFilterIsNeverProbed) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  const std::string out = dir.file("out");
  const TraceResult r = run_traced(tracer, Command({PROGRAM_OWN_FILTER, out, "2000"}));
  ASSERT_TRUE(r.available);
  EXPECT_EQ(r.exit_code, 0) << "101: a write returned what the probe got, not its own result";
  EXPECT_EQ(calls(r.syscalls, "write"), 2000u);
  EXPECT_EQ(r.ptrace->probed_calls, 0u);
}

}  // namespace
}  // namespace iobench::tracer_test
