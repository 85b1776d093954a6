// A user's command as the runner's workload (`iobench compare`): each run forks and execs
// the program, as hyperfine runs one, and its exit status and signal are its verdict.
#pragma once

#include <string>
#include <vector>

#include "base/command_exec.h"
#include "base/unique_fd.h"
#include "run/workload.h"

namespace iobench {

class CommandWorkload : public Workload {
 public:
  /// `program` is argv[0] already resolved through PATH (in the parent, so the child makes
  /// no lookup). stdin, and stdout and stderr unless `show_output`, are /dev/null.
  CommandWorkload(std::string name, std::string program, std::vector<std::string> argv,
                  bool show_output);

  StrategyResult row() const override;
  /// Also throws Error (exit 126, README "Exit status") when the program cannot be executed
  /// (no #! interpreter, not an executable format): no run of it would measure anything.
  ChildRun run(CountingBackend* counted, std::optional<std::chrono::nanoseconds> timeout) override;
  std::string failure(const ChildRun& run) const override;
  void attribute(const TraceResult& trace, StrategyResult& result) const override;
  const std::string& output() const override { return no_output_; }
  bool pinned_when_traced() const override { return false; }

 private:
  /// In the child: the stdio, default signal dispositions, then exec. Never returns.
  [[noreturn]] void exec() const noexcept;

  std::string name_;
  CommandExec exec_;  // argv and exec's errno page: made before fork
  UniqueFd null_;     // /dev/null, opened before fork
  bool show_output_;
  std::string no_output_;
};

/// A command's write_calls, syscall_time_ns and bytes (what those calls wrote): count_writes
/// for a traced program (README "What counts as a write").
void attribute_command_writes(const TraceResult& trace, StrategyResult& result);

}  // namespace iobench
