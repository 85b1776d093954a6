#include "run/strategy_workload.h"

#include <fmt/format.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include "base/error.h"
#include "base/monotonic_clock.h"
#include "base/unique_fd.h"
#include "run/verify.h"
#include "strategies/support/line_format.h"
#include "tracer/run_delay.h"
#include "tracer/write_calls.h"

namespace iobench {
namespace {

/// What the child leaves for the parent. Lives in a MAP_SHARED page mapped before fork, so
/// the child makes no syscall the strategy did not make (a pipe would add a write(2) to
/// every count).
struct Report {
  bool finished;
  StrategyOutcome outcome;
  std::int64_t elapsed_ns;
  std::int64_t cpu_wait_ns;  // -1: not measured
};

/// The shared page, mapped before fork; a failed mmap is a failed run.
class SharedReport : public SharedMapping<Report> {
 public:
  SharedReport() {
    if (!*this) throw_errno("mmap", errno, kExitRunFailed);
  }
};

/// The child's whole life: time the strategy, report. Never throws. `waits` (untraced runs
/// alone: its reads are syscalls a counted run must not see) reads the thread's wait for a
/// CPU either side of the timed section.
int child_main(const Strategy& strategy, const WriteJob& job, Report* report,
               const tracing::RunDelay* waits = nullptr) noexcept {
  const std::int64_t w0 = waits != nullptr && *waits ? waits->read() : -1;
  const std::int64_t t0 = monotonic_ns();  // vDSO: no syscall, so nothing to count
  const StrategyOutcome out = strategy.run(job);
  const std::int64_t t1 = monotonic_ns();
  report->cpu_wait_ns = w0 >= 0 ? waits->read() - w0 : -1;
  report->outcome = out;
  report->elapsed_ns = t1 - t0;
  report->finished = true;
  return 0;
}

/// In an untraced child, before the strategy: die with iobench. A SIGKILLed iobench cannot
/// kill its tree, and a strategy of many lines would run on for seconds, writing into a
/// private directory nobody will remove. (A traced child has PTRACE_O_EXITKILL; a command
/// gets nothing, since the setting would survive exec and change what its program sees.)
/// The signal follows the death of the *thread* that forked: the runner forks and waits on
/// the same thread, so that thread outlives the child.
void die_with_parent(pid_t parent) noexcept {
  (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // iobench died between fork and prctl: the signal was never armed, so end here.
  if (::getppid() != parent) ::_exit(1);
}

}  // namespace

StrategyWorkload::StrategyWorkload(const Strategy& strategy, const StrategyParams& params,
                                   int dir_fd, const std::string& dir,
                                   const std::string& canonical_dir)
    : strategy_(strategy),
      params_(params),
      bytes_(expected_bytes(params)),
      dir_fd_(dir_fd),
      name_(std::string(strategy.name) + ".out"),
      path_(dir + "/" + name_),
      canonical_path_(canonical_dir + "/" + name_) {}

void StrategyWorkload::discard_output() const { ::unlinkat(dir_fd_, name_.c_str(), 0); }

StrategyResult StrategyWorkload::row() const {
  StrategyResult r;
  r.strategy = std::string(strategy_.name);
  r.bytes = bytes_;
  return r;
}

ChildRun StrategyWorkload::run(CountingBackend* counted,
                               std::optional<std::chrono::nanoseconds> timeout) {
  discard_output();  // O_EXCL: every run creates its file anew
  const SharedReport report;
  Report* shared = report.get();
  const WriteJob j = job();
  ChildRun run;
  if (counted != nullptr) {
    run = run_counted(
        *counted, [&]() noexcept { return child_main(strategy_, j, shared); }, timeout);
  } else {
    const pid_t parent = ::getpid();
    run = run_untraced(
        [&]() noexcept {
          die_with_parent(parent);
          const tracing::RunDelay waits(0);
          ::_exit(child_main(strategy_, j, shared, &waits));
        },
        timeout);
  }
  run.finished = shared->finished;
  run.outcome = shared->outcome;
  run.elapsed_ns = shared->elapsed_ns;  // the strategy's own time, not fork's and exit's
  if (counted == nullptr) run.cpu_wait_ns = shared->cpu_wait_ns;
  return run;
}

std::string StrategyWorkload::failure(const ChildRun& run) const {
  if (run.timed_out) return "timed out";
  if (run.term_signal != 0)
    return fmt::format("killed by signal {} ({})", run.term_signal, ::strsignal(run.term_signal));
  if (!run.finished)
    return fmt::format("child exited with status {} before reporting", run.exit_code);
  if (run.outcome.status != RunStatus::kOk) return run.outcome.message;
  if (!strategy_.writes_file) {
    if (run.outcome.produced_bytes != bytes_)
      return fmt::format("formatted {} bytes, expected {}", run.outcome.produced_bytes, bytes_);
    return verify_file(name_, 0, {}, dir_fd_);  // the file it created must stay empty
  }
  return verify_file(name_, params_.lines, line_format(params_), dir_fd_);
}

void StrategyWorkload::attribute(const TraceResult& trace, StrategyResult& result) const {
  attribute_write_calls(trace, canonical_path_, result);
}

void attribute_write_calls(const TraceResult& trace, const std::string& target_path,
                           StrategyResult& result) {
  const WriteCount count = count_writes(trace, target_path);
  result.write_calls = count.calls;
  result.syscall_time_ns = count.time_ns;
  if (!trace.time_unavailable_reason.empty()) result.syscall_time_ns.reset();  // not 0: unknown
  result.timed_calls = count.timed_calls;
  result.syscall_time_ci95_ns = count.time_ci95_ns;
  if (auto busiest = trace.syscalls.find(count.busiest); busiest != trace.syscalls.end())
    result.latency = busiest->second.latency;
}

}  // namespace iobench
