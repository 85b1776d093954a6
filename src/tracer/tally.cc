#include "tracer/tally.h"

#include <algorithm>

namespace iobench::tracing {

namespace {

void add(TraceTally::Counter* c, long rval, bool is_error, bool moves_data, std::int64_t raw_ns) {
  if (c == nullptr) return;
  if (is_error) {
    ++c->errors;
  } else if (moves_data && rval > 0) {
    c->bytes += static_cast<std::uint64_t>(rval);
  }
  c->raw_ns += raw_ns;
  ++c->timed;
}

std::map<std::string, SyscallStats> convert(const std::map<int, TraceTally::Counter>& counters,
                                            const SyscallTable& table, std::int64_t overhead_ns) {
  std::map<std::string, SyscallStats> out;
  for (const auto& [nr, c] : counters) {
    SyscallStats& s = out[table.info(nr).name];
    s.calls += c.calls;
    s.errors += c.errors;
    s.bytes += c.bytes;
    const std::int64_t corrected = c.raw_ns - static_cast<std::int64_t>(c.timed) * overhead_ns;
    s.time_ns += std::max<std::int64_t>(0, corrected);
  }
  return out;
}

}  // namespace

TraceTally::Slot TraceTally::record_call(pid_t tgid, int nr, const std::string* path) {
  Slot slot{&total_[nr], &processes_[tgid][nr], path != nullptr ? &files_[*path][nr] : nullptr};
  ++slot.total->calls;
  ++slot.process->calls;
  if (slot.file != nullptr) ++slot.file->calls;
  return slot;
}

void TraceTally::record_exit(const Slot& slot, long rval, bool is_error, bool moves_data,
                             std::int64_t raw_ns) {
  add(slot.total, rval, is_error, moves_data, raw_ns);
  add(slot.process, rval, is_error, moves_data, raw_ns);
  add(slot.file, rval, is_error, moves_data, raw_ns);
}

void TraceTally::fill(TraceResult& result, const SyscallTable& table,
                      std::int64_t overhead_ns) const {
  result.syscalls = convert(total_, table, overhead_ns);
  result.files.clear();
  for (const auto& [path, counters] : files_) {
    result.files.push_back(FileStats{path, convert(counters, table, overhead_ns)});
  }
  result.processes.clear();
  for (const auto& [pid, counters] : processes_) {
    result.processes.push_back(ProcessStats{pid, convert(counters, table, overhead_ns)});
  }
}

}  // namespace iobench::tracing
