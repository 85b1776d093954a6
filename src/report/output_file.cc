#include "report/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/interrupt.h"
#include "base/unique_fd.h"
#include "report/escape.h"
#include "report/progress.h"

namespace iobench {
namespace {

/// How a path is written, decided the same way by the check and by the write.
enum class Way {
  kCreate,      // nothing there yet: a new file through a temporary and rename
  kReplace,     // a regular file replaced through a temporary, keeping mode and owner
  kInPlace,     // a regular file truncated and rewritten (links, other owners, 0666 files)
  kDevice,      // a device or FIFO: opened and written, never created or replaced
  kDescriptor,  // /dev/stdout, /dev/stderr, /dev/fd/N: our own open descriptor
};

struct Target {
  Way way = Way::kCreate;
  std::string path;   // symlinks resolved for kReplace and kInPlace
  struct stat st {};  // the existing file (not kCreate, not kDescriptor)
  int fd = -1;        // kDescriptor
};

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// The descriptor a name of one of our own open descriptors refers to, or -1. Opening
/// /proc/self/fd/N would start a new file offset at 0 (and a pipe has no name to resolve),
/// so these are written through the descriptor itself, as bash treats them.
int descriptor_named(const std::string& path) {
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::size_t n = std::strlen(prefix);
    if (path.compare(0, n, prefix) != 0 || path.size() == n) continue;
    int fd = -1;
    const char* end = path.data() + path.size();
    const auto [ptr, ec] = std::from_chars(path.data() + n, end, fd);
    if (ec == std::errc() && ptr == end) return fd;
  }
  return -1;
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// The longest name dir takes (pathconf), or 255, the common NAME_MAX, when it cannot say.
std::size_t name_max(const std::string& dir) {
  const long n = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  return n > 0 ? static_cast<std::size_t>(n) : 255;
}

constexpr std::string_view kTempSuffix = ".XXXXXX.tmp";

/// The temporary's template beside path: NAME.XXXXXX.tmp, with NAME cut short so that the
/// whole always fits the directory's NAME_MAX (a name of 250 bytes is a valid output).
std::string temp_template(const std::string& path) {
  const std::size_t max = name_max(directory_of(path));
  const std::size_t room = max - std::min(max, kTempSuffix.size());
  const std::string dir_part = path.substr(0, path.size() - base_name(path).size());
  return dir_part + base_name(path).substr(0, room) + std::string(kTempSuffix);
}

bool in_my_groups(gid_t gid) {
  if (gid == ::getegid()) return true;
  const int n = ::getgroups(0, nullptr);
  std::vector<gid_t> groups(n > 0 ? static_cast<std::size_t>(n) : 0);
  const int got = ::getgroups(n, groups.data());
  for (int i = 0; i < got; ++i)
    if (groups[static_cast<std::size_t>(i)] == gid) return true;
  return false;
}

bool read_only_fs(const std::string& dir) {
  struct statvfs vfs {};
  return ::statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0;
}

/// Whether rename can put a new file at `t.path` that looks like the old one: a single link
/// (a rename would cut the others off), a directory we may create in, and an owner and
/// group fchown can give the temporary. The last also covers a sticky directory, where
/// only the owner (or root) may rename over a file. A file we may not write (0444) is not
/// replaced either: `>` or strace -o would fail with EACCES, and so does the check.
bool replaceable(const Target& t) {
  if (t.st.st_nlink > 1) return false;
  if (::faccessat(AT_FDCWD, t.path.c_str(), W_OK, AT_EACCESS) != 0) return false;
  const std::string dir = directory_of(t.path);
  if (read_only_fs(dir) || ::access(dir.c_str(), W_OK | X_OK) != 0) return false;
  if (::geteuid() == 0) return true;
  return t.st.st_uid == ::geteuid() && in_my_groups(t.st.st_gid);
}

/// Where path's bytes go. Throws Error (exit 2) for what can be refused by its name alone.
Target resolve(const std::string& name, const std::string& path) {
  Target t;
  t.path = path;
  if ((t.fd = descriptor_named(path)) >= 0) {
    t.way = Way::kDescriptor;
    return t;
  }
  struct stat link {};
  // Missing (or a parent that is no directory): a new file, which the directory check names.
  if (::lstat(path.c_str(), &link) != 0) return t;
  if (::stat(path.c_str(), &t.st) != 0) {
    if (S_ISLNK(link.st_mode))
      throw Error(name +
                  ": is a symlink to a missing file (iobench writes through a symlink "
                  "only to an existing file)");
    throw_errno(name, errno);
  }
  if (S_ISDIR(t.st.st_mode)) throw Error(name + ": is a directory");
  if (S_ISSOCK(t.st.st_mode)) throw Error(name + ": is a socket (iobench cannot open it)");
  if (!S_ISREG(t.st.st_mode)) {
    t.way = Way::kDevice;  // opened by the name given, through a symlink too: it is the user's
    return t;
  }
  if (S_ISLNK(link.st_mode)) {  // the file it points to, so the link stays a link
    const std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr),
                                                           &std::free);
    if (!real) throw_errno(name, errno);
    t.path = real.get();
  }
  t.way = replaceable(t) ? Way::kReplace : Way::kInPlace;
  return t;
}

