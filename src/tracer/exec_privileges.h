// Whether an exec under the tracer lost privileges the program file grants.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace iobench::tracing {

/// At a tracee's exec event: the new program's path when its file is setuid or setgid and
/// the process's effective ids are not the file's (under no_new_privs, or a tracer without
/// CAP_SYS_PTRACE, the kernel ignores the bits), or when the file carries capabilities and
/// `file_caps_ignored` says the kernel ignored them; nullopt otherwise, or when the tracee
/// is gone.
std::optional<std::string> exec_lost_privileges(pid_t tid, bool file_caps_ignored);

}  // namespace iobench::tracing
