// --timeout under the ptrace tracer when the command stops iobench itself (SIGSTOP to its
// parent): every thread of iobench stops, so no thread of it can act at the deadline. The
// watchdog's own process (tracer/watchdog.h) still kills the traced tree in time; iobench,
// once continued, reports the timeout (124) and leaves nothing running.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../run_process.h"
#include "../wait_for.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

using iobench::testing::slurp;
using iobench::testing::wait_until;

/// The /proc/PID/stat fields after the command name: "S 1 2 3 ..." ("" once it is reaped).
std::string stat_after_name(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  const std::size_t close = line.rfind(") ");
  return close == std::string::npos ? "" : line.substr(close + 2);
}

/// Its state letter (R, S, T, Z...), or '?' once it is reaped.
char state_of(pid_t pid) {
  const std::string rest = stat_after_name(pid);
  return rest.empty() ? '?' : rest[0];
}

/// Every process whose process group is `pgid`.
std::vector<pid_t> group_members(pid_t pgid) {
  std::vector<pid_t> out;
  DIR* proc = ::opendir("/proc");
  while (const dirent* e = proc ? ::readdir(proc) : nullptr) {
    const pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::istringstream fields(stat_after_name(pid));
    char state = 0;
    pid_t ppid = 0, group = 0;
    if (fields >> state >> ppid >> group && group == pgid) out.push_back(pid);
  }
  if (proc) ::closedir(proc);
  return out;
}

TEST(Timeout, ACommandThatStopsIobenchIsStillKilledAtTheDeadline) {
  TempDir dir;
  const std::string err = dir.file("err");
  std::vector<std::string> args{
      IOBENCH_BIN, "trace", "--tracer",         "ptrace", "--count-only",     "--timeout",
      "2",         "-o",    dir.file("report"), "--",     PROGRAM_STOP_PARENT};
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // In a process group of its own, as a shell's job: what is left of it can be found after.
  const pid_t iobench = ::fork();
  if (iobench == 0) {
    ::setpgid(0, 0);
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    ::close_range(3, ~0U, 0);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(iobench, iobench);
  // Whatever fails below, nothing of it is left stopped or running.
  struct KillGroup {
    pid_t pgid;
    ~KillGroup() {
      if (::kill(-pgid, SIGKILL) == 0) ::waitpid(pgid, nullptr, 0);
    }
  } const guard{iobench};
  ASSERT_TRUE(wait_until([&] { return state_of(iobench) == 'T'; })) << "iobench never stopped";
  pid_t program = 0;
  const std::string id = std::to_string(iobench);
  std::ifstream("/proc/" + id + "/task/" + id + "/children") >> program;
  ASSERT_GT(program, 0) << "no traced program";
  // It ends (a zombie: only iobench, stopped, may reap it) while iobench is still stopped.
  // The bound is for a watchdog that never acts (kEventBound), not a time the test measures.
  const auto ended = [&] { return state_of(program) == 'Z' || state_of(program) == '?'; };
  EXPECT_TRUE(wait_until(ended)) << "the program still runs (state " << state_of(program)
                                 << ") long after a 2 s timeout, iobench stopped";
  EXPECT_EQ(state_of(iobench), 'T');

  ::kill(iobench, SIGCONT);
  int st = 0;
  ASSERT_TRUE(wait_until([&] { return ::waitpid(iobench, &st, WNOHANG) == iobench; }));
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 124) << st << slurp(err);
  EXPECT_EQ(slurp(err),
            "iobench: error: trace: timed out after 2s; killed the command and every process it "
            "started\n");
  EXPECT_EQ(group_members(iobench), std::vector<pid_t>{}) << "left running";
}

}  // namespace
}  // namespace iobench::tracer_test
