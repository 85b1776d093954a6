// Ctrl-C under `iobench trace`, through the real binary, as a shell runs it: iobench leads a
// process group of its own (a foreground job), and a terminal's Ctrl-C is a SIGINT to that
// whole group. The first one is the traced program's to handle, and what its handler writes
// is counted; a second one kills the tree: under ptrace, which sees the program's signals
// stop it, and under the kernel clock, which sees them generated. And a program cannot trap
// iobench's ptrace tracer with ptrace.
#include <seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../run_process.h"
#include "../wait_for.h"
#include "bpf_test_util.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

using iobench::testing::slurp;
using iobench::testing::wait_until;

constexpr long kFlushLines = 100;  // what sigint_flush's handler writes

/// `iobench ARGS` started as a shell starts a foreground job: in a process group of its own.
class Job {
 public:
  Job(std::vector<std::string> args, const std::string& dir)
      : out_(dir + "/out"), err_(dir + "/err") {
    args.insert(args.begin(), IOBENCH_BIN);
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      const int out = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(out, 1);
      ::dup2(err, 2);
      ::close_range(3, ~0U, 0);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::setpgid(pid_, pid_);  // on both sides: the group exists whichever runs first
  }
  ~Job() {
    if (status_ != kRunning) return;
    ::kill(-pid_, SIGKILL);
    wait();
  }
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  pid_t pid() const { return pid_; }
  /// A Ctrl-C: SIGINT to the whole group, iobench and the traced program alike.
  void ctrl_c() const { ::kill(-pid_, SIGINT); }
  /// iobench's exit status (128 + N for a death by signal N); -1 when it hung (the group is
  /// then killed).
  int wait() {
    int st = 0;
    if (!wait_until([&] { return ::waitpid(pid_, &st, WNOHANG) == pid_; })) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, &st, 0);
      return status_ = -1;
    }
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return status_;
  }
  std::string out() const { return slurp(out_); }
  std::string err() const { return slurp(err_); }

 private:
  std::string out_, err_;
  static constexpr int kRunning = -2;
  pid_t pid_ = -1;
  int status_ = kRunning;
};

/// True while `pid` has a SIGINT pending, not yet taken by its handler (/proc's ShdPnd).
bool sigint_pending(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("ShdPnd:", 0) == 0)
      return (std::strtoull(line.c_str() + 7, nullptr, 16) & (1ULL << (SIGINT - 1))) != 0;
  }
  return false;
}

/// Each test once per backend that passes the first Ctrl-C on: GetParam() is --tracer's word.
class CtrlC : public TracerTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    TracerTest::SetUp();
    if (GetParam() == "bpf") SKIP_WITHOUT_BPF();
  }
  /// `iobench trace --tracer T [EXTRA] --format json -- sigint_flush FILE 100 MODE`, once the
  /// program waits for its SIGINT (its first line is written, and it sleeps).
  std::unique_ptr<Job> start(const std::string& mode, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"trace", "--tracer", GetParam(), "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    for (const std::string& a : {std::string("--"), std::string(PROGRAM_SIGINT_FLUSH), file(),
                                 std::to_string(kFlushLines), mode})
      args.push_back(a);
    auto job = std::make_unique<Job>(args, dir_.path());
    EXPECT_TRUE(wait_until([&] { return count_lines(file()) == 1 && program_sleeps(*job); }))
        << "the program never got ready: " << job->err();
    return job;
  }
  std::string file() const { return dir_.file("flushed"); }
  /// Once the program's handler has run and iobench has taken its own SIGINT (it could
  /// otherwise merge with a later one), tells a `count` program to end: a SIGINT passed on
  /// twice shows in its exit status.
  void flushed_then_done(const Job& job) const {
    EXPECT_TRUE(wait_until([&] { return count_lines(file()) >= 1 + kFlushLines; }))
        << "the program's handler never ran";
    EXPECT_TRUE(wait_until([&] { return !sigint_pending(job.pid()); }));
    std::ofstream(file() + ".done").close();
  }
  /// The traced program: iobench's only child.
  static pid_t program(const Job& job) {
    std::ifstream children("/proc/" + std::to_string(job.pid()) + "/task/" +
                           std::to_string(job.pid()) + "/children");
    pid_t child = 0;
    children >> child;
    return child;
  }
  /// The traced program sleeps, waiting for its SIGINT.
  static bool program_sleeps(const Job& job) {
    const pid_t child = program(job);
    return child > 0 && process_state(child) == 'S';
  }
  static std::uint64_t write_calls(const Job& job) {
    return nlohmann::json::parse(job.out()).at("write_calls").get<std::uint64_t>();
  }

  TempDir dir_;
};

TEST_P(CtrlC, SigintToIobenchAloneReachesTheProgramOnceAndItsWritesCount) {
  auto job = start("count", {"--count-only"});
  ::kill(job->pid(), SIGINT);  // `kill -INT <iobench>`: the program has none of its own
  flushed_then_done(*job);
  EXPECT_EQ(job->wait(), 1) << "the program's status: the SIGINTs it handled\n" << job->err();
  EXPECT_EQ(count_lines(file()), 1 + kFlushLines) << "its handler ran to the end";
  EXPECT_EQ(write_calls(*job), 1 + kFlushLines) << job->out();
  EXPECT_EQ(job->err(), "");
}

