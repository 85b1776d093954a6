// Shared by the strategy tests (strategies_test.cc, strategy_errors_test.cc): a private
// directory, the stream a strategy must write and a comparison that names the first wrong
// byte, the job it is given, and which strategies are tested (the registry's and
// strategies/template.cc) and which honour --direct.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "strategies/registry.h"
#include "strategies/strategy.h"
#include "strategies/support/line_format.h"

namespace iobench {

// Not in the registry; the strategy tests run it too, so that the starting point for new
// strategies stays correct.
extern const Strategy kTemplate;

inline void PrintTo(RunStatus s, std::ostream* os) {
  *os << (s == RunStatus::kOk ? "kOk" : s == RunStatus::kUnsupported ? "kUnsupported" : "kFailed");
}

inline void PrintTo(const Strategy* s, std::ostream* os) { *os << s->name; }

}  // namespace iobench

namespace iobench::testing {

/// A mkdtemp directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "iobench-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const char* name) const { return (path_ / name).string(); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline std::string expected_stream(std::uint64_t lines, std::size_t line_length = 0) {
  std::string s;
  s.reserve(expected_bytes(lines));
  char buf[kMaxLineBytes];
  for (std::uint64_t i = 0; i < lines; ++i) {
    if (line_length == 0) {
      s.append(buf, format_line(buf, i));
      continue;
    }
    // Spelled out here rather than taken from LineFormat: the test's own idea of a padded line.
    std::string line = "Line " + std::to_string(i);
    line.resize(line_length - 1, ' ');
    s += line + "\n";
  }
  return s;
}

inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Names the first difference instead of printing a megabyte.
inline ::testing::AssertionResult same_bytes(const std::string& have, const std::string& want) {
  if (have == want) return ::testing::AssertionSuccess();
  const auto diff =
      std::mismatch(have.begin(), have.begin() + std::min(have.size(), want.size()), want.begin());
  const auto at = static_cast<std::size_t>(diff.first - have.begin());
  const std::size_t from = at < 16 ? 0 : at - 16;
  return ::testing::AssertionFailure()
         << have.size() << " bytes, want " << want.size() << "; first difference at offset " << at
         << ": got \"" << have.substr(from, 32) << "\", want \"" << want.substr(from, 32) << "\"";
}

inline WriteJob make_job(const std::string& path, std::uint64_t lines, StrategyParams params = {}) {
  params.lines = lines;
  return WriteJob{path.c_str(), params, expected_bytes(params)};
}

/// Honour --direct (the rest refuse it before creating anything).
inline bool honours_direct(const Strategy* s) {
  for (const char* name :
       {"buffered", "io_uring", "io_uring-sqpoll", "single-write", "format-only"})
    if (s->name == name) return true;
  return false;
}

inline std::vector<const Strategy*> strategies_under_test() {
  std::vector<const Strategy*> all(all_strategies().begin(), all_strategies().end());
  all.push_back(&kTemplate);
  return all;
}

inline std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

}  // namespace iobench::testing
