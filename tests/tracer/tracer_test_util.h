// What the tracer's tests share: a scratch directory, a program to exec in the traced
// child, look-ups into a TraceResult, and the check that nothing traced is left behind.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "strategies/strategy.h"
#include "tracer/tracer.h"

namespace iobench::tracer_test {

inline constexpr std::uint64_t kLineBytes = 12;  // programs/program_util.h

/// A private directory under /tmp (ext4 here), removed with its files. path() is the
/// canonical path, as /proc/PID/fd shows files in it.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/iobench-tracer-test.XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) std::abort();
    path_ = std::filesystem::canonical(tmpl).string();
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// A program for the traced child to exec. argv is built before fork; the child only
/// records its pid (in shared memory: no write to count) and calls execv.
class Command {
 public:
  explicit Command(std::vector<std::string> args) : args_(std::move(args)) {
    for (auto& a : args_) argv_.push_back(a.data());
    argv_.push_back(nullptr);
  }
  int operator()() const {
    pid_->store(::getpid());
    ::execv(argv_[0], argv_.data());
    return 127;
  }
  std::function<int()> fn() const {
    return [this] { return (*this)(); };
  }
  /// The traced child's pid (its tgid), once it has run.
  pid_t pid() const { return pid_->load(); }
  const std::string& program() const { return args_[0]; }

 private:
  std::vector<std::string> args_;
  std::vector<char*> argv_;
  SharedMapping<std::atomic<pid_t>> pid_;
};

/// The name the kernel gives a process that execs `path` (comm: its file name, cut to 15
/// bytes), as ps shows it.
inline std::string comm_of(const std::string& path) {
  return path.substr(path.rfind('/') + 1).substr(0, 15);
}

/// A strategy's outcome as the traced child's exit status, so that "failed" can never pass for
/// "unsupported": 0 ok, 1 failed, kUnsupportedExit unsupported.
/// One untraced one-line write(2) to `path`, n times, in CPU ns per write: the truth a
/// corrected time is held to (what (unbuffered - format-only) / N measures in the demo).
/// CPU time, not wall time: on a shared machine a wall clock also counts the time other
/// processes ran, which the tracer rightly leaves out (run_delay.h). A page-cache write does
/// not sleep, so its CPU time is its cost. The file is removed after.
inline double untraced_write_ns(const std::string& path, int n) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const char line[] = "line 000000\n";
  timespec t0{}, t1{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  for (int i = 0; i < n; ++i) {
    if (::write(fd, line, kLineBytes) != static_cast<ssize_t>(kLineBytes)) break;
  }
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  ::close(fd);
  ::unlink(path.c_str());
  return (static_cast<double>(t1.tv_sec - t0.tv_sec) * 1e9 +
          static_cast<double>(t1.tv_nsec - t0.tv_nsec)) /
         n;
}

inline constexpr int kUnsupportedExit = 2;
inline int exit_status_of(const StrategyOutcome& out) noexcept {
  if (out.status == RunStatus::kOk) return 0;
  return out.status == RunStatus::kUnsupported ? kUnsupportedExit : 1;
}

inline std::uint64_t calls(const std::map<std::string, SyscallStats>& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? 0 : it->second.calls;
}

inline const FileStats* find_file(const TraceResult& r, const std::string& path) {
  for (const auto& f : r.files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

inline const ProcessStats* find_process(const TraceResult& r, int pid) {
  for (const auto& p : r.processes) {
    if (p.pid == pid) return &p;
  }
  return nullptr;
}

/// Write-family calls the result attributes to `path` (0 when it is not there).
inline std::uint64_t file_calls(const TraceResult& r, const std::string& path) {
  const FileStats* f = find_file(r, path);
  return f == nullptr ? 0 : f->calls();
}

inline std::uint64_t count_lines(const std::string& path, const std::string& prefix = "") {
  std::ifstream in(path);
  std::uint64_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

struct ProcEntry {
  int pid = 0, ppid = 0;
  char state = '?';
  int tracer = 0;
};

/// The state letter /proc shows for `pid` (R, S, t, Z...), '?' when it is gone.
inline char process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string s;
  std::getline(stat, s);
  const auto close = s.rfind(')');  // comm may hold spaces and parentheses
  return close == std::string::npos || close + 2 >= s.size() ? '?' : s[close + 2];
}

inline std::vector<ProcEntry> all_processes() {
  std::vector<ProcEntry> out;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    const int pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string s;
    std::getline(stat, s);
    const auto close = s.rfind(')');  // comm may hold spaces and parentheses
    if (close == std::string::npos || close + 4 > s.size()) continue;
    ProcEntry p;
    p.pid = pid;
    p.state = s[close + 2];
    p.ppid = std::atoi(s.c_str() + close + 4);
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("TracerPid:", 0) == 0) p.tracer = std::atoi(line.c_str() + 10);
    }
    out.push_back(p);
  }
  ::closedir(d);
  return out;
}

/// Descendants of this process and processes it traces, described; empty when none.
/// The test process is a child subreaper, so orphaned grandchildren stay descendants.
inline std::string leftovers() {
  const auto procs = all_processes();
  std::map<int, int> parent;
  for (const auto& p : procs) parent[p.pid] = p.ppid;
  const int self = ::getpid();
  std::string out;
  for (const auto& p : procs) {
    bool descendant = false;
    for (int q = p.ppid, hops = 0; q > 1 && hops < 64; q = parent[q], ++hops) {
      if (q == self) descendant = true;
    }
    if (descendant || p.tracer == self) {
      out += "pid " + std::to_string(p.pid) + " state " + p.state + " ppid " +
             std::to_string(p.ppid) + " tracer " + std::to_string(p.tracer) + "; ";
    }
  }
  return out;
}

/// Every tracer test ends with nothing stopped, traced or left running.
class TracerTest : public ::testing::Test {
 protected:
  void SetUp() override { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }
  void TearDown() override { EXPECT_EQ(leftovers(), "") << "processes left behind"; }
};

}  // namespace iobench::tracer_test