TEST_P(CtrlC, TerminalCtrlCReachesTheProgramOnceAndItsWritesCount) {
  // Timing mode: the calibrations before and after the program are iobench's own.
  auto job = start("count");
  job->ctrl_c();  // both get one: the program its own, iobench must add none
  flushed_then_done(*job);
  EXPECT_EQ(job->wait(), 1) << "the program's status: the SIGINTs it handled\n" << job->err();
  EXPECT_EQ(count_lines(file()), 1 + kFlushLines);
  EXPECT_EQ(write_calls(*job), 1 + kFlushLines) << job->out();
}

TEST_P(CtrlC, TheProgramsOwnSigintFirstThenIobenchsIsStillOneCtrlC) {
  // The order a Ctrl-C often lands in: the program takes its SIGINT (a delivery stop the
  // tracer injects) before iobench's handler runs. Same sender, so the same Ctrl-C.
  auto job = start("count", {"--count-only"});
  const pid_t prog = program(*job);
  ::kill(prog, SIGINT);
  ASSERT_TRUE(wait_until([&] { return count_lines(file()) == 1 + kFlushLines; }));
  ::kill(job->pid(), SIGINT);
  flushed_then_done(*job);
  EXPECT_EQ(job->wait(), 1) << "the program's status: the SIGINTs it handled\n" << job->err();
  EXPECT_EQ(write_calls(*job), 1 + kFlushLines) << job->out();
}

TEST_P(CtrlC, AProgramThatDiesOfItGives130AndTheReport) {
  auto job = start("die", {"--count-only"});
  job->ctrl_c();
  EXPECT_EQ(job->wait(), 128 + SIGINT) << job->err();
  const auto doc = nlohmann::json::parse(job->out());
  EXPECT_EQ(doc.at("write_calls"), 1 + kFlushLines) << job->out();
  EXPECT_EQ(doc.at("signal"), SIGINT) << job->out();
}

TEST_P(CtrlC, ASecondCtrlCKillsTheTreeAndLeavesNothing) {
  auto job = start("hang", {"--count-only"});  // a sleeping child beside it
  job->ctrl_c();
  ASSERT_TRUE(wait_until([&] { return count_lines(file()) == 1 + kFlushLines; }))
      << "the first Ctrl-C never reached the program's handler";
  // The first one taken by iobench's handler too, or the second would merge into it.
  ASSERT_TRUE(wait_until([&] { return !sigint_pending(job->pid()); }));
  job->ctrl_c();
  EXPECT_EQ(job->wait(), 128 + SIGINT);
  EXPECT_EQ(job->err(), "iobench: error: interrupted by SIGINT\n");
  // TearDown: no process of the tree is left, stopped, traced or running.
}

TEST_P(CtrlC, AProgramWhoseMainThreadExitedStillGetsItsCtrlC) {
  // The handler's PTRACE_INTERRUPT names the main thread, a zombie here: another thread
  // must stop for the SIGINT to be passed on, or the run hangs.
  const std::string out = dir_.file("zombie");
  Job job({"trace", "--tracer", GetParam(), "--count-only", "--timeout", "30", "-o",
           dir_.file("report"), "--", PROGRAM_ZOMBIE_LEADER, out},
          dir_.path());
  ASSERT_TRUE(wait_until([&] {
    const pid_t child = program(job);
    return count_lines(out) == 1 && child > 0 && process_state(child) == 'Z';
  })) << "the program never got ready: "
      << job.err();
  ::kill(job.pid(), SIGINT);  // iobench alone: only the tracer can pass it on
  EXPECT_EQ(job.wait(), 0) << "-1 or 124: a hang\n" << job.err();
  EXPECT_EQ(count_lines(out), 2u) << "the handler ran once";
}

INSTANTIATE_TEST_SUITE_P(Backends, CtrlC, ::testing::Values("ptrace", "bpf"),
                         [](const auto& info) { return info.param; });

// ---- a program cannot trap iobench's ptrace tracer (the kernel clock stops no one) ----

using PtraceOfIobench = TracerTest;

/// `ptrace_parent [--int80]` traced by iobench in `mode`: each attempt must fail with EPERM.
void expect_ptrace_refused(const std::vector<std::string>& program) {
  // As root, CAP_SYS_PTRACE would let it attach; the filter answers EPERM first.
  // --timeout: a broken guard must fail the test, not hang it.
  // It also tries iobench's other threads: --timeout's watchdog is one.
  TempDir dir;
  for (const char* mode : {"--count-only", "--trace-all"}) {
    std::vector<std::string> args{"trace", "--tracer", "ptrace",           mode, "--timeout",
                                  "30",    "-o",       dir.file("report"), "--"};
    args.insert(args.end(), program.begin(), program.end());
    const auto r = testing::iobench(args);
    EXPECT_EQ(r.status, 0) << mode << ": 1 another errno, 2 it attached, 124 a hang\n" << r.err;
    EXPECT_EQ(r.err, "") << mode;
    EXPECT_GE(std::atoi(r.out.c_str()), 1) << mode << ": iobench's threads it tried: " << r.out;
  }
}

