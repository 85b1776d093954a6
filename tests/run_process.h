// Runs a real program and captures what it prints: the tests drive iobench the way a user
// or a CI job does.
#pragma once

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace iobench::testing {

struct ProcessOutput {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline ProcessOutput run_process(const std::vector<std::string>& args) {
  char out_tmpl[] = "/tmp/iobench-test-out.XXXXXX";
  char err_tmpl[] = "/tmp/iobench-test-err.XXXXXX";
  int out_fd = ::mkstemp(out_tmpl);
  int err_fd = ::mkstemp(err_tmpl);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
    // Start from 0, 1, 2 only, as a shell would: whatever the test runner holds open must
    // not be mistaken for a leak of iobench's.
    ::close_range(3, ~0U, 0);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  ProcessOutput r;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.out = slurp(out_tmpl);
  r.err = slurp(err_tmpl);
  ::close(out_fd);
  ::close(err_fd);
  ::unlink(out_tmpl);
  ::unlink(err_tmpl);
  return r;
}

#ifdef IOBENCH_BIN
/// The iobench under test, run with `args` as a user would run it.
inline ProcessOutput iobench(std::vector<std::string> args) {
  args.insert(args.begin(), IOBENCH_BIN);
  return run_process(args);
}
#endif

/// A private scratch directory for one test, removed with its contents.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/iobench-test.XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~ScratchDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  /// Number of entries in the directory (recursively), to prove nothing was left behind.
  int entries() const {
    std::string cmd = "find '" + path_ + "' -mindepth 1 | wc -l";
    FILE* p = ::popen(cmd.c_str(), "r");
    int n = -1;
    if (p) {
      if (std::fscanf(p, "%d", &n) != 1) n = -1;
      ::pclose(p);
    }
    return n;
  }

 private:
  std::string path_;
};

/// A small tmpfs of our own, unmounted at the end (root only; mounted() says if it worked).
class Tmpfs {
 public:
  explicit Tmpfs(const std::string& options) {
    char tmpl[] = "/tmp/iobench-tmpfs.XXXXXX";
    path_ = ::mkdtemp(tmpl);
    mounted_ = ::mount("tmpfs", path_.c_str(), "tmpfs", 0, options.c_str()) == 0;
  }
  ~Tmpfs() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
    ::rmdir(path_.c_str());
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool mounted_ = false;
};

}  // namespace iobench::testing
