// iobench-bpf-clock: the kernel clock (src/tracer/bpf_clock.h) from a shell, for the
// measurement scripts (tools/bpf_accuracy.sh) and the cost of its programs.
//   iobench-bpf-clock accuracy PATH N PAIRS      one-line writes to PATH: kernel ns/write of a
//                                                traced child (all, and on CPU) vs CPU
//                                                ns/write self-timed untraced here, and the
//                                                traced child's own, alternated, one line each
//   iobench-bpf-clock bias [STRETCHES]           the clock's bias and cost on getppid
//   iobench-bpf-clock run PROGRAM [ARGS...]      per-syscall totals of PROGRAM's tree
//   iobench-bpf-clock cost PATH N RUNS           what the programs cost: RUNS traced children
//                                                of N one-line writes to PATH, each program's
//                                                runs and ns per run by the kernel's own
//                                                statistics (BPF_ENABLE_STATS), and all of
//                                                them per traced write
#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <bpf/bpf.h>

#include "base/monotonic_clock.h"
#include "base/unique_fd.h"
#include "tracer/bpf_backend.h"
#include "tracer/bpf_clock.h"
#include "tracer/syscalls.h"

namespace {

using iobench::tracing::BpfClock;
using iobench::tracing::BpfClockRun;

constexpr char kLine[] = "line 000000\n";
constexpr int kLineBytes = 12;

/// n one-line write(2) calls to path; CPU ns per write (the file is truncated first).
double write_lines(const std::string& path, int n) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  const std::int64_t start = iobench::thread_cpu_ns();
  for (int i = 0; i < n; ++i)
    if (::write(fd, kLine, kLineBytes) != kLineBytes) break;
  const std::int64_t end = iobench::thread_cpu_ns();
  ::close(fd);
  return static_cast<double>(end - start) / n;
}

