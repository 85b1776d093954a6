#include "child.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <new>

#include "error.h"
#include "process.h"
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

/// RAII for the shared page.
class SharedReport {
 public:
  SharedReport() {
    void* p =
        ::mmap(nullptr, sizeof(Report), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw_errno("mmap", errno, kExitRunFailed);
    report_ = new (p) Report{};
  }
  ~SharedReport() { ::munmap(report_, sizeof(Report)); }
  SharedReport(const SharedReport&) = delete;
  SharedReport& operator=(const SharedReport&) = delete;
  Report* operator->() const noexcept { return report_; }

 private:
  Report* report_;
};

std::int64_t now_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);  // vDSO: no syscall, so nothing to count
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

/// The child's whole life: time the strategy, report, exit. Never throws.
int child_main(const Strategy& strategy, const WriteJob& job, Report* report) noexcept {
  std::int64_t t0 = now_ns();
  StrategyOutcome out = strategy.run(job);
  std::int64_t t1 = now_ns();
  report->outcome = out;
  report->elapsed_ns = t1 - t0;
  report->finished = true;
  return 0;
}

std::int64_t to_ns(const timeval& tv) {
  return std::int64_t{tv.tv_sec} * 1'000'000'000 + std::int64_t{tv.tv_usec} * 1000;
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
  if (pid == 0) ::_exit(child_main(strategy, job, report.operator->()));

  ProcessTree tree(pid);
  const TreeEnd end = tree.wait(deadline_after(timeout));
  ChildRun run;
  run.timed_out = end.timed_out;
  const int status = end.status;
  const rusage& ru = end.usage;
  fill_from_report(run, *report.operator->());
  run.usage = ru;
  run.cpu_ns = to_ns(ru.ru_utime) + to_ns(ru.ru_stime);
  if (WIFSIGNALED(status)) run.term_signal = WTERMSIG(status);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  return run;
}

namespace {

/// A traced run by either backend: `run` forks, counts and reaps a child running `main`.
template <typename Backend>
ChildRun run_counted(const Strategy& strategy, const WriteJob& job, Backend& backend,
                     std::optional<std::chrono::nanoseconds> timeout) {
  SharedReport report;
  Report* shared = report.operator->();
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

}  // namespace

ChildRun run_traced(const Strategy& strategy, const WriteJob& job, Tracer& tracer,
                    std::optional<std::chrono::nanoseconds> timeout) {
  return run_counted(strategy, job, tracer, timeout);
}

ChildRun run_traced(const Strategy& strategy, const WriteJob& job, PerfCounter& counter,
                    std::optional<std::chrono::nanoseconds> timeout) {
  return run_counted(strategy, job, counter, timeout);
}

}  // namespace iobench
