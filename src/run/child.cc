#include "run/child.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "base/error.h"
#include "base/monotonic_clock.h"
#include "base/process.h"
#include "tracer/counting_backend.h"

namespace iobench {

ChildRun run_untraced(const std::function<void()>& child_main,
                      std::optional<std::chrono::nanoseconds> timeout) {
  const std::int64_t t0 = monotonic_ns();
  const pid_t pid = fork_tree();
  if (pid < 0) throw_spawn_error("fork for an untraced run", errno);
  if (pid == 0) {
    child_main();
    ::_exit(127);  // child_main never returns; if it did, nothing of the parent may run
  }
  // The whole process tree is waited for (and killed on timeout or interrupt), but the
  // time is the main process's, as hyperfine measures it.
  ProcessTree tree(pid);
  const TreeEnd end = tree.wait(deadline_after(timeout));
  ChildRun run;
  run.elapsed_ns = end.main_exit_ns - t0;
  run.usage = end.usage;
  run.timed_out = end.timed_out;
  if (WIFSIGNALED(end.status)) run.term_signal = WTERMSIG(end.status);
  if (WIFEXITED(end.status)) run.exit_code = WEXITSTATUS(end.status);
  return run;
}

ChildRun run_counted(CountingBackend& backend, const std::function<int()>& child_main,
                     std::optional<std::chrono::nanoseconds> timeout) {
  TraceResult trace = backend.run(child_main, timeout);
  ChildRun run;
  run.elapsed_ns = trace.wall_ns;
  run.term_signal = trace.term_signal;
  run.exit_code = trace.exit_code;
  run.timed_out = trace.timed_out;
  run.trace = std::move(trace);
  return run;
}

}  // namespace iobench