/// write_lines in a forked child, as the traced side runs: a new process on both sides.
double untraced_child(const std::string& path, int n) {
  iobench::SharedMapping<double> ns;
  const pid_t pid = ::fork();
  if (pid == 0) {
    *ns.get() = write_lines(path, n);
    ::_exit(0);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  return *ns.get();
}

BpfClock write_clock() {
  static const iobench::tracing::SyscallTable table;
  auto config = iobench::tracing::write_family_config(table);
  // IOBENCH_BPF_NO_FILES=1: no per-file attribution, to see what naming the file costs.
  if (std::getenv("IOBENCH_BPF_NO_FILES") != nullptr)
    for (auto& spec : config.syscalls) spec.fd_arg = -1;
  return BpfClock(std::move(config));
}

double kernel_ns_per_write(const BpfClockRun& run) {
  for (const auto& s : run.syscalls)
    if (s.nr == SYS_write && !s.compat && s.timed > 0)
      return static_cast<double>(s.total_ns) / static_cast<double>(s.timed);
  return -1;
}

/// The same, on CPU only: a write that waited (journal, dirty throttling) waited in both.
double on_cpu_ns_per_write(const BpfClockRun& run) {
  for (const auto& s : run.syscalls)
    if (s.nr == SYS_write && !s.compat && s.timed > 0)
      return static_cast<double>(s.total_ns - s.blocked_ns) / static_cast<double>(s.timed);
  return -1;
}

int accuracy(const std::string& path, int n, int pairs) {
  // One CPU for both sides (the traced child inherits it): two CPUs of a VM can run at two
  // speeds at once (a sibling busy on the host), which no comparison across them survives.
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(::sched_getcpu(), &one);
  if (::sched_setaffinity(0, sizeof(one), &one) != 0) std::perror("sched_setaffinity");
  BpfClock clock = write_clock();
  const iobench::tracing::BpfBias bias = iobench::bias_beside_run(clock);  // as iobench does
  std::printf("bias %.0f ± %.0f ns (getppid: kernel %.0f, untraced %.0f; %d stretches), "
              "cost %.0f ns/call, write bias %.0f ± %.0f ns (%d stretches)\n",
              bias.bias_ns, bias.bias_spread_ns, bias.kernel_ns, bias.untraced_ns,
              bias.stretches, bias.overhead_ns, bias.write_bias_ns, bias.write_bias_spread_ns,
              bias.write_stretches);
  // Short stretches, the traced one between two untraced ones, each in a new child as a
  // traced run is: this VM's speed flips between two levels on 10 ms-1 s timescales, and a
  // triple whose untraced stretches disagree straddled a flip (the script leaves it out).
  for (int i = 0; i < pairs; ++i) {
    const double before = untraced_child(path, n);
    iobench::SharedMapping<double> traced_self;  // the traced child's own CPU ns/write
    const BpfClockRun run = clock.run([&] {
      *traced_self.get() = write_lines(path, n);
      return *traced_self.get() > 0 ? 0 : 1;
    });
    const double after = untraced_child(path, n);
    const double untraced = (before + after) / 2;
    const double kernel = kernel_ns_per_write(run), on_cpu = on_cpu_ns_per_write(run);
    // Ratios on CPU: the untraced side is CPU time, which leaves a wait out.
    // corrected: as iobench reports a write (the write family's bias taken out).
    std::printf("%d bpf %.0f on_cpu %.0f untraced %.0f ratio %.3f corrected %.3f spread %.3f"
                " traced_self %.0f\n",
                i, kernel, on_cpu, untraced, on_cpu / untraced,
                (on_cpu - bias.write_bias_ns) / untraced, std::abs(after - before) / untraced,
                *traced_self.get());
    std::fflush(stdout);
  }
  return 0;
}

int bias(int stretches) {
  const auto b = iobench::tracing::measure_bpf_bias(stretches, 20000);
  std::printf(
      "getppid untraced %.0f ns, kernel interval %.0f ns, bias %.0f ± %.0f ns, "
      "cost to the caller %.0f ± %.0f ns (%d stretches)\n",
      b.untraced_ns, b.kernel_ns, b.bias_ns, b.bias_spread_ns, b.overhead_ns, b.overhead_spread_ns,
      b.stretches);
  return 0;
}

/// Each program's ns per run, and all of them per traced write, over `runs` children of `n`
/// writes (the kernel's statistics are on while this runs: every program of the machine pays
/// two clock reads a run meanwhile). The sys_enter and sys_exit programs run for every task's
/// calls while attached; on a quiet machine nearly all of them are the writer's.
int cost(const std::string& path, int n, int runs) {
  const iobench::UniqueFd stats(bpf_enable_stats(BPF_STATS_RUN_TIME));
  if (!stats) {
    std::perror("iobench-bpf-clock: BPF_ENABLE_STATS");
    return 1;
  }
  BpfClock clock = write_clock();
  std::uint64_t writes = 0;
  for (int i = 0; i < runs; ++i) {
    const BpfClockRun run = clock.run([&] { return write_lines(path, n) > 0 ? 0 : 1; });
    for (const auto& s : run.syscalls)
      if (s.nr == SYS_write && !s.compat) writes += s.calls;
  }
  std::uint64_t total_ns = 0;
  for (const auto& p : clock.program_costs()) {
    total_ns += p.run_ns;
    std::printf("%-18s runs %10llu  ns/run %6.0f\n", p.name.c_str(),
                static_cast<unsigned long long>(p.runs),
                p.runs ? static_cast<double>(p.run_ns) / static_cast<double>(p.runs) : 0.0);
  }
  std::printf("writes %llu  programs' ns per write %.0f\n", static_cast<unsigned long long>(writes),
              writes ? static_cast<double>(total_ns) / static_cast<double>(writes) : 0.0);
  return 0;
}

int run(std::vector<std::string> args) {
  static const iobench::tracing::SyscallTable table;
  BpfClock clock(iobench::tracing::write_family_config(table, true));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const BpfClockRun r = clock.run([&] {
    ::execvp(argv[0], argv.data());
    return 127;
  });
  std::printf("load %.1f ms, attach %.1f ms, detach %.1f ms, read %.1f ms\n", r.timings.load_ms,
              r.timings.attach_ms, r.timings.detach_ms, r.timings.read_ms);
  for (const auto& s : r.syscalls)
    std::printf("%4d%s calls %llu errors %llu bytes %llu blocked_ns %lld ns/call %.0f\n", s.nr,
                s.compat ? " (i386)" : "", static_cast<unsigned long long>(s.calls),
                static_cast<unsigned long long>(s.errors), static_cast<unsigned long long>(s.bytes),
                static_cast<long long>(s.blocked_ns),
                s.timed ? static_cast<double>(s.total_ns) / static_cast<double>(s.timed) : 0.0);
  for (const auto& f : r.files)
    std::printf("pid %d fd %d ino %lu mode %o calls %llu bytes %llu\n", f.tgid, f.fd,
                static_cast<unsigned long>(f.ino), f.mode, static_cast<unsigned long long>(f.calls),
                static_cast<unsigned long long>(f.bytes));
  return WIFEXITED(r.status) ? WEXITSTATUS(r.status) : 128 + WTERMSIG(r.status);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (const std::string why = iobench::tracing::bpf_clock_unavailable_reason(); !why.empty()) {
      std::fprintf(stderr, "iobench-bpf-clock: %s\n", why.c_str());
      return 77;
    }
    if (args.size() == 4 && args[0] == "accuracy")
      return accuracy(args[1], std::atoi(args[2].c_str()), std::atoi(args[3].c_str()));
    if (!args.empty() && args[0] == "bias")
      return bias(args.size() > 1 ? std::atoi(args[1].c_str()) : 10);
    if (args.size() > 1 && args[0] == "run") return run({args.begin() + 1, args.end()});
    if (args.size() == 4 && args[0] == "cost")
      return cost(args[1], std::atoi(args[2].c_str()), std::atoi(args[3].c_str()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iobench-bpf-clock: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: iobench-bpf-clock accuracy PATH N PAIRS | bias [N] | run PROGRAM... | "
               "cost PATH N RUNS\n");
  return 2;
}
