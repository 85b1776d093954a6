#include "strategies/strategy.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace iobench {

StrategyOutcome outcome_ok() noexcept { return {}; }

StrategyOutcome outcome_errno(RunStatus status, const char* what, int err) noexcept {
  StrategyOutcome out;
  out.status = status;
  out.error = err;
  // strerror is not async-signal-safe in theory but the child is single-threaded; the
  // message is the errno text a user would see from strace.
  std::snprintf(out.message, sizeof out.message, "%s: %s", what, std::strerror(err));
  return out;
}

StrategyOutcome outcome_message(RunStatus status, const char* message) noexcept {
  StrategyOutcome out;
  out.status = status;
  std::snprintf(out.message, sizeof out.message, "%s", message);
  return out;
}

int create_output(const WriteJob& job, int extra_flags) noexcept {
  // O_WRONLY | O_RDWR would be access mode 3 ("ioctl only"), so the caller's mode replaces ours.
  const int access = (extra_flags & O_ACCMODE) == O_RDWR ? O_RDWR : O_WRONLY;
  // openat is the call open(2) makes anyway: the strategy's syscalls are the same either way.
  return ::openat(job.dir_fd, job.path,
                  access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | (extra_flags & ~O_ACCMODE),
                  0644);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

int OutputFile::close() noexcept {
  // Not retried on EINTR: Linux has released the fd already, and a retry could close an fd
  // that another thread just opened.
  const int rc = ::close(release());
  return rc < 0 ? errno : 0;
}

int write_all(int fd, const char* data, std::size_t len) noexcept {
  while (len > 0) {
    ssize_t n = ::write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;  // a regular file never legitimately accepts nothing
    data += n;
    len -= static_cast<std::size_t>(n);
  }
  return 0;
}

std::string to_string(const SyncPolicy& sync) {
  switch (sync.mode) {
    case SyncMode::kEnd:
      return "end";
    case SyncMode::kEvery:
      return "every:" + std::to_string(sync.every);
    case SyncMode::kNone:
      break;
  }
  return "none";
}

}  // namespace iobench
