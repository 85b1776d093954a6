// A user's command exec'd in a forked child (trace, compare, the API's trace_command): argv
// is built and exec's errno page mapped before fork, so the child allocates nothing and a
// failed exec reaches the parent without a syscall the tracer would count.
#pragma once

#include <string>
#include <vector>

#include "base/unique_fd.h"

namespace iobench {

class CommandExec {
 public:
  /// `program`: args[0] as resolve_command found it. Throws Error (exit 3) when the shared
  /// page cannot be mapped.
  CommandExec(std::string program, std::vector<std::string> args);
  CommandExec(const CommandExec&) = delete;
  CommandExec& operator=(const CommandExec&) = delete;

  /// In the child: execv. Returns only when exec failed, with the status for the child to
  /// exit with: 126, since the program was found (README "Exit status").
  int exec() const noexcept;
  /// exec's errno in a child of this object that failed to exec; 0 while none has.
  int failed_errno() const noexcept { return *errno_.get(); }
  /// Why it failed, for the one error line: "cannot execute 'NAME': <errno>", and what a
  /// script's first line says (its missing #! interpreter, or that it needs one).
  std::string failure() const;

 private:
  std::string program_;
  std::vector<std::string> args_;
  std::vector<char*> argv_;  // into args_, null-terminated
  SharedMapping<int> errno_;
};

}  // namespace iobench
