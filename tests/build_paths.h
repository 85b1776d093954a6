// The files a test runs or reads, by their path from the top of the build tree, found at run
// time from where the test binary is. No test object holds the clone's absolute location, so
// a compiler cache serves one clone's test objects to any other. Included into every test
// (-include, cmake/iobench_test_paths.cmake), which names its files IOBENCH_BIN, WRITER_BIN...
#pragma once

#include <unistd.h>

#include <climits>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>

namespace iobench::testing {

/// `relative` (from the build tree's top) as an absolute path, kept for the program's life.
inline const char* in_build(const char* relative) {
  static std::mutex mutex;
  static std::deque<std::string> kept;  // a deque never moves what it holds
  static const std::string top = [] {
    char self[PATH_MAX] = {};
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
    std::string dir = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string(".");
    dir = dir.substr(0, dir.rfind('/'));
    return dir + "/" + IOBENCH_BUILD_TOP;  // the test binary's directory, then up to the top
  }();
  const std::lock_guard<std::mutex> lock(mutex);
  // Normal, as the kernel names it (no "dir/../"): tests compare it with what programs print.
  return kept.emplace_back(std::filesystem::path(top + "/" + relative).lexically_normal().string())
      .c_str();
}

}  // namespace iobench::testing
