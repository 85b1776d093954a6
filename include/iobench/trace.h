// iobench's C++ API: count the syscalls of your own code, or of a program, in a test.
//
//   #include <iobench/trace.h>
//   auto t = iobench::trace([] { my_logger_flush_100_lines(); });
//   EXPECT_EQ(t.syscall_calls("write"), 1);
//   auto p = iobench::trace_command({"./writer", "1000"});
//   EXPECT_EQ(p.write_calls(), 1000);
//
// With GoogleTest, <iobench/gtest.h> adds matchers that print the trace's table on failure
// (EXPECT_THAT(t, iobench::MakesWriteCalls(1))) and makes an assertion that fails inside
// the callable fail the calling test.
//
// The callable runs in a forked child under the same ptrace + seccomp tracer as
// `iobench trace`, so it sees exactly the syscalls your code makes; it cannot change the
// caller's memory (it is a copy after fork). Link with iobench::iobench (find_package(iobench)).
//
// This header includes only standard headers: a Trace is plain values copied out of the
// tracer's result (src/api/trace_api.cc), so iobench's internals can change without
// changing what a user compiles against.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

/// By default a trace counts, with one stop per call, as `iobench trace --count-only` does.
struct TraceOptions {
  bool timing = false;     // two stops per call: also bytes and times (slower: calibrates first)
  bool trace_all = false;  // every syscall, not just the write family
  bool pin = false;        // pin the tracer to its CPU (never the child); README "Pinning"
};

/// Calls and bytes (bytes with `timing` only) attributed to one file, as /proc/PID/fd names it. One
/// path can have two rows: two files that had that name, or an io_uring ring before and after its
/// first write.
struct TracedFile {
  std::string path;
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
};

/// A failure inside a traced callable, carried back to the caller: one the callable reported
/// (report_failure; with <iobench/gtest.h>, every failed GoogleTest assertion), or the
/// exception it threw.
struct TracedFailure {
  std::string file;  // where it was reported ("" if unknown); an exception: where trace() was
  int line = 0;      // called, as is a note that failures were left out
  std::string message;
  bool exception = false;  // the callable threw: `message` is its what()
};

/// A line of source: trace()'s caller's, by default argument. (Not std::source_location,
/// which libstdc++ offers only to compilers with __builtin_source_location: not clang 14.)
struct SourceLine {
  const char* file = "";
  int line = 0;
};

/// What one traced call of a function saw.
class Trace {
 public:
  /// Calls of one syscall ("write", "writev", "fsync", ...), over every file.
  std::uint64_t syscall_calls(std::string_view name) const;
  /// `write_calls` as `iobench trace` counts it (README "What counts as a write"): data
  /// writes to files, not to stdout, stderr, terminals, pipes or sockets; io_uring_enter on
  /// rings.
  std::uint64_t write_calls() const { return write_calls_; }
  /// Calls and bytes (bytes with `timing` only) attributed to one path, as /proc/PID/fd
  /// names it.
  std::uint64_t file_calls(std::string_view path) const;
  std::uint64_t file_bytes(std::string_view path) const;
  const std::vector<TracedFile>& files() const { return files_; }
  /// False when ptrace was refused (a container, a seccomp policy): nothing was counted.
  bool traced() const { return traced_; }
  /// The child's exit status: 0 when the function returned and reported no failure, 1 when
  /// it threw or reported one (failures() says what), 128+N when signal N killed it. For
  /// trace_command, the program's status, and as `iobench trace` exits: 127 when it was not
  /// found, 126 when it could not be executed (error() says why).
  int exit_status() const { return exit_status_; }
  /// What failed inside the callable, in order: each failure it reported and, last, the
  /// exception it threw. Empty when it succeeded, and always for trace_command.
  const std::vector<TracedFailure>& failures() const { return failures_; }
  /// Why the command could not run ("command not found: 'x'", "cannot execute 'x': ..."),
  /// as `iobench trace` prints it; empty when it ran (and always for trace()).
  const std::string& error() const { return error_; }
  /// The `iobench-trace/1` document, as `iobench trace --format json` prints it.
  std::string to_json() const { return json_; }
  /// The table `iobench trace` prints: calls per syscall and per file, then write_calls and
  /// how it was traced; empty for a command that never ran.
  const std::string& table() const { return table_; }

 private:
  friend Trace trace(const std::function<void()>& fn, const TraceOptions& options,
                     SourceLine where);
  friend Trace trace_command(const std::vector<std::string>& argv, const TraceOptions& options);
  friend struct TraceAccess;

  bool traced_ = false;
  int exit_status_ = -1;
  std::uint64_t write_calls_ = 0;
  std::map<std::string, std::uint64_t, std::less<>> syscall_calls_;
  std::vector<TracedFile> files_;
  std::vector<TracedFailure> failures_;
  std::string json_;
  std::string table_;
  std::string error_;
};

/// Runs fn in a traced child and returns what it did. An exception fn throws is reported at
/// `where`, the caller's line.
Trace trace(const std::function<void()>& fn, const TraceOptions& options = {},
            SourceLine where = {__builtin_FILE(), __builtin_LINE()});

/// Runs a program in a traced child as `iobench trace -- ARGV...` does: argv[0] found through
/// PATH as a shell finds it, the caller's stdin, stdout, stderr and environment.
Trace trace_command(const std::vector<std::string>& argv, const TraceOptions& options = {});

/// Inside a callable that trace() runs: records a failure for the caller's
/// Trace::failures() (and its exit status 1). Makes no syscall, so the counts stay the
/// callable's; safe from any of its threads. False outside a traced callable, where nothing
/// is recorded. Of many failures, the first 64 KiB are carried back, then a note of how many
/// more there were.
bool report_failure(std::string_view file, int line, std::string_view message) noexcept;

/// How a test framework takes part in trace(): <iobench/gtest.h> registers GoogleTest's
/// (by being included), so that an assertion failing inside the callable fails the test.
struct TestFramework {
  /// In the traced child: calls fn with the framework's failed assertions sent to
  /// report_failure rather than recorded (and printed) there.
  void (*run)(const std::function<void()>& fn) = nullptr;
  /// In the caller, before trace() returns: raises one failure of failures() as the
  /// framework's own.
  void (*replay)(const TracedFailure& failure) = nullptr;
};
/// Every later trace() runs its callable through `framework`; returns the one before.
TestFramework use_test_framework(const TestFramework& framework) noexcept;

}  // namespace iobench
