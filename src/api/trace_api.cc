// The C++ API (include/iobench/trace.h): the same tracer and JSON as `iobench trace`.
#include <iobench/trace.h>

#include <unistd.h>

#include <cstdio>

#include "report/reporter.h"
#include "tracer/counting_backend.h"
#include "tracer/write_calls.h"

namespace iobench {
namespace {

const FileStats* find_file(const std::vector<FileStats>& files, std::string_view path) {
  for (const auto& f : files)
    if (f.path == path) return &f;
  return nullptr;
}

}  // namespace

std::uint64_t Trace::syscall_calls(std::string_view name) const {
  auto it = result_.syscalls.find(std::string(name));
  return it == result_.syscalls.end() ? 0 : it->second.calls;
}

std::uint64_t Trace::write_calls() const { return count_writes(result_).calls; }

std::uint64_t Trace::file_calls(std::string_view path) const {
  const FileStats* f = find_file(result_.files, path);
  return f ? f->calls() : 0;
}

std::uint64_t Trace::file_bytes(std::string_view path) const {
  const FileStats* f = find_file(result_.files, path);
  return f ? f->bytes() : 0;
}

int Trace::exit_status() const {
  return result_.term_signal ? 128 + result_.term_signal : result_.exit_code;
}

std::string Trace::to_json() const {
  TraceRecord rep;
  rep.command = {"iobench::trace"};
  rep.trace = result_;
  return render_trace_json(rep);
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
  return Trace(tracer->run(child, std::nullopt));
}

}  // namespace iobench
