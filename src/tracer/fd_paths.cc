#include "tracer/fd_paths.h"

#include <iterator>

#include "tracer/tally.h"

namespace iobench::tracing {

const FdFacts& FdPaths::lookup(pid_t tid, int fd, const std::vector<FileId>& streams) {
  if (cached_) {
    auto it = facts_.find(fd);
    if (it != facts_.end()) return it->second;
  }
  FdFacts facts = classify_fd(tid, fd, streams);
  if (facts.kind == FdKind::kUnknown && stream_fds_.count(fd) != 0) {
    facts.kind = FdKind::kStream;
    facts.key = file_key(kUnreadableFdPath, FdKind::kStream);
  } else if (facts.kind == FdKind::kStream) {
    stream_fds_.insert(fd);
  } else if (facts.kind != FdKind::kUnknown) {
    stream_fds_.erase(fd);
  }
  // A bad fd now may be a good one later, and an unreadable one readable (dumpable again).
  if (!cached_ || facts.kind == FdKind::kUnknown || facts.kind == FdKind::kNone) {
    return scratch_ = std::move(facts);
  }
  return facts_.emplace(fd, std::move(facts)).first->second;
}

void FdPaths::forget_range(unsigned first, unsigned last) {
  // close_range(3, ~0U) is the common call; walk the cache, not the range.
  for (auto it = facts_.begin(); it != facts_.end();) {
    const auto fd = static_cast<unsigned>(it->first);
    it = (fd >= first && fd <= last) ? facts_.erase(it) : std::next(it);
  }
  for (auto it = stream_fds_.begin(); it != stream_fds_.end();) {
    const auto fd = static_cast<unsigned>(*it);
    it = (fd >= first && fd <= last) ? stream_fds_.erase(it) : std::next(it);
  }
}

}  // namespace iobench::tracing
