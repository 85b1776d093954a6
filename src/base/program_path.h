// The one PATH lookup: which file a command name runs, found in the parent before anything
// runs (a missing program is then an error before the run, not a message written, and
// counted, by a traced child).
#pragma once

#include <string>

namespace iobench {

/// As execvp finds it: a name with a '/' as given when it is an executable regular file,
/// else the first such file of that name in $PATH (an empty entry is "."; no PATH:
/// /usr/local/bin:/usr/bin:/bin). Empty when there is none.
std::string find_program(const std::string& name);

/// find_program for a command the user gave to `command` (trace, compare; "" for the API's
/// message without a prefix). Throws
/// Error with a shell's status (README "Exit status"): 127 "COMMAND: command not found:
/// 'NAME'" when nothing of that name is in PATH, or "COMMAND: cannot run 'NAME': <errno>"
/// for a path that does not exist (127) or is not an executable file (126), or a file in
/// PATH without the execute bit (126, as execvp's EACCES).
std::string resolve_command(const std::string& command, const std::string& name);

}  // namespace iobench
