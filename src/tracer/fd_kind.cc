#include "tracer/fd_kind.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/unique_fd.h"
#include "tracer/tally.h"

namespace iobench::tracing {

namespace {

// How /proc/PID/fd names an io_uring instance. Rings are anonymous inodes like eventfds;
// the name is what tells them apart.
constexpr std::string_view kRingName = "anon_inode:[io_uring]";

bool is_terminal(dev_t rdev) {
  // 4: virtual consoles and serial ports, 5: /dev/tty, /dev/console, /dev/ptmx,
  // 136-143: the pseudo-terminals (/dev/pts/*), devices.txt's numbers.
  const unsigned major = ::major(rdev);
  return major == 4 || major == 5 || (major >= 136 && major <= 143);
}

/// The fd's open flags as fdinfo prints them (octal); -1 when it cannot be read.
long open_flags(pid_t tid, int fd) {
  char path[64];
  *fmt::format_to_n(path, sizeof(path) - 1, "/proc/{}/fdinfo/{}", tid, fd).out = '\0';
  const UniqueFd in(::open(path, O_RDONLY | O_CLOEXEC));
  if (!in) return -1;
  char text[256];
  const ssize_t n = ::read(in.get(), text, sizeof(text) - 1);
  if (n <= 0) return -1;
  text[n] = '\0';
  const char* flags = std::strstr(text, "flags:");
  return flags != nullptr ? std::strtol(flags + 6, nullptr, 8) : -1;
}

/// A data mover on an fd without write access fails with EBADF: not a write to the file.
bool writable(pid_t tid, int fd) {
  const long flags = open_flags(tid, fd);
  if (flags < 0) return true;  // cannot tell: as if it were
  return (flags & O_PATH) == 0 && (flags & O_ACCMODE) != O_RDONLY;
}

FileId file_id(const struct statx& st) {
  return FileId{::makedev(st.stx_dev_major, st.stx_dev_minor), st.stx_ino};
}

/// kind_of_file, but kFile for any file open read-only too: whether it is writable is asked
/// of /proc only where it matters.
FdKind kind_by_type(std::string_view name, FileId id, mode_t mode, dev_t rdev,
                    const std::vector<FileId>& streams) {
  if (name == kRingName) return FdKind::kRing;
  if (std::find(streams.begin(), streams.end(), id) != streams.end()) return FdKind::kStream;
  switch (mode & S_IFMT) {
    case S_IFIFO:
      return FdKind::kPipe;
    case S_IFSOCK:
      return FdKind::kSocket;
    case 0:
      return FdKind::kAnon;  // an anonymous inode has no file type at all
    case S_IFCHR:
      if (rdev == ::makedev(1, 3)) return FdKind::kNull;
      if (is_terminal(rdev)) return FdKind::kTerminal;
      break;
    default:
      break;
  }
  return FdKind::kFile;
}

FdKind kind_of(const struct statx& st, std::string_view name, pid_t tid, int fd,
               const std::vector<FileId>& streams) {
  const FdKind kind = kind_by_type(name, file_id(st), st.stx_mode,
                                   ::makedev(st.stx_rdev_major, st.stx_rdev_minor), streams);
  if (kind != FdKind::kFile) return kind;
  return writable(tid, fd) ? FdKind::kFile : FdKind::kReadOnly;
}

}  // namespace

FdKind kind_of_file(std::string_view name, FileId id, mode_t mode, dev_t rdev, bool writable,
                    const std::vector<FileId>& streams) {
  const FdKind kind = kind_by_type(name, id, mode, rdev, streams);
  return kind == FdKind::kFile && !writable ? FdKind::kReadOnly : kind;
}

std::vector<FileId> standard_streams() {
  std::vector<FileId> ids;
  for (int fd : {1, 2}) {
    struct stat st {};
    if (::fstat(fd, &st) == 0) ids.push_back(FileId{st.st_dev, st.st_ino});  // closed: none
  }
  return ids;
}

FdFacts classify_fd(pid_t tid, int fd, const std::vector<FileId>& streams) {
  char link[64];
  *fmt::format_to_n(link, sizeof(link) - 1, "/proc/{}/fd/{}", tid, fd).out = '\0';
  char target[PATH_MAX];
  const ssize_t n = ::readlink(link, target, sizeof(target));
  // The link leads straight to the open file's inode (no path walk), but a stat there asks
  // its filesystem: a stalled FUSE or NFS server would stop the tracer, and every tracee
  // with it, beyond the watchdog's reach. AT_STATX_DONT_SYNC lets both answer from their
  // cached attributes (type, device and inode do not change while the file is open). Not
  // fdinfo's "ino:": it has no device, and a terminal or /dev/null is told by its rdev.
  struct statx st {};
  if (n <= 0 || ::statx(AT_FDCWD, link, AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO, &st) != 0) {
    // EACCES: the fd exists but may not be looked at (PR_SET_DUMPABLE 0 and no
    // CAP_SYS_PTRACE); a bad fd is ENOENT.
    if (errno == EACCES || errno == EPERM) {
      return {file_key(kUnreadableFdPath, FdKind::kUnknown), {}, FdKind::kUnknown};
    }
    return {file_key(kBadFdPath, FdKind::kNone), {}, FdKind::kNone};
  }
  const std::string_view name(target, static_cast<std::size_t>(n));
  const FdKind kind = kind_of(st, name, tid, fd, streams);
  return {file_key(name, kind), file_id(st), kind};
}

std::string file_key(std::string_view path, FdKind kind) {
  std::string key(path);
  key += '\0';
  key += static_cast<char>('A' + static_cast<int>(kind));
  return key;
}

std::string_view key_path(std::string_view key) { return key.substr(0, key.rfind('\0')); }

void split_file_keys(std::vector<FileStats>& files) {
  for (FileStats& f : files) {
    const std::size_t nul = f.path.rfind('\0');
    if (nul == std::string::npos || nul + 2 != f.path.size()) continue;  // not a key
    f.kind = static_cast<FdKind>(f.path[nul + 1] - 'A');
    f.path.resize(nul);
  }
}

}  // namespace iobench::tracing