/// The directory checks for a file created there: named plainly, as --dir does (access()
/// alone would say only EROFS).
void check_directory(const std::string& name, const std::string& path) {
  const std::string dir = directory_of(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) throw_errno(name + ": " + dir, errno);
  if (!S_ISDIR(st.st_mode)) throw Error(name + ": " + dir + " is not a directory");
  if (read_only_fs(dir)) throw Error(name + ": " + dir + " is on a read-only filesystem");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw_errno(name + ": " + dir, errno);
  // The name itself: the rename would fail on it after the whole run.
  if (base_name(path).size() > name_max(dir)) throw_errno(name, ENAMETOOLONG);
}

void check_target(const std::string& name, const Target& t) {
  switch (t.way) {
    case Way::kCreate:
    case Way::kReplace:
      check_directory(name, t.path);
      return;
    case Way::kInPlace:
      if (read_only_fs(directory_of(t.path)))
        throw Error(name + ": " + directory_of(t.path) + " is on a read-only filesystem");
      if (::access(t.path.c_str(), W_OK) != 0) throw_errno(name, errno);
      return;
    case Way::kDescriptor: {
      const int flags = ::fcntl(t.fd, F_GETFL);
      if (flags < 0) throw Error(name + ": descriptor " + std::to_string(t.fd) + " is not open");
      if ((flags & O_ACCMODE) == O_RDONLY)
        throw Error(name + ": descriptor " + std::to_string(t.fd) + " is not open for writing");
      return;
    }
    case Way::kDevice:
      // Opening a FIFO's write end and closing it would hand a waiting reader its EOF, and
      // with no reader yet the open would fail though one may come: only ask permission.
      if (S_ISFIFO(t.st.st_mode)) {
        if (::access(t.path.c_str(), W_OK) != 0) throw_errno(name, errno);
        return;
      }
      // The write's own question; O_NONBLOCK so a device that waits on open does not.
      const UniqueFd fd(::open(t.path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
      if (!fd) throw_errno(name, errno);
      return;
  }
}

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = ENOSPC;  // write(2) returns 0 only on a full device
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

mode_t current_umask() {
  // umask(2) can only be read by setting it; iobench's parent creates no files on other
  // threads, so the moment with 0 is harmless.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

/// The new file (or the replacement) through a temporary beside it and rename. Returns 0 or
/// the errno of the step that failed; the temporary never outlives a failure.
int write_by_rename(const Target& t, const std::string& text) {
  // mkostemp opens with O_CREAT|O_EXCL under a random name: a symlink (or anything else)
  // planted at the name fails the open instead of being written through.
  std::string tmp = temp_template(t.path);
  const int fd = ::mkostemps(tmp.data(), 4, O_CLOEXEC);
  if (fd < 0) return errno;
  int err = 0;
  if (t.way == Way::kReplace) {
    // The replacement is the old file's: owner first, as chown may clear mode bits.
    if (::fchown(fd, t.st.st_uid, t.st.st_gid) != 0 || ::fchmod(fd, t.st.st_mode & 0777) != 0)
      err = errno;
  } else if (::fchmod(fd, 0666 & ~current_umask()) != 0) {  // mkostemp's 0600 is too private
    err = errno;
  }
  if (err == 0 && !write_all(fd, text)) err = errno;
  // On disk before the rename: else a crash soon after may leave the new name empty.
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), t.path.c_str()) != 0) err = errno;
  if (err != 0) (void)::unlink(tmp.c_str());
  return err;
}

