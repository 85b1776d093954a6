#include "tracer/tally.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace iobench::tracing {

namespace {

constexpr double kZ95 = 1.96;

void add(TraceTally::Counter* c, long rval, bool is_error, bool moves_data, std::int64_t cpu_ns,
         std::int64_t raw_ns, double w) {
  if (c == nullptr) return;
  std::uint64_t bytes = 0;
  if (is_error) {
    ++c->errors;
    c->w_errors += w;
  } else if (moves_data && rval > 0) {
    bytes = static_cast<std::uint64_t>(rval);
  }
  c->bytes += bytes;
  c->w_bytes += w * static_cast<double>(bytes);
  const auto raw = static_cast<double>(raw_ns);
  c->w += w;
  c->w2 += w * w;
  c->w_raw += w * raw;
  c->w_raw2 += w * raw * raw;
  c->w_cpu += w * static_cast<double>(cpu_ns);
  ++c->timed;
}

/// Errors and bytes of one cell, or of a sum of cells (tally.h, fill()).
struct Returns {
  std::uint64_t errors = 0, bytes = 0;
  bool unknown = true;  // no cell of the sum had a return to count or scale from
  void operator+=(const Returns& r) {
    errors += r.errors;
    bytes += r.bytes;
    unknown = unknown && r.unknown;
  }
};

/// A cell's errors and bytes: counted when every call was timed, else its calls × the
/// weighted rate of its own timed calls, or of its syscall's (`all`) when it had none.
Returns returns_of(const TraceTally::Counter& cell, const TraceTally::Counter& all) {
  if (cell.timed == cell.calls) return {cell.errors, cell.bytes, false};
  const TraceTally::Counter& rates = cell.w > 0 ? cell : all;
  if (rates.w <= 0) return {};
  const double scale = static_cast<double>(cell.calls) / rates.w;
  return {static_cast<std::uint64_t>(std::llround(rates.w_errors * scale)),
          static_cast<std::uint64_t>(std::llround(rates.w_bytes * scale)), false};
}

/// One aggregate's figures (tally.h, fill()); errors and bytes are the sum of its cells'.
SyscallStats stats_of(const TraceTally::Counter& c, const Returns& returns,
                      const Overhead& overhead, double shift) {
  SyscallStats s;
  s.calls = c.calls;
  s.timed_calls = c.timed;
  s.errors = returns.errors;
  s.bytes = returns.bytes;
  s.returns_unknown = returns.unknown;
  if (c.timed == 0) return s;
  const bool all = c.timed == c.calls;
  const double mean = c.w_raw / c.w;
  const double var = std::max(0.0, c.w_raw2 / c.w - mean * mean);
  const double n_eff = c.w * c.w / c.w2;
  // The sample's error vanishes when every call was timed: the sum is then a census.
  const double se_mean = all ? 0 : std::sqrt(var / n_eff);
  const auto calls = static_cast<double>(c.calls);
  s.time_ns = std::max<std::int64_t>(0, std::llround(calls * (mean + shift - overhead.ns)));
  s.time_ci95_ns = std::llround(kZ95 * calls * std::hypot(se_mean, overhead.se_ns));
  return s;
}

void merge(SyscallStats& into, const SyscallStats& s) {
  into.returns_unknown = (into.calls == 0 || into.returns_unknown) && s.returns_unknown;
  into.calls += s.calls;
  into.timed_calls += s.timed_calls;
  into.errors += s.errors;
  into.bytes += s.bytes;
  into.time_ns += s.time_ns;
  into.time_ci95_ns = std::llround(
      std::hypot(static_cast<double>(into.time_ci95_ns), static_cast<double>(s.time_ci95_ns)));
}

using Shifts = std::map<int, double>;
using ReturnsBySyscall = std::map<int, Returns>;

std::map<std::string, SyscallStats> convert(const std::map<int, TraceTally::Counter>& counters,
                                            const ReturnsBySyscall& returns,
                                            const SyscallTable& table, const Overhead& overhead,
                                            const Shifts& shifts) {
  std::map<std::string, SyscallStats> out;
  for (const auto& [nr, c] : counters) {
    auto shift = shifts.find(nr);
    merge(out[table.info(nr).name],
          stats_of(c, returns.at(nr), overhead, shift == shifts.end() ? 0.0 : shift->second));
  }
  return out;
}

}  // namespace

/// Corrected per-call times: the raw intervals' quantiles less the tracer's cost.
LatencySummary latency_of(const LatencyHistogram& h, double overhead_ns) {
  auto corrected = [&](std::int64_t raw) {
    return std::max<std::int64_t>(0, raw - std::llround(overhead_ns));
  };
  LatencySummary l;
  l.p50 = corrected(h.quantile(0.5));
  l.p90 = corrected(h.quantile(0.9));
  l.p99 = corrected(h.quantile(0.99));
  l.p999 = corrected(h.quantile(0.999));
  l.max = corrected(h.max());
  // The CDF for plots: 200 points, denser in the tail where the interest is.
  for (int i = 0; i <= 200; ++i) {
    const double q = i <= 100 ? i / 100.0 * 0.99 : 0.99 + (i - 100) / 100.0 * 0.01;
    const std::int64_t v = corrected(h.quantile(q));
    if (!l.cdf.empty() && l.cdf.back().first == v) {
      l.cdf.back().second = q;
    } else {
      l.cdf.emplace_back(v, q);
    }
  }
  return l;
}

