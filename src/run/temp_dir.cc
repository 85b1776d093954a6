#include "run/temp_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <random>

#include "base/error.h"

namespace iobench {
namespace {

/// A name no one can guess (mkdtemp's pattern; mkdtemp itself takes no directory fd).
std::string random_name() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device rd;  // getrandom(2)
  std::string name = "iobench.";
  for (int i = 0; i < 6; ++i) name += kChars[rd() % (sizeof(kChars) - 1)];
  return name;
}

/// Only what a directory we just made can look like: ours, 0700, empty.
bool freshly_made(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & 07777) != 0700)
    return false;
  DIR* d = ::fdopendir(::dup(fd));
  if (d == nullptr) return false;
  ::rewinddir(d);  // a dup shares the offset: start from the first entry whoever read last
  bool empty = true;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") empty = false;
  }
  ::closedir(d);
  return empty;
}

}  // namespace

TempDir::TempDir(const std::string& parent) {
  parent_ = UniqueFd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent_) throw_errno("--dir " + parent, errno);
  for (int tries = 0; tries < 100 && !dir_; ++tries) {
    name_ = random_name();
    if (::mkdirat(parent_.get(), name_.c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;
      throw_errno("--dir " + parent, errno);
    }
    // Between mkdirat and here the name may have been swapped: no link is followed, and
    // anything but the empty 0700 directory of ours is refused.
    dir_ = UniqueFd(
        ::openat(parent_.get(), name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir_ || !freshly_made(dir_.get()))
      throw Error("--dir " + parent + ": the directory iobench made (" + name_ +
                  ") was replaced before it could be opened");
  }
  if (!dir_) throw_errno("--dir " + parent, EEXIST);
  path_ = parent + "/" + name_;
}

std::string TempDir::canonical_path() const {
  char target[PATH_MAX];
  const std::string link = "/proc/self/fd/" + std::to_string(dir_.get());
  const ssize_t n = ::readlink(link.c_str(), target, sizeof(target));
  return n > 0 && static_cast<std::size_t>(n) < sizeof(target) ? std::string(target, n) : path_;
}

TempDir::~TempDir() {
  if (keep_ || !dir_) return;
  // Only files iobench made live here (one level, no subdirectories): emptied through the
  // descriptor, whatever its name now leads to.
  if (DIR* d = ::fdopendir(::dup(dir_.get()))) {
    ::rewinddir(d);  // the dup shares freshly_made's offset, at the end
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") ::unlinkat(dir_.get(), n.c_str(), 0);
    }
    ::closedir(d);
  }
  // Removed by name only while the name is still this directory; renamed away, it stays
  // (empty) where it was moved.
  struct stat mine {
  }, named{};
  if (::fstat(dir_.get(), &mine) == 0 &&
      ::fstatat(parent_.get(), name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
      mine.st_dev == named.st_dev && mine.st_ino == named.st_ino)
    ::unlinkat(parent_.get(), name_.c_str(), AT_REMOVEDIR);
}

}  // namespace iobench
