// Shared by the command-line surface tests: iobench and the argv printer as a user runs them.
#pragma once

#include <sys/stat.h>

#include <string>
#include <vector>

#include "run_process.h"

namespace iobench::testing {

inline void write_text(const std::string& path, const std::string& text, mode_t mode = 0644) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return;
  (void)!::write(fd, text.data(), text.size());
  ::fchmod(fd, mode);
  ::close(fd);
}

inline bool is_regular(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

inline bool is_symlink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

inline bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace iobench::testing