TraceTally::Slot TraceTally::record_call(pid_t tgid, int nr, const std::string* path) {
  Slot slot{.total = &total_[nr],
            .process = &processes_[tgid][nr],
            .histogram = &histograms_[nr],
            .cpu = &cpu_[nr]};
  int file_id = kNoFile;
  if (path != nullptr) {
    auto [file, added] = files_.try_emplace(*path);
    if (added) file->second.id = static_cast<int>(files_.size()) - 1;
    file_id = file->second.id;
    slot.file = &file->second.syscalls[nr];
  }
  slot.cell = &cells_[CellKey{tgid, nr, file_id}];
  for (Counter* c : {slot.total, slot.process, slot.file, slot.cell}) {
    if (c != nullptr) ++c->calls;
  }
  return slot;
}

void TraceTally::record_exit(const Slot& slot, long rval, bool is_error, bool moves_data,
                             std::int64_t cpu_ns, std::int64_t slept_ns, std::int64_t shown_ns,
                             std::uint32_t weight) {
  const auto w = static_cast<double>(weight);
  const std::int64_t raw_ns = cpu_ns + slept_ns;
  add(slot.total, rval, is_error, moves_data, cpu_ns, raw_ns, w);
  add(slot.process, rval, is_error, moves_data, cpu_ns, raw_ns, w);
  add(slot.file, rval, is_error, moves_data, cpu_ns, raw_ns, w);
  add(slot.cell, rval, is_error, moves_data, cpu_ns, raw_ns, w);
  if (slot.cpu != nullptr) slot.cpu->add(cpu_ns, w);
  // A call cannot take less than nothing: noise below 0 is kept in the mean, not here.
  if (slot.histogram != nullptr) slot.histogram->add(std::max<std::int64_t>(0, shown_ns), w);
}

std::uint64_t TraceTally::timed_calls() const {
  std::uint64_t n = 0;
  for (const auto& [nr, c] : total_) n += c.timed;
  return n;
}

TraceTally::Shifts TraceTally::robust_shifts() const {
  Shifts shifts;
  for (const auto& [nr, h] : cpu_) {
    const Counter& c = total_.at(nr);
    if (h.weight() <= 0 || c.w <= 0) continue;
    shifts[nr] = h.trimmed_mean(kRobustTrim) - c.w_cpu / c.w;
  }
  return shifts;
}

void TraceTally::fill(TraceResult& result, const SyscallTable& table,
                      const Overhead& overhead) const {
  // Every aggregate's errors and bytes: the sum of its cells' (tally.h).
  ReturnsBySyscall by_syscall;
  std::map<int, ReturnsBySyscall> by_file;
  std::map<pid_t, ReturnsBySyscall> by_process;
  for (const auto& [key, cell] : cells_) {
    const auto& [tgid, nr, file] = key;
    const Returns r = returns_of(cell, total_.at(nr));
    by_syscall[nr] += r;
    by_process[tgid][nr] += r;
    if (file != kNoFile) by_file[file][nr] += r;
  }
  const Shifts shifts = robust_shifts();
  result.syscalls = convert(total_, by_syscall, table, overhead, shifts);
  for (const auto& [nr, h] : histograms_) {
    if (h.weight() > 0) result.syscalls[table.info(nr).name].latency = latency_of(h, overhead.ns);
  }
  result.files.clear();
  for (const auto& [path, file] : files_) {
    result.files.push_back(
        FileStats{path, convert(file.syscalls, by_file.at(file.id), table, overhead, shifts)});
  }
  result.processes.clear();
  for (const auto& [pid, counters] : processes_) {
    ProcessStats& p = result.processes.emplace_back();
    p.pid = pid;
    p.syscalls = convert(counters, by_process.at(pid), table, overhead, shifts);
    if (auto name = names_.find(pid); name != names_.end()) p.name = name->second;
  }
  fill_process_files(result, table, overhead, shifts);
}

void TraceTally::fill_process_files(TraceResult& result, const SyscallTable& table,
                                    const Overhead& overhead, const Shifts& shifts) const {
  std::vector<const std::string*> paths(files_.size());
  for (const auto& [path, file] : files_) paths[static_cast<std::size_t>(file.id)] = &path;
  // A cell is one process's calls of one syscall on one file: exactly what a process's file
  // row sums, so its figures add up to the file's and to the process's.
  struct Sums {
    std::map<int, Counter> counters;
    ReturnsBySyscall returns;
  };
  std::map<pid_t, std::map<std::string, Sums>> by_process;  // by path: the files' order
  for (const auto& [key, cell] : cells_) {
    const auto& [tgid, nr, file] = key;
    if (file == kNoFile) continue;
    Sums& sums = by_process[tgid][*paths[static_cast<std::size_t>(file)]];
    sums.counters[nr] = cell;
    sums.returns[nr] = returns_of(cell, total_.at(nr));
  }
  for (ProcessStats& p : result.processes) {
    for (const auto& [path, sums] : by_process[p.pid])
      p.files.push_back(
          FileStats{path, convert(sums.counters, sums.returns, table, overhead, shifts)});
  }
}

namespace {

/// Every time of `stats` unknown: what was filled in rests on no calibration.
void forget_times(std::map<std::string, SyscallStats>& stats) {
  for (auto& [name, st] : stats) {
    st.time_ns = 0;
    st.time_ci95_ns = 0;
    st.latency.reset();
  }
}

}  // namespace

/// A run whose tracer cost is unknown: its times say nothing, and `reason` says why
/// (reporters print null and "—", never 0). Counts, errors and bytes stay.
void forget_times(TraceResult& r, std::string reason) {
  r.time_unavailable_reason = std::move(reason);
  if (r.ptrace) r.ptrace->overhead_ns = 0;
  forget_times(r.syscalls);
  for (FileStats& f : r.files) forget_times(f.syscalls);
  for (ProcessStats& p : r.processes) {
    forget_times(p.syscalls);
    for (FileStats& f : p.files) forget_times(f.syscalls);
  }
}

}  // namespace iobench::tracing
