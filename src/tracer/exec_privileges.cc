#include "tracer/exec_privileges.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <fstream>

namespace iobench::tracing {

namespace {

struct Ids {
  long euid = -1, egid = -1;
};

/// The effective ids from /proc/TID/status ("Uid:\treal\teffective\tsaved\tfs").
Ids effective_ids(pid_t tid) {
  std::ifstream status(fmt::format("/proc/{}/status", tid));
  Ids ids;
  for (std::string line; std::getline(status, line);) {
    long real = 0, effective = 0;
    if (std::sscanf(line.c_str(), "Uid: %ld %ld", &real, &effective) == 2) ids.euid = effective;
    if (std::sscanf(line.c_str(), "Gid: %ld %ld", &real, &effective) == 2) ids.egid = effective;
  }
  return ids;
}

}  // namespace

std::optional<std::string> exec_lost_privileges(pid_t tid, bool file_caps_ignored) {
  const std::string exe = fmt::format("/proc/{}/exe", tid);
  struct stat st {};
  if (::stat(exe.c_str(), &st) != 0) return std::nullopt;
  const bool setuid = (st.st_mode & S_ISUID) != 0;
  // Without group execute, S_ISGID means mandatory locking, not setgid.
  const bool setgid = (st.st_mode & S_ISGID) != 0 && (st.st_mode & S_IXGRP) != 0;
  const bool caps =
      file_caps_ignored && ::getxattr(exe.c_str(), "security.capability", nullptr, 0) > 0;
  if (!setuid && !setgid && !caps) return std::nullopt;
  const Ids ids = effective_ids(tid);
  if (ids.euid < 0) return std::nullopt;
  const bool lost = (setuid && ids.euid != static_cast<long>(st.st_uid)) ||
                    (setgid && ids.egid != static_cast<long>(st.st_gid)) ||
                    (caps && ids.euid != 0);  // root holds what caps could grant
  if (!lost) return std::nullopt;
  char path[PATH_MAX];
  const ssize_t n = ::readlink(exe.c_str(), path, sizeof(path));
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : exe;
}

}  // namespace iobench::tracing
