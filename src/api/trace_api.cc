// The C++ API (include/iobench/trace.h): the same tracer and JSON as `iobench trace`.
#include <iobench/trace.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <utility>

#include "api/callable_failures.h"
#include "base/command_exec.h"
#include "base/error.h"
#include "base/program_path.h"
#include "report/reporter.h"
#include "tracer/counting_backend.h"
#include "tracer/write_calls.h"

namespace iobench {

/// Copies a trace record into the public values: the header names nothing of the tracer's.
struct TraceAccess {
  static Trace of(const TraceRecord& rep) {
    const TraceResult& result = rep.trace;
    Trace seen;
    seen.traced_ = result.available;
    seen.exit_status_ = result.term_signal ? 128 + result.term_signal : result.exit_code;
    seen.error_ = rep.error;
    seen.json_ = render_trace_json(rep);
    if (rep.never_ran) return seen;  // nothing of it was counted
    seen.table_ = render_trace_table(rep);
    seen.write_calls_ = count_writes(result).calls;
    for (const auto& [name, stats] : result.syscalls)
      seen.syscall_calls_.emplace(name, stats.calls);
    for (const FileStats& f : result.files)
      seen.files_.push_back({.path = f.path, .calls = f.calls(), .bytes = f.bytes()});
    return seen;
  }
  static void set_failures(Trace& t, std::vector<TracedFailure> failures) {
    t.failures_ = std::move(failures);
  }
};

namespace {

/// The test framework trace() runs a callable through (<iobench/gtest.h> sets GoogleTest's
/// before main): constant-initialized, so no order of static initializers can undo it.
constinit TestFramework g_framework{};

const TracedFile* find_file(const std::vector<TracedFile>& files, std::string_view path) {
  for (const auto& f : files)
    if (f.path == path) return &f;
  return nullptr;
}

TraceMode mode_of(const TraceOptions& options) {
  return options.timing ? TraceMode::kTiming : TraceMode::kCount;
}

/// The tracer as `iobench trace` builds it: ptrace (files too), counting unless `timing`.
std::unique_ptr<CountingBackend> make_tracer(const TraceOptions& options) {
  TracerOptions t;
  t.mode = mode_of(options);
  t.trace_all = options.trace_all;
  t.pin = options.pin;
  return make_counting_backend(t);
}

/// A command that never ran: its status and why, as `iobench trace` reports them.
TraceRecord never_ran(std::vector<std::string> argv, TraceMode mode, const Error& e) {
  TraceRecord rep;
  rep.command = std::move(argv);
  rep.never_ran = true;
  rep.trace.mode = mode;
  rep.trace.exit_code = e.exit_status();
  rep.error = e.what();
  return rep;
}

}  // namespace

std::uint64_t Trace::syscall_calls(std::string_view name) const {
  auto it = syscall_calls_.find(name);
  return it == syscall_calls_.end() ? 0 : it->second;
}

std::uint64_t Trace::file_calls(std::string_view path) const {
  const TracedFile* f = find_file(files_, path);
  return f ? f->calls : 0;
}

std::uint64_t Trace::file_bytes(std::string_view path) const {
  const TracedFile* f = find_file(files_, path);
  return f ? f->bytes : 0;
}

Trace trace(const std::function<void()>& fn, const TraceOptions& options, SourceLine where) {
  const std::unique_ptr<CountingBackend> tracer = make_tracer(options);
  const TestFramework framework = g_framework;
  api::CallableFailures failures;  // mapped before the fork, written by the child
  // Flushed before fork so the child does not inherit (and then write) the caller's
  // pending stdio output, which would be counted as the function's.
  std::fflush(nullptr);
  const auto child = [&]() noexcept {
    failures.enter_child();
    try {
      if (framework.run != nullptr)
        framework.run(fn);
      else
        fn();
    } catch (const std::exception& e) {
      failures.record_exception(where, e.what());
    } catch (...) {
      failures.record_exception(where, "an exception not derived from std::exception");
    }
    // The child ends with _exit (no atexit handlers of the caller's), so flush what fn left
    // in stdio buffers here, as the end of a real program would: those writes are fn's.
    std::fflush(nullptr);
    return failures.any() ? 1 : 0;
  };
  TraceRecord rep;
  rep.command = {"iobench::trace"};
  rep.trace = tracer->run(child, std::nullopt);
  Trace seen = TraceAccess::of(rep);
  TraceAccess::set_failures(seen, failures.read(where));
  if (framework.replay != nullptr)
    for (const TracedFailure& f : seen.failures()) framework.replay(f);
  return seen;
}

bool report_failure(std::string_view file, int line, std::string_view message) noexcept {
  return api::record_failure(file, line, message, /*exception=*/false);
}

TestFramework use_test_framework(const TestFramework& framework) noexcept {
  return std::exchange(g_framework, framework);
}

Trace trace_command(const std::vector<std::string>& argv, const TraceOptions& options) {
  if (argv.empty()) throw std::invalid_argument("iobench::trace_command: no command given");
  std::string program;
  try {
    program = resolve_command("", argv.front());
  } catch (const Error& e) {  // 127 not found, 126 not executable: before anything runs
    return TraceAccess::of(never_ran(argv, mode_of(options), e));
  }
  const CommandExec command(std::move(program), argv);
  const std::unique_ptr<CountingBackend> tracer = make_tracer(options);
  TraceRecord rep;
  rep.command = argv;
  rep.trace = tracer->run([&]() noexcept { return command.exec(); }, std::nullopt);
  rep.never_ran = command.failed_errno() != 0;
  if (rep.never_ran) rep.error = command.failure();
  return TraceAccess::of(rep);
}

}  // namespace iobench
