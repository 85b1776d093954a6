// The C++ API (include/iobench/trace.h): the same tracer and JSON as `iobench trace`.
#include <iobench/trace.h>
#include <unistd.h>

#include <cstdio>

#include "report/reporter.h"
#include "tracer/counting_backend.h"
#include "tracer/write_calls.h"

namespace iobench {
namespace {

const TracedFile* find_file(const std::vector<TracedFile>& files, std::string_view path) {
  for (const auto& f : files)
    if (f.path == path) return &f;
  return nullptr;
}

std::string json_of(const TraceResult& result) {
  TraceRecord rep;
  rep.command = {"iobench::trace"};
  rep.trace = result;
  return render_trace_json(rep);
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

Trace trace(const std::function<void()>& fn, const TraceOptions& options) {
  TracerOptions t;
  t.mode = options.count_only ? TraceMode::kCount : TraceMode::kTiming;
  t.trace_all = options.trace_all;
  t.pin = options.pin;
  const std::unique_ptr<CountingBackend> tracer = make_counting_backend(t);  // ptrace: files too
  // Flushed before fork so the child does not inherit (and then write) the caller's
  // pending stdio output, which would be counted as the function's.
  std::fflush(nullptr);
  const auto child = [&]() noexcept {
    int status = 0;
    try {
      fn();
    } catch (...) {
      status = 1;
    }
    // The child ends with _exit (no atexit handlers of the caller's), so flush what fn left
    // in stdio buffers here, as the end of a real program would: those writes are fn's.
    std::fflush(nullptr);
    return status;
  };
  const TraceResult result = tracer->run(child, std::nullopt);
  // Copied into the public values: the header names nothing of the tracer's own types.
  Trace seen;
  seen.traced_ = result.available;
  seen.exit_status_ = result.term_signal ? 128 + result.term_signal : result.exit_code;
  seen.write_calls_ = count_writes(result).calls;
  for (const auto& [name, stats] : result.syscalls) seen.syscall_calls_.emplace(name, stats.calls);
  for (const FileStats& f : result.files)
    seen.files_.push_back({.path = f.path, .calls = f.calls(), .bytes = f.bytes()});
  seen.json_ = json_of(result);
  return seen;
}

}  // namespace iobench
