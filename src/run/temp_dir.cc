#include "run/temp_dir.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "base/error.h"

namespace iobench {

TempDir::TempDir(const std::string& parent) {
  std::string tmpl = parent + "/iobench.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) throw_errno("--dir " + parent, errno);
  path_ = buf.data();
}

TempDir::~TempDir() {
  if (keep_ || path_.empty()) return;
  // Only files iobench made live here (one level, no subdirectories).
  if (DIR* d = ::opendir(path_.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") ::unlinkat(::dirfd(d), name.c_str(), 0);
    }
    ::closedir(d);
  }
  ::rmdir(path_.c_str());
}

}  // namespace iobench
