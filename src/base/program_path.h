// The one PATH lookup: which file a command name runs, found in the parent before anything
// runs (a missing program is then a usage error, not a message written, and counted, by a
// traced child).
#pragma once

#include <string>

namespace iobench {

/// As execvp finds it: a name with a '/' as given when it is an executable regular file,
/// else the first such file of that name in $PATH (an empty entry is "."; no PATH:
/// /usr/local/bin:/usr/bin:/bin). Empty when there is none.
std::string find_program(const std::string& name);

/// find_program for a command the user gave to `command` (trace, compare). Throws Error
/// (exit 2): "COMMAND: cannot run 'NAME': <errno>" for a path that is not an executable
/// file, "COMMAND: command not found: 'NAME'" otherwise.
std::string resolve_command(const std::string& command, const std::string& name);

}  // namespace iobench
