// Errors in the parent: one exception type, caught once in main, printed as
// `iobench: error: <message>` and turned into a documented exit status.
#pragma once

#include <stdexcept>
#include <string>

namespace iobench {

/// Exit statuses (README "Exit status").
enum ExitStatus : int {
  kExitOk = 0,            // all measured (unsupported rows are fine)
  kExitCheckFailed = 1,   // an expectation or a baseline failed
  kExitUsage = 2,         // bad usage or unusable environment, found before anything ran
  kExitRunFailed = 3,     // some strategies failed while running
  kExitOutputFailed = 4,  // an output (stdout, trace -o, an export) could not be written
  kExitTimedOut = 124,    // iobench trace: --timeout killed the command (as timeout(1) exits)
  kExitCannotRun = 126,   // trace, compare, the API: the command exists but cannot be executed
  kExitNotFound = 127,    // trace, compare, the API: no such command
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, int exit_status = kExitUsage)
      : std::runtime_error(message), exit_status_(exit_status) {}
  int exit_status() const noexcept { return exit_status_; }

 private:
  int exit_status_;
};

/// Throws Error("<what>: <strerror(err)>").
[[noreturn]] void throw_errno(const std::string& what, int err, int exit_status = kExitUsage);

}  // namespace iobench
