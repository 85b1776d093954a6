#include "tracer/tracefs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "base/capabilities.h"
#include "base/unique_fd.h"

namespace iobench::tracing {

namespace {

constexpr const char* kTracefsMount = "/sys/kernel/tracing";
constexpr const char* kTracefsRoots[] = {kTracefsMount, "/sys/kernel/debug/tracing"};

/// Whether tracefs is mounted at `path` (statfs needs no access to the directory itself,
/// so this answers for a caller that is not root too).
bool is_tracefs(const char* path) {
  struct statfs st {};
  return ::statfs(path, &st) == 0 && st.f_type == TRACEFS_MAGIC;
}

bool tracefs_mounted() {
  for (const char* root : kTracefsRoots)
    if (is_tracefs(root)) return true;
  return false;
}

/// Whether a mounted tracefs refuses this user its syscall tracepoints (rather than having
/// none): opening sys_enter_write's id fails with EACCES.
bool tracepoints_refused() {
  for (const char* root : kTracefsRoots) {
    if (!is_tracefs(root)) continue;
    const std::string id = std::string(root) + "/events/syscalls/sys_enter_write/id";
    const UniqueFd fd(::open(id.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd && (errno == EACCES || errno == EPERM)) return true;
  }
  return false;
}

}  // namespace

long tracefs_event_id(const std::string& root, const std::string& event) {
  std::ifstream in(root + "/events/" + event + "/id");
  long id = -1;
  in >> id;
  return in ? id : -1;
}

std::string tracefs_root() {
  for (const char* root : kTracefsRoots)
    if (tracefs_event_id(root, "syscalls/sys_enter_write") >= 0) return root;
  return {};
}

std::string no_tracefs_reason() {
  if (!tracefs_mounted()) return fmt::format("tracefs is not mounted; as root: {}", kMountTracefs);
  if (!tracepoints_refused())
    return "no syscall tracepoints (a kernel without CONFIG_FTRACE_SYSCALLS)";
  // CAP_PERFMON opens the counters but reads no file: tracefs's permissions decide the ids.
  if (holds_capability(CAP_PERFMON))
    return "syscall tracepoints unreadable: CAP_PERFMON is held, but tracefs lets this user "
           "read none of their ids (as root, tracefs's gid= and mode= mount options can)";
  return "syscall tracepoints unreadable (needs root, or CAP_PERFMON and a tracefs this user may "
         "read)";
}

std::string mount_tracefs_if_missing() {
  if (::geteuid() != 0 || tracefs_mounted() || !tracefs_root().empty()) return {};
  // "nodev" as perf and the kernel's documentation name the source: tracefs has none.
  if (::mount("nodev", kTracefsMount, "tracefs", 0, nullptr) == 0) return {};
  return fmt::format("cannot mount tracefs ({}: {})", kMountTracefs, std::strerror(errno));
}

}  // namespace iobench::tracing
