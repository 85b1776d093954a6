#include "tracer/filter_twins.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>

#include "base/monotonic_clock.h"
#include "base/unique_fd.h"

namespace iobench::tracing {

namespace {

constexpr std::size_t kMaxPairs = 256;
constexpr std::int64_t kTurnTimeoutNs = 1'000'000'000;

struct Turns {
  std::atomic<std::uint32_t> turn;  // 2p: the unfiltered twin's half of pair p; 2p+1: the other's
  std::atomic<bool> failed;
  std::int64_t ns[2][kMaxPairs];
};

/// Waits for `turn`: spins, yielding, so that on one CPU the other twin runs.
bool wait_turn(Turns* t, std::uint32_t turn) noexcept {
  const std::int64_t deadline = monotonic_ns() + kTurnTimeoutNs;
  while (t->turn.load(std::memory_order_acquire) != turn) {
    if (t->failed.load(std::memory_order_relaxed) || monotonic_ns() > deadline) return false;
    ::sched_yield();
  }
  return true;
}

[[noreturn]] void twin(Turns* t, bool filtered, const SeccompFilter& filter, TwinBatch batch,
                       void* arg, std::size_t pairs, int cpu) noexcept {
  // Both on one CPU: on two, one CPU slower than the other (a VM's neighbours load them
  // unevenly) read 240-290 ns. Our own processes: no program's affinity is touched.
  if (cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    (void)::sched_setaffinity(0, sizeof one, &one);
  }
  bool set_no_new_privs = false;
  if (filtered && filter.load(set_no_new_privs) != 0) {
    t->failed = true;
    ::_exit(1);
  }
  const auto side = static_cast<std::uint32_t>(filtered);
  for (std::uint32_t p = 0; p < pairs; ++p) {
    if (!wait_turn(t, 2 * p + side)) ::_exit(1);
    const std::int64_t ns = batch(arg, filtered);
    if (ns < 0) {
      t->failed = true;
      ::_exit(1);
    }
    t->ns[side][p] = ns;
    t->turn.store(2 * p + side + 1, std::memory_order_release);
  }
  ::_exit(0);
}

void reap(pid_t pid) {
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

std::vector<std::int64_t> filter_twin_pairs(const SeccompFilter& filter, TwinBatch batch, void* arg,
                                            std::size_t pairs, std::size_t warmup) {
  const std::size_t all = std::min(kMaxPairs, pairs + warmup);
  SharedMapping<Turns> turns;
  if (!turns) return {};
  pid_t pids[2] = {-1, -1};
  const int cpu = ::sched_getcpu();
  for (int side = 0; side < 2; ++side) {
    pids[side] = ::fork();
    if (pids[side] == 0) twin(turns.get(), side == 1, filter, batch, arg, all, cpu);
    if (pids[side] < 0) turns->failed = true;
  }
  // Waited for with a deadline, then killed: a twin that cannot exit (a call the filter stops
  // fails, _exit included) must not hang the calibration.
  const std::int64_t deadline =
      monotonic_ns() + kTurnTimeoutNs + static_cast<std::int64_t>(all) * 20'000'000;
  const auto finished = [&] { return turns->turn.load() >= 2 * all || turns->failed.load(); };
  while (!finished() && monotonic_ns() < deadline) ::usleep(1000);
  // The turns say whether every batch was timed; a twin that is done needs no exit status.
  const bool ok = !turns->failed && turns->turn.load() >= 2 * all;
  for (const pid_t pid : pids) {
    if (pid <= 0) continue;
    ::kill(pid, SIGKILL);
    reap(pid);
  }
  if (!ok) return {};
  std::vector<std::int64_t> diff;
  for (std::size_t p = all - std::min(pairs, all); p < all; ++p)
    diff.push_back(turns->ns[1][p] - turns->ns[0][p]);
  return diff;
}

}  // namespace iobench::tracing
