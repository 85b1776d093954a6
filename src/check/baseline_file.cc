// Reading a --baseline FILE. The path is whatever the command line names, so it may be a
// device, a FIFO or a symlink to one: only a regular file is opened and read, and at most
// kBaselineMaxBytes of it, and neither the open nor a read may block. A signal that
// interrupts either is the user's stop (exit 128 + signal), never a "cannot read it".
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/error.h"
#include "base/interrupt.h"
#include "base/unique_fd.h"
#include "check/baseline.h"

namespace iobench {
namespace {

Error unreadable(const std::string& path, const std::string& why) {
  return Error(fmt::format("--baseline {}: cannot read it: {}", path, why));
}

/// What a path that is not a regular file is, for the message.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "an unknown kind of file";
}

Error too_big(const std::string& path) {
  return Error(
      fmt::format("--baseline {}: larger than {} MiB, the most a baseline may be (a saved "
                  "one is a few KiB per strategy)",
                  path, kBaselineMaxBytes >> 20));
}

/// Refuses `st` unless it is a regular file, naming what it is instead.
void require_regular(const std::string& path, const struct stat& st) {
  if (!S_ISREG(st.st_mode))
    throw Error(fmt::format("--baseline {}: {}, not a regular file (save one with --save-baseline)",
                            path, kind_of(st.st_mode)));
}

/// What `path` names (through symlinks), before anything opens it: opening a device can do
/// something by itself (rewind a tape, arm /dev/watchdog), so nothing but a regular file is
/// opened.
void require_regular_before_open(const std::string& path) {
  struct stat st {};
  while (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err != EINTR) throw unreadable(path, ::strerror(err));
    throw_if_interrupted();  // a stat on a network or FUSE filesystem can wait too
  }
  require_regular(path, st);
}

UniqueFd open_baseline(const std::string& path) {
  for (;;) {
    // O_NONBLOCK: should the path be swapped for a FIFO after the stat, opening it would
    // wait for a writer (and a device's open for carrier); O_NOCTTY: nor may a terminal
    // become our controlling terminal. The fstat after the open checks what was opened.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0) return UniqueFd(fd);
    const int err = errno;
    if (err != EINTR) throw unreadable(path, ::strerror(err));
    throw_if_interrupted();  // our handlers are the only ones that interrupt a call
  }
}

/// The whole file, or an Error: a size seen by fstat can grow while we read, and files in
/// /proc or /sys say 0, so the cap is enforced on the bytes read, not only on st_size.
std::string read_capped(int fd, const std::string& path) {
  std::string text;
  char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return text;
    if (n < 0) {
      const int err = errno;
      if (err != EINTR) throw unreadable(path, ::strerror(err));
      throw_if_interrupted();
      continue;
    }
    if (text.size() + static_cast<std::size_t>(n) > kBaselineMaxBytes) throw too_big(path);
    text.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace

Baseline load_baseline(const std::string& path) {
  require_regular_before_open(path);
  const UniqueFd fd = open_baseline(path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw unreadable(path, ::strerror(errno));
  require_regular(path, st);  // again, on what was opened: the path may have been swapped
  if (static_cast<std::uint64_t>(st.st_size) > kBaselineMaxBytes) throw too_big(path);
  std::string text = read_capped(fd.get(), path);
  // A signal during a read that the kernel completed anyway (a local disk's) is seen here,
  // before anything runs.
  throw_if_interrupted();
  return parse_baseline(text, path);
}

}  // namespace iobench
