#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "error.h"

namespace iobench {
namespace {

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

mode_t current_umask() {
  // umask(2) can only be read by setting it; iobench's parent creates no files on other
  // threads, so the moment with 0 is harmless.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
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

}  // namespace

void check_output_file(const std::string& flag, const std::string& path) {
  const std::string name = flag + " " + path;
  if (path.empty()) throw Error(flag + ": needs a file name");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw Error(name + ": is a directory");
  const std::string dir = directory_of(path);
  if (::stat(dir.c_str(), &st) != 0) throw_errno(name + ": " + dir, errno);
  if (!S_ISDIR(st.st_mode)) throw Error(name + ": " + dir + " is not a directory");
  // Named plainly, as --dir does; access() would say only EROFS.
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
    throw Error(name + ": " + dir + " is on a read-only filesystem");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw_errno(name + ": " + dir, errno);
}

void write_file_atomically(const std::string& path, const std::string& text,
                           const std::string& what) {
  // mkostemp opens with O_CREAT|O_EXCL under a random name: a symlink (or anything else)
  // planted at the name fails the open instead of being written through.
  std::string tmp = path + ".XXXXXX.tmp";
  const int fd = ::mkostemps(tmp.data(), 4, O_CLOEXEC);
  if (fd < 0) throw_errno(what + "cannot write " + path, errno, kExitRunFailed);
  // mkostemp makes the file 0600; an export is as readable as any file the user creates.
  int err = 0;
  if (::fchmod(fd, 0666 & ~current_umask()) != 0 || !write_all(fd, text)) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err == 0) return;
  (void)::unlink(tmp.c_str());
  throw_errno(what + "cannot write " + path, err, kExitRunFailed);
}

}  // namespace iobench
