#include "tracer/fd_paths.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <iterator>

#include "tracer/tally.h"

namespace iobench::tracing {

namespace {

std::string read_fd_link(pid_t tid, int fd) {
  char link[64];
  *fmt::format_to_n(link, sizeof(link) - 1, "/proc/{}/fd/{}", tid, fd).out = '\0';
  char target[PATH_MAX];
  const ssize_t n = ::readlink(link, target, sizeof(target));
  if (n > 0) return std::string(target, static_cast<std::size_t>(n));
  // EACCES: the fd exists but may not be looked at (PR_SET_DUMPABLE 0 and no
  // CAP_SYS_PTRACE); a bad fd is ENOENT.
  if (errno == EACCES || errno == EPERM) return kUnreadableFdPath;
  return {};
}

}  // namespace

const std::string& FdPaths::path(pid_t tid, int fd) {
  if (!cached_) return scratch_ = read_fd_link(tid, fd);
  auto it = paths_.find(fd);
  if (it != paths_.end()) return it->second;
  std::string p = read_fd_link(tid, fd);
  // A bad fd now may be a good one later, and an unreadable one readable (dumpable again).
  if (p.empty() || p == kUnreadableFdPath) return scratch_ = p;
  return paths_.emplace(fd, std::move(p)).first->second;
}

void FdPaths::forget_range(unsigned first, unsigned last) {
  // close_range(3, ~0U) is the common call; walk the cache, not the range.
  for (auto it = paths_.begin(); it != paths_.end();) {
    const auto fd = static_cast<unsigned>(it->first);
    it = (fd >= first && fd <= last) ? paths_.erase(it) : std::next(it);
  }
}

}  // namespace iobench::tracing
