#include "run/command_workload.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cerrno>

#include "base/error.h"
#include "tracer/write_calls.h"

namespace iobench {

CommandWorkload::CommandWorkload(std::string name, std::string program,
                                 std::vector<std::string> argv, bool show_output)
    : name_(std::move(name)),
      exec_(std::move(program), std::move(argv)),
      null_(::open("/dev/null", O_RDWR | O_CLOEXEC)),
      show_output_(show_output) {
  if (!null_) throw_errno("/dev/null", errno, kExitRunFailed);
}

StrategyResult CommandWorkload::row() const {
  StrategyResult r;
  r.strategy = name_;
  return r;
}

void CommandWorkload::exec() const noexcept {
  ::dup2(null_.get(), STDIN_FILENO);
  if (!show_output_) {
    ::dup2(null_.get(), STDOUT_FILENO);
    ::dup2(null_.get(), STDERR_FILENO);
  }
  // iobench ignores these for itself; SIG_IGN would survive exec and change the program.
  (void)::signal(SIGPIPE, SIG_DFL);
  (void)::signal(SIGXFSZ, SIG_DFL);
  ::_exit(exec_.exec());
}

ChildRun CommandWorkload::run(CountingBackend* counted,
                              std::optional<std::chrono::nanoseconds> timeout) {
  ChildRun run = counted != nullptr ? run_counted(
                                          *counted, [this]() noexcept -> int { exec(); }, timeout)
                                    : run_untraced([this]() noexcept { exec(); }, timeout);
  // The first run says so, before any time is spent on the rest (the child is reaped).
  if (exec_.failed_errno() != 0) throw Error("compare: " + exec_.failure(), kExitCannotRun);
  return run;
}

std::string CommandWorkload::failure(const ChildRun& run) const {
  std::string why;
  if (run.timed_out)
    why = "timed out";
  else if (run.term_signal != 0)
    why = fmt::format("killed by signal {} ({})", run.term_signal, ::strsignal(run.term_signal));
  else if (run.exit_code == 127)
    why = "exited with status 127 (could not be run)";
  else if (run.exit_code != 0)
    why = fmt::format("exited with status {}", run.exit_code);
  if (!why.empty() && run.trace) why += " (traced run)";
  return why;
}

void CommandWorkload::attribute(const TraceResult& trace, StrategyResult& result) const {
  attribute_command_writes(trace, result);
}

void attribute_command_writes(const TraceResult& trace, StrategyResult& result) {
  const WriteCount count = count_writes(trace);
  result.write_calls = count.calls;
  result.syscall_time_ns = count.time_ns;
  if (!trace.time_unavailable_reason.empty()) result.syscall_time_ns.reset();  // not 0: unknown
  result.bytes = count.bytes;
  result.timed_calls = count.timed_calls;
  result.syscall_time_ci95_ns = count.time_ci95_ns;
}

}  // namespace iobench
