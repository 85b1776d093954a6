#pragma once

#include <string>

namespace iobench {

/// A private directory from mkdtemp (mode 0700), removed with its files on destruction
/// unless keep() was called.
class TempDir {
 public:
  /// Throws Error when parent is not a usable directory.
  explicit TempDir(const std::string& parent);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const noexcept { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  void keep() noexcept { keep_ = true; }

 private:
  std::string path_;
  bool keep_ = false;
};

}  // namespace iobench
