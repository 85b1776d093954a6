// iobench's C++ API: count the syscalls of your own code in a test.
//
//   #include <iobench/trace.h>
//   auto t = iobench::trace([] { my_logger_flush_100_lines(); });
//   EXPECT_EQ(t.syscall_calls("write"), 1);
//
// The callable runs in a forked child under the same ptrace + seccomp tracer as
// `iobench trace`, so it sees exactly the syscalls your code makes; it cannot change the
// caller's memory (it is a copy after fork). Link with iobench::iobench (find_package(iobench)).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace iobench {

struct TraceOptions {
  bool count_only = false;  // one stop per call: counts only (no bytes, no times)
  bool trace_all = false;   // every syscall, not just the write family
  bool pin = false;         // pin the tracer to its CPU (never the child); README "Pinning"
};

/// What one traced call of a function saw.
class Trace {
 public:
  explicit Trace(TraceResult result) : result_(std::move(result)) {}

  /// Calls of one syscall ("write", "writev", "fsync", ...), over every file.
  std::uint64_t syscall_calls(std::string_view name) const;
  /// Calls that write data (write, writev, pwrite*, sendfile, splice, vmsplice,
  /// copy_file_range), over every file.
  std::uint64_t write_calls() const;
  /// Calls and bytes (timing mode) attributed to one path, as /proc/PID/fd names it.
  std::uint64_t file_calls(std::string_view path) const;
  std::uint64_t file_bytes(std::string_view path) const;
  const std::vector<FileStats>& files() const { return result_.files; }
  /// False when ptrace was refused (a container, a seccomp policy): nothing was counted.
  bool traced() const { return result_.available; }
  /// The child's exit status: 0 when the function returned, 1 when it threw, 128+N when
  /// signal N killed it.
  int exit_status() const;
  /// The `iobench-trace/1` document, as `iobench trace --format json` prints it.
  std::string to_json() const;
  const TraceResult& result() const { return result_; }

 private:
  TraceResult result_;
};

/// Runs fn in a traced child and returns what it did.
Trace trace(const std::function<void()>& fn, const TraceOptions& options = {});

}  // namespace iobench
