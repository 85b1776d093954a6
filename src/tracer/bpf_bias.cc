// The kernel clock's bias and cost, measured on a null syscall and a small write in a child
// per stretch, as a run's calls are made: each traced stretch between two untraced ones, and a
// stretch whose two untraced sides disagree (the host's speed changed inside it: this VM's flips
// between two levels on 10 ms-1 s timescales) left out of the bias.
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <vector>

#include "base/capabilities.h"
#include "base/error.h"
#include "base/monotonic_clock.h"
#include "base/unique_fd.h"
#include "tracer/bpf/clock_abi.h"
#include "tracer/bpf_clock.h"
#include "tracer/bpf_loader.h"

namespace iobench::tracing {

static_assert(kBiasCall == SYS_getppid);

namespace {

/// CPU ns per getppid over `calls` calls, timed from here. CPU time: on a busy machine a
/// wall clock would also count the time others ran, which the kernel clock leaves out.
double time_getppid(int calls) {
  const std::int64_t start = thread_cpu_ns();
  for (int i = 0; i < calls; ++i) (void)::syscall(SYS_getppid);
  return static_cast<double>(thread_cpu_ns() - start) / calls;
}

/// CPU ns per 1-byte write to `fd` (/dev/null): a write-family call, which the programs
/// also name the file of and keep a histogram for, so it costs more than getppid.
double time_write(int fd, int calls) {
  const char byte = 0;
  const std::int64_t start = thread_cpu_ns();
  for (int i = 0; i < calls; ++i) (void)::syscall(SYS_write, fd, &byte, 1);
  return static_cast<double>(thread_cpu_ns() - start) / calls;
}

struct Spread {
  double median = 0, half_iqr = 0;
};

/// Untraced stretches either side of a traced one agree: within 5% of each other.
bool agree(double before, double after) {
  return std::abs(after - before) <= 0.05 * (after + before) / 2;
}

Spread spread_of(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) {
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
  };
  return {.median = at(0.5), .half_iqr = (at(0.75) - at(0.25)) / 2};
}

/// One stretch's self-timed CPU ns per call, from the child that ran it (a shared page).
struct StretchTimes {
  std::atomic<int>
      phase;  // a futex word. 0 start; 1 untraced done; 2 go traced; 3 traced done; 4 go on
  double u, uw, t, tw, uw_after, u_after;
};

/// One stretch's figures for one call (getppid, or the write to /dev/null), per call.
struct Figures {
  double kernel = 0, untraced = 0, traced = 0, own = 0;
  bool agreed = false;  // its untraced sides agreed: the host ran at one speed throughout
};

/// The medians and spreads of one call's figures over the stretches whose untraced sides
/// agreed, or over all of them when none did: every figure from the same stretches.
struct Summary {
  Spread bias, overhead, own, kernel, untraced;
  int stretches = 0;
};

Summary summarise(const std::vector<Figures>& all) {
  const bool any = std::any_of(all.begin(), all.end(), [](const Figures& f) { return f.agreed; });
  std::vector<double> bias, overhead, own, kernel, untraced;
  for (const Figures& f : all) {
    if (any && !f.agreed) continue;
    bias.push_back(f.kernel - f.untraced);
    overhead.push_back(f.traced - f.untraced);
    own.push_back(f.own);
    kernel.push_back(f.kernel);
    untraced.push_back(f.untraced);
  }
  return {.bias = spread_of(bias),
          .overhead = spread_of(overhead),
          .own = spread_of(own),
          .kernel = spread_of(kernel),
          .untraced = spread_of(untraced),
          .stretches = static_cast<int>(bias.size())};
}

/// A call's figures from the kernel's totals before and after a stretch and the child's
/// times; none when the kernel timed no call of it.
std::optional<Figures> figures_of(const clock_stat& before, const clock_stat& after,
                                  double untraced_before, double traced, double untraced_after) {
  if (after.timed <= before.timed) return std::nullopt;
  const auto timed = static_cast<double>(after.timed - before.timed);
  return Figures{.kernel = static_cast<double>(after.total_ns - before.total_ns) / timed,
                 .untraced = (untraced_before + untraced_after) / 2,
                 .traced = traced,
                 .own = static_cast<double>(after.own_ns - before.own_ns) / timed,
                 .agreed = agree(untraced_before, untraced_after)};
}

/// Waits for `phase` to reach `want`, asleep on a futex (a spinning parent slowed the
/// child's stretches by half on this VM's sibling CPU); false if `pid` ended first.
bool await_phase(std::atomic<int>& phase, int want, pid_t pid) {
  const timespec tick{0, 10'000'000};
  for (;;) {
    const int now = phase.load(std::memory_order_acquire);
    if (now >= want) return true;
    (void)::syscall(SYS_futex, reinterpret_cast<int*>(&phase), FUTEX_WAIT, now, &tick, nullptr, 0);
    if (pid > 0 && ::waitpid(pid, nullptr, WNOHANG) == pid) return false;
  }
}

void set_phase(std::atomic<int>& phase, int to) {
  phase.store(to, std::memory_order_release);
  (void)::syscall(SYS_futex, reinterpret_cast<int*>(&phase), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

/// The child of one stretch: untraced, traced (the parent attaches between), untraced.
/// `null_call` false: the write alone (no getppid), when no other call is traced.
[[noreturn]] void run_stretch(StretchTimes& st, int null_fd, int calls, bool null_call) {
  (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int getppids = null_call ? calls : 0;
  if (getppids) (void)time_getppid(getppids / 4);  // warm, in this new process
  if (null_fd >= 0) (void)time_write(null_fd, calls / 4);
  st.u = getppids ? time_getppid(getppids) : 0;
  st.uw = null_fd >= 0 ? time_write(null_fd, calls) : 0;
  set_phase(st.phase, 1);
  (void)await_phase(st.phase, 2, 0);
  st.t = getppids ? time_getppid(getppids) : 0;
  st.tw = null_fd >= 0 ? time_write(null_fd, calls) : 0;
  set_phase(st.phase, 3);
  (void)await_phase(st.phase, 4, 0);
  st.uw_after = null_fd >= 0 ? time_write(null_fd, calls) : 0;
  st.u_after = getppids ? time_getppid(getppids) : 0;
  ::_exit(0);
}

}  // namespace

BpfBias measure_bpf_bias(int stretches, int calls_per_stretch) {
  const RaisedCapabilities raised;
  BpfLoader loader;
  loader.rodata().flags[kBiasCall] = CLOCK_TRACED;
  loader.rodata().flags[SYS_write] = CLOCK_TRACED | CLOCK_MOVES_DATA | CLOCK_PER_FILE;
  loader.rodata().fd_arg[SYS_write] = 0;
  loader.load();
  return measure_bias_with(loader, stretches, calls_per_stretch, true);
}

BpfBias measure_bias_with(BpfLoader& loader, int stretches, int calls_per_stretch, bool null_call) {
  const int key = kBiasCall;
  std::vector<Figures> null_figures, write_figures;
  // The write family's cost, where the program times write per file as a run's writes are.
  const UniqueFd null((loader.rodata().flags[SYS_write] & CLOCK_PER_FILE) != 0
                          ? ::open("/dev/null", O_WRONLY | O_CLOEXEC)
                          : -1);
  null_call = null_call || !null;  // without the write, getppid is all there is
  const SharedMapping<StretchTimes> shared;
  if (!shared) throw_errno("mmap", errno, kExitRunFailed);
  StretchTimes& st = *shared.get();
  for (int i = 0; i < stretches; ++i) {
    // Each stretch in a new child, as each traced run is: measured in this long-lived
    // process, the interval read up to 20 ns longer in one run of three, a child's never.
    st.phase.store(0);
    const pid_t pid = ::fork();
    if (pid < 0) throw_errno("fork for the kernel clock's bias", errno, kExitRunFailed);
    if (pid == 0) run_stretch(st, null.get(), calls_per_stretch, null_call);
    bool ok = await_phase(st.phase, 1, pid);
    const clock_stat before = loader.stat(key), write_before = loader.stat(SYS_write);
    if (ok) {
      loader.track(pid);
      loader.attach();  // detached for the untraced sides: while attached, every task pays
      set_phase(st.phase, 2);
      ok = await_phase(st.phase, 3, pid);
      loader.detach();
      loader.untrack(pid);
      set_phase(st.phase, 4);
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !ok || !WIFEXITED(status)) continue;
    const clock_stat after = loader.stat(key), write_after = loader.stat(SYS_write);
    if (null) {
      if (auto f = figures_of(write_before, write_after, st.uw, st.tw, st.uw_after))
        write_figures.push_back(*f);
    }
    if (null_call) {
      if (auto f = figures_of(before, after, st.u, st.t, st.u_after)) null_figures.push_back(*f);
    }
  }
  // Every call traced is a write's where there is no null call: its figures stand for any other.
  const Summary g = summarise(null_call ? null_figures : write_figures);
  const Summary w = null ? summarise(write_figures) : g;
  return {.bias_ns = g.bias.median,
          .bias_spread_ns = g.bias.half_iqr,
          .overhead_ns = g.overhead.median,
          .overhead_spread_ns = g.overhead.half_iqr,
          .write_overhead_ns = w.overhead.median,
          .write_overhead_spread_ns = w.overhead.half_iqr,
          .own_ns = g.own.median,
          .write_own_ns = w.own.median,
          .write_bias_ns = w.bias.median,
          .write_bias_spread_ns = w.bias.half_iqr,
          .kernel_ns = g.kernel.median,
          .untraced_ns = g.untraced.median,
          .stretches = g.stretches,
          .write_stretches = w.stretches};
}

}  // namespace iobench::tracing