/// Opens what is at the path now for writing in place. For a regular file: no symlink
/// followed and the same file as resolved, so nothing swapped in meanwhile is truncated.
int open_in_place(const Target& t) {
  const int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC;
  if (t.way == Way::kDevice) {
    for (;;) {  // a FIFO waits here for its reader, as strace -o does; Ctrl-C ends the wait
      const int fd = ::open(t.path.c_str(), flags);
      if (fd >= 0 || errno != EINTR) return fd;
      throw_if_interrupted();
    }
  }
  const int fd = ::open(t.path.c_str(), flags | O_NOFOLLOW);
  struct stat now {};
  if (fd >= 0 && (::fstat(fd, &now) != 0 || now.st_dev != t.st.st_dev ||
                  now.st_ino != t.st.st_ino || ::ftruncate(fd, 0) != 0)) {
    const int err = errno == 0 ? ESTALE : errno;
    ::close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

int write_in_place(const Target& t, const std::string& text) {
  errno = 0;
  const int fd = open_in_place(t);
  if (fd < 0) return errno;
  int err = write_all(fd, text) ? 0 : errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

int write_descriptor(int fd, const std::string& text) {
  // stdio may hold report text already sent to stdout; it must come out first.
  if (fd == STDOUT_FILENO) (void)std::fflush(stdout);
  return write_all(fd, text) ? 0 : errno;
}

// What the exit status needs to know: an output failed. The files that failed, so each is
// reported once, not after every strategy. Only the main thread writes outputs.
bool g_output_failed = false;
std::set<std::string>& failed_outputs() {
  static std::set<std::string> failed;
  return failed;
}

}  // namespace

void check_output_file(const std::string& flag, const std::string& path) {
  const std::string name = flag + " " + path;
  if (path.empty()) throw Error(flag + ": needs a file name");
  check_target(name, resolve(name, path));
}

OutputIdentity output_identity(const std::string& path) {
  const Target t = resolve(path, path);
  auto file_id = [](const struct stat& st) {
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  };
  if (t.way == Way::kDevice) return {};
  if (t.way == Way::kDescriptor) {
    struct stat st {};
    if (::fstat(t.fd, &st) != 0 || !S_ISREG(st.st_mode)) return {};
    return {file_id(st), /*stream=*/true};
  }
  if (t.way != Way::kCreate) return {file_id(t.st), false};
  const std::unique_ptr<char, decltype(&std::free)> dir(
      ::realpath(directory_of(path).c_str(), nullptr), &std::free);
  return {(dir ? std::string(dir.get()) : directory_of(path)) + "/" + base_name(path), false};
}

bool is_stream_output(const std::string& path) {
  try {
    const Way way = resolve(path, path).way;
    return way == Way::kDevice || way == Way::kDescriptor;
  } catch (const Error&) {
    return false;  // changed since the check: the write reports it
  }
}

void write_output_file(const std::string& path, const std::string& text, const std::string& what) {
  const std::string failed = what + "cannot write " + path;
  Target t;
  try {
    t = resolve(path, path);
  } catch (const Error& e) {
    throw Error(what + e.what(), kExitOutputFailed);  // it changed since the check
  }
  int err = 0;
  switch (t.way) {
    case Way::kCreate:
    case Way::kReplace:
      err = write_by_rename(t, text);
      break;
    case Way::kInPlace:
    case Way::kDevice:
      err = write_in_place(t, text);
      break;
    case Way::kDescriptor:
      err = write_descriptor(t.fd, text);
      // A reader of our stdout or stderr that went away: quiet, as for the report itself.
      if (err == EPIPE) throw Error("", 128 + SIGPIPE);
      break;
  }
  if (err != 0) throw_errno(failed, err, kExitOutputFailed);
}

bool write_output(const std::string& path, const std::string& text, const std::string& what) {
  const std::string key = what + path;
  if (failed_outputs().contains(key)) return false;
  try {
    write_output_file(path, text, what);
    return true;
  } catch (const Error& e) {
    if (e.exit_status() != kExitOutputFailed) throw;
    failed_outputs().insert(key);
    note_output_failure(e.what());
    return false;
  }
}

void note_output_failure(const std::string& message) {
  g_output_failed = true;
  // The message names a path from outside: escaped, as main escapes every error line; an
  // export failing mid-run goes above the live table (Progress::print_line).
  if (!message.empty()) Progress::print_line("iobench: error: " + escape_text(message) + "\n");
}

int output_exit_status(int status) {
  const bool mild = status == kExitOk || status == kExitCheckFailed || status == kExitRunFailed;
  return g_output_failed && mild ? kExitOutputFailed : status;
}

}  // namespace iobench