/// int $0x80 works here (IA32 emulation): int80_writer's i386 writes succeed untraced.
bool kernel_runs_i386() {
  TempDir dir;
  return testing::run_process({PROGRAM_INT80_WRITER, dir.file("out"), "1"}).status == 0;
}

TEST_F(PtraceOfIobench, AProgramThatPtracesIobenchGetsEpermAndTheRunEnds) {
  expect_ptrace_refused({PROGRAM_PTRACE_PARENT});
}

TEST_F(PtraceOfIobench, AnI386PtraceOfIobenchGetsEpermToo) {
  // i386 numbers ptrace 26: the filter stops its attach to a watchdog or spinner thread as
  // it does the native one, and the tracer must refuse it as well.
  if (!kernel_runs_i386()) GTEST_SKIP() << "the kernel runs no i386 code here";
  expect_ptrace_refused({PROGRAM_PTRACE_PARENT, "--int80"});
}

/// `iobench ARGS` where no seccomp filter can be loaded (EPERM, as some container policies
/// answer): iobench's filter is refused and its tracer stops on every syscall. Returns the
/// exit status; stderr into `err`.
int iobench_without_filters(const std::vector<std::string>& args, const std::string& err) {
  std::vector<std::string> all{IOBENCH_BIN};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(all.size() + 1);
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    scmp_filter_ctx ctx = ::seccomp_init(SCMP_ACT_ALLOW);
    // An i386 call (ptrace_parent --int80) is of no ABI this filter knows: let it through.
    if (ctx == nullptr || ::seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW) ||
        ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 0) ||
        ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prctl), 1,
                           SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP)) ||
        ::seccomp_load(ctx))
      ::_exit(99);
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    ::close_range(3, ~0U, 0);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

TEST_F(PtraceOfIobench, WithoutTheFilterTheTracerRefusesThePtraceItself) {
  const bool i386 = kernel_runs_i386();
  for (const char* abi : {"", "--int80"}) {
    if (*abi != '\0' && !i386) continue;  // no IA32 emulation: the native case only
    TempDir dir;
    const std::string err = dir.file("err");
    std::vector<std::string> args{
        "trace", "--tracer", "ptrace",           "--count-only", "--timeout",
        "30",    "-o",       dir.file("report"), "--",           PROGRAM_PTRACE_PARENT};
    if (*abi != '\0') args.emplace_back(abi);
    const int status = iobench_without_filters(args, err);
    EXPECT_EQ(status, 0) << abi << ": 1 another errno, 2 it attached, 124 a hang, 99 no policy\n"
                         << slurp(err);
    EXPECT_EQ(slurp(err),
              "iobench: warning: seccomp filter refused; traced every syscall (slow)\n");
  }
}

// A debugger under iobench's ptrace tracer fails as it does under strace: its child's
// PTRACE_TRACEME and its PTRACE_SEIZE of a child are refused (EPERM: each process is traced by
// iobench already, and a process has one tracer), and the run says so, once per request.
TEST_F(PtraceOfIobench, ADebuggersTracemeAndSeizeAreRefusedAndTheRunSaysWhy) {
  TempDir dir;
  const std::string program = PROGRAM_PTRACE_SELF;
  const std::string why =
      "traced by iobench already, and a process has one tracer, as under strace (a debugger "
      "works untraced, or under --tracer bpf)\n";
  std::string warnings;
  for (const char* refused : {": PTRACE_TRACEME refused (EPERM): it is ",
                              ": PTRACE_SEIZE of a process of the command refused (EPERM): that "
                              "process is "})
    warnings.append("iobench: warning: ").append(program).append(refused).append(why);
  for (const char* mode : {"--count-only", "--trace-all"}) {
    const auto r = testing::iobench({"trace", "--tracer", "ptrace", mode, "--timeout", "30", "-o",
                                     dir.file("report"), "--", program});
    EXPECT_EQ(r.status, 0) << mode << r.err;
    EXPECT_EQ(r.out, "traceme EPERM\nseize EPERM\n") << mode;
    EXPECT_EQ(r.err, warnings) << mode;
  }
  // The kernel clock traces no one: there both work, as untraced.
  EXPECT_EQ(testing::run_process({program}).out, "traceme ok\nseize ok\n");
  SKIP_WITHOUT_BPF();
  const auto bpf = testing::iobench(
      {"trace", "--tracer", "bpf", "--count-only", "-o", dir.file("report"), "--", program});
  EXPECT_EQ(bpf.status, 0) << bpf.err;
  EXPECT_EQ(bpf.out, "traceme ok\nseize ok\n");
  EXPECT_EQ(bpf.err, "");
}

}  // namespace
}  // namespace iobench::tracer_test
