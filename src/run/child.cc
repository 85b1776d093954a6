#include "run/child.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "base/error.h"
#include "base/monotonic_clock.h"
#include "base/process.h"
#include "base/unique_fd.h"
#include "tracer/counting_backend.h"
#include "tracer/perf_counter.h"
#include "tracer/tracer.h"

namespace iobench {
namespace {

/// What the child leaves for the parent. Lives in a MAP_SHARED page mapped before fork.
struct Report {
  bool finished;
  StrategyOutcome outcome;
  std::int64_t elapsed_ns;
};

/// The shared page, mapped before fork; a failed mmap is a failed run.
class SharedReport : public tracing::SharedMapping<Report> {
 public:
  SharedReport() {
    if (!*this) throw_errno("mmap", errno, kExitRunFailed);
  }
};

/// The child's whole life: time the strategy, report, exit. Never throws.
int child_main(const Strategy& strategy, const WriteJob& job, Report* report) noexcept {
  std::int64_t t0 = monotonic_ns();  // vDSO: no syscall, so nothing to count
  StrategyOutcome out = strategy.run(job);
  std::int64_t t1 = monotonic_ns();
  report->outcome = out;
  report->elapsed_ns = t1 - t0;
  report->finished = true;
  return 0;
}

void fill_from_report(ChildRun& run, const Report& report) {
  run.finished = report.finished;
  run.outcome = report.outcome;
  run.elapsed_ns = report.elapsed_ns;
}

}  // namespace

ChildRun run_untraced(const Strategy& strategy, const WriteJob& job,
                      std::optional<std::chrono::nanoseconds> timeout) {
  SharedReport report;
  pid_t pid = fork_tree();
  if (pid < 0) throw_errno("fork", errno, kExitRunFailed);
  if (pid == 0) ::_exit(child_main(strategy, job, report.get()));

  ProcessTree tree(pid);
  const TreeEnd end = tree.wait(deadline_after(timeout));
  ChildRun run;
  run.timed_out = end.timed_out;
  const int status = end.status;
  const rusage& ru = end.usage;
  fill_from_report(run, *report.get());
  run.usage = ru;
  if (WIFSIGNALED(status)) run.term_signal = WTERMSIG(status);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  return run;
}

ChildRun run_traced(const Strategy& strategy, const WriteJob& job, CountingBackend& backend,
                    std::optional<std::chrono::nanoseconds> timeout) {
  SharedReport report;
  Report* shared = report.get();
  TraceResult trace =
      backend.run([&]() noexcept { return child_main(strategy, job, shared); }, timeout);
  ChildRun run;
  fill_from_report(run, *shared);
  run.term_signal = trace.term_signal;
  run.exit_code = trace.exit_code;
  run.timed_out = trace.timed_out;
  run.trace = std::move(trace);
  return run;
}

}  // namespace iobench
