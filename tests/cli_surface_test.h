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

/// The lines of err that are iobench errors.
inline std::vector<std::string> error_lines(const std::string& err) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin < err.size()) {
    const std::size_t end = err.find('\n', begin);
    const std::string line = err.substr(begin, end - begin);
    if (line.starts_with("iobench: error:")) out.push_back(line);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return out;
}

}  // namespace iobench::testing
