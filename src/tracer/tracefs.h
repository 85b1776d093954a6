// Where the kernel's tracepoints are read from (tracefs), and mounting it when it is missing,
// as perf does: Debian 12 does not mount it at boot.
#pragma once

#include <string>

namespace iobench::tracing {

/// The one command that mounts tracefs where the kernel expects it.
inline constexpr char kMountTracefs[] = "mount -t tracefs nodev /sys/kernel/tracing";

/// The id of tracefs event `event` ("syscalls/sys_enter_write") under `root`, or -1.
long tracefs_event_id(const std::string& root, const std::string& event);

/// The tracefs root whose syscall tracepoints we can read (its own mount point, or under
/// debugfs on older set-ups), or empty.
std::string tracefs_root();

/// Why tracefs_root() is empty, in one line: not mounted (naming kMountTracefs), unreadable
/// (what is missing: root, or CAP_PERFMON and read access to tracefs, which the capability
/// does not give), or a kernel without syscall tracepoints.
std::string no_tracefs_reason();

/// As root, mounts tracefs at /sys/kernel/tracing when no root is readable (perf's
/// tracefs__mount); the mount stays, as perf's does. Empty when tracefs is readable now or
/// nothing can be done about it here (not root, mounted already: no_tracefs_reason() says
/// why); else why the mount failed, with the command.
std::string mount_tracefs_if_missing();

}  // namespace iobench::tracing
