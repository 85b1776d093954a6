#pragma once

#include <string>

#include "base/unique_fd.h"

namespace iobench {

/// A private directory (mode 0700) made in `parent`, held open from the moment it is made,
/// and emptied and removed through that descriptor on destruction unless keep() was called.
/// Every file in it is made, read and removed relative to fd(): `parent` may belong to
/// another user, who can rename the directory away and plant a link under its name, so no
/// path through that name is ever followed again.
class TempDir {
 public:
  /// Throws Error when parent is not a usable directory.
  explicit TempDir(const std::string& parent);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// Where it was made: for messages and --keep, never to reach a file.
  const std::string& path() const noexcept { return path_; }
  /// The directory itself.
  int fd() const noexcept { return dir_.get(); }
  /// Its path as the kernel names it now (symlinks resolved, /proc/self/fd's link): what
  /// the tracer shows for the files in it.
  std::string canonical_path() const;
  void keep() noexcept { keep_ = true; }

 private:
  std::string path_, name_;
  UniqueFd parent_, dir_;
  bool keep_ = false;
};

}  // namespace iobench
