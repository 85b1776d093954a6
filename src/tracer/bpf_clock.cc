#include "tracer/bpf_clock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "base/capabilities.h"
#include "base/error.h"
#include "base/monotonic_clock.h"
#include "base/process.h"
#include "base/unique_fd.h"
#include "tracer/bpf/clock_abi.h"
#include "tracer/bpf_loader.h"
#include "tracer/syscalls.h"

namespace iobench::tracing {

namespace {

static_assert(kBpfHistograms == CLOCK_HIST_SLOTS);

/// The key of a syscall in the program's maps and config arrays.
int key_of(int nr, bool compat) noexcept { return nr + (compat ? CLOCK_NR_PER_ABI : 0); }

/// The config arrays the program reads, filled before load (const volatile in the program).
/// Also returns, per key, whether the caller asked for it: the bias call is timed always.
std::vector<bool> fill_config(const BpfClockConfig& config, BpfRodata& rodata) {
  std::fill(std::begin(rodata.fd_arg), std::end(rodata.fd_arg), -1);
  rodata.direct_reads = config.direct_reads;
  if (config.trace_all) std::fill(std::begin(rodata.flags), std::end(rodata.flags), CLOCK_TRACED);
  std::vector<bool> reported(static_cast<std::size_t>(CLOCK_KEYS), config.trace_all);
  int slots = 0;
  for (const BpfSyscallSpec& s : config.syscalls) {
    if (s.nr < 0 || s.nr >= CLOCK_NR_PER_ABI) continue;  // beyond every ABI's table today
    const int key = key_of(s.nr, s.compat);
    std::uint8_t flags = CLOCK_TRACED;
    if (s.moves_data) flags |= CLOCK_MOVES_DATA;
    if (s.fd_arg >= 0 && s.fd_arg < 6) {
      flags |= CLOCK_PER_FILE;
      if (s.ring_enter) flags |= CLOCK_RING_ENTER;
      rodata.fd_arg[key] = static_cast<std::int8_t>(s.fd_arg);
    }
    rodata.flags[key] = flags;
    reported[static_cast<std::size_t>(key)] = true;
    if (s.histogram && slots < kBpfHistograms)
      rodata.hist_slot[key] = static_cast<std::uint8_t>(++slots);
  }
  rodata.flags[kBiasCall] |= CLOCK_TRACED;
  return reported;
}

/// stat(2)'s dev_t of the kernel's internal encoding (major << 20 | minor).
dev_t user_dev(std::uint32_t kernel_dev) noexcept {
  return makedev(kernel_dev >> 20, kernel_dev & 0xfffff);
}

/// The child's state letter in /proc (R, S, ...), '?' when unreadable.
char task_state(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() ? line[close + 2] : '?';
}

/// Until the parked child sleeps in its read of the release pipe: a call it made before that
/// would be counted (trace_all) though it is ours, not the program's.
void wait_parked(pid_t pid) {
  const std::int64_t give_up = monotonic_ns() + 1'000'000'000;
  while (task_state(pid) != 'S' && monotonic_ns() < give_up)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
}

[[noreturn]] void run_parked_child(int release_fd, const std::function<int()>& child_main) {
  // Nothing outlives the tool: a parent that dies before releasing us takes us with it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  char go = 0;
  if (::read(release_fd, &go, 1) != 1 || go != 'G') ::_exit(125);
  try {
    ::_exit(child_main());
  } catch (...) {
    ::_exit(126);
  }
}

std::vector<BpfSyscallStats> collect_syscalls(BpfLoader& loader, const BpfRodata& rodata,
                                              const std::vector<bool>& reported) {
  std::vector<BpfSyscallStats> out;
  for (int key = 0; key < CLOCK_KEYS; ++key) {
    if (!reported[static_cast<std::size_t>(key)]) continue;
    const auto stat = loader.stat(key);
    if (stat.calls == 0 && stat.timed == 0) continue;
    BpfSyscallStats s{.nr = key % CLOCK_NR_PER_ABI,
                      .compat = key >= CLOCK_NR_PER_ABI,
                      .calls = stat.calls,
                      .timed = stat.timed,
                      .errors = stat.errors,
                      .bytes = stat.bytes,
                      .total_ns = static_cast<std::int64_t>(stat.total_ns),
                      .preempted_ns = static_cast<std::int64_t>(stat.preempted_ns),
                      .blocked_ns = static_cast<std::int64_t>(stat.blocked_ns),
                      .own_ns = stat.own_samples > 0 || stat.timed == 0
                                    ? static_cast<std::int64_t>(stat.own_ns)
                                    : -1,
                      .latency = std::nullopt};
    if (const int slot = rodata.hist_slot[key]; slot > 0) s.latency = loader.histogram(slot - 1);
    out.push_back(std::move(s));
  }
  return out;
}

/// The path /proc/PID/fd shows for what the kernel named (syscall_clock.bpf.c, name_walk).
std::string path_of(const clock_file_name& n, const clock_name_key& key) {
  auto append = [&](std::string& to, std::uint32_t i) {
    to.append(n.comp[i], strnlen(n.comp[i], CLOCK_NAME_LEN));
  };
  if (n.magic == CLOCK_PIPE_MAGIC) return "pipe:[" + std::to_string(key.ino) + "]";
  if (n.magic == CLOCK_SOCK_MAGIC) return "socket:[" + std::to_string(key.ino) + "]";
  std::string path;
  if (n.magic == CLOCK_ANON_MAGIC) {
    path = "anon_inode:";
    if (n.depth > 0) append(path, 0);
    return path;
  }
  for (std::uint32_t i = std::min<std::uint32_t>(n.depth, CLOCK_NAME_DEPTH); i-- > 0;) {
    path.push_back('/');
    append(path, i);
  }
  if (path.empty()) path.push_back('/');
  // Deeper than CLOCK_NAME_DEPTH or a name past CLOCK_NAME_LEN: what the walk kept is not
  // the file's path, and must not read as one (nor match another file's).
  if (n.truncated != 0) path.insert(0, "…");
  // As d_path: a pseudo file's name is always " (deleted)" (simple_dname), another's once
  // it is unlinked.
  if (n.pseudo != 0 || key.deleted != 0) path += " (deleted)";
  return path;
}

using NameKey =
    std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint32_t, std::uint32_t>;
NameKey name_key(const clock_name_key& k) { return {k.dentry, k.mnt, k.ino, k.dev, k.deleted}; }

std::vector<BpfFileStats> collect_files(BpfLoader& loader) {
  std::map<NameKey, std::string> names;
  loader.for_each_name([&](const clock_name_key& k, const clock_file_name& n) {
    names.emplace(name_key(k), path_of(n, k));
  });
  std::vector<BpfFileStats> out;
  loader.for_each_file([&](const clock_file_key& k, const clock_file_stat& v) {
    const auto name = v.named != 0 ? names.find(name_key(v.name)) : names.end();
    out.push_back({.tgid = static_cast<pid_t>(k.tgid),
                   .fd = k.fd,
                   .dev = k.ino != 0 ? user_dev(k.dev) : 0,
                   .ino = static_cast<ino_t>(k.ino),
                   .mode = v.mode,
                   .rdev = user_dev(v.rdev),
                   .path = k.ino != 0 && name != names.end() ? name->second : std::string(),
                   .writable = (v.f_mode & CLOCK_FMODE_WRITE) != 0,
                   .ring = k.flags,
                   .nr = static_cast<int>(k.key % CLOCK_NR_PER_ABI),
                   .compat = k.key >= CLOCK_NR_PER_ABI,
                   .calls = v.calls,
                   .errors = v.errors,
                   .bytes = v.bytes,
                   .total_ns = static_cast<std::int64_t>(v.total_ns)});
  });
  std::sort(out.begin(), out.end(), [](const BpfFileStats& a, const BpfFileStats& b) {
    return std::tie(a.tgid, a.fd, a.ino, a.nr) < std::tie(b.tgid, b.fd, b.ino, b.nr);
  });
  return out;
}

std::vector<BpfProcessStats> collect_processes(BpfLoader& loader,
                                               const std::vector<bool>& reported) {
  std::vector<BpfProcessStats> out;
  loader.for_each_process([&](const clock_proc_key& k, const clock_proc_stat& v) {
    if (k.key >= reported.size() || !reported[k.key]) return;  // the bias call
    out.push_back({.tgid = static_cast<pid_t>(k.tgid),
                   .nr = static_cast<int>(k.key % CLOCK_NR_PER_ABI),
                   .compat = k.key >= CLOCK_NR_PER_ABI,
                   .calls = v.calls,
                   .timed = v.timed,
                   .errors = v.errors,
                   .bytes = v.bytes,
                   .total_ns = static_cast<std::int64_t>(v.total_ns)});
  });
  std::sort(out.begin(), out.end(), [](const BpfProcessStats& a, const BpfProcessStats& b) {
    return std::tie(a.tgid, a.compat, a.nr) < std::tie(b.tgid, b.compat, b.nr);
  });
  return out;
}

double ms_since(std::int64_t start) { return static_cast<double>(monotonic_ns() - start) / 1e6; }

/// `trace`'s first Ctrl-C (README "Ctrl-C"), held for the command: a terminal's Ctrl-C or a
/// kill of the process group reached the command too, from the same sender, and it gets no
/// second one; a SIGINT sent to iobench alone is passed on. The kernel signals a group's
/// members in one loop, so the command's shows in the map within microseconds of ours; a
/// miss waits 20 ms for it first.
void pass_on_interrupt(const BpfLoader& loader, pid_t command, const SignalSender& sender) {
  for (int tries = 0; tries < 20; ++tries) {
    const clock_sigint last = loader.last_sigint(command);
    if (last.count > 0 && last.code == sender.code && last.pid == sender.pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(command, SIGINT);  // our own unreaped child: its pid is still its own
}

}  // namespace

bool bpf_clock_built() noexcept { return IOBENCH_HAVE_BPF != 0; }

std::string bpf_clock_unavailable_reason() {
  // Privileges and the kernel do not change under a running process: ask once.
  static const std::string reason = [] {
    const RaisedCapabilities raised;  // setcap'd: the probe needs what a load will
    return bpf_probe_gap();
  }();
  return reason;
}

BpfClockConfig write_family_config(const SyscallTable& table, bool trace_all) {
  BpfClockConfig config{.syscalls = {}, .trace_all = trace_all};
  const auto& abis = syscall_abis();
  for (std::size_t a = 0; a < abis.size() && a < 2; ++a) {
    for (int nr = 0; nr < CLOCK_NR_PER_ABI; ++nr) {
      const long key = table.key(abis[a].arch, nr);
      if (key < 0) continue;
      const SyscallInfo& info = table.info(key);
      if (!info.write_family) continue;
      config.syscalls.push_back({.nr = nr,
                                 .compat = a == 1,
                                 .moves_data = info.moves_data,
                                 .fd_arg = info.fd_arg,
                                 .histogram = true,
                                 .ring_enter = info.fd_effect == FdEffect::kRingEnter});
    }
  }
  return config;
}

BpfClock::BpfClock(BpfClockConfig config) : config_(std::move(config)) {}
BpfClock::~BpfClock() = default;
BpfClock::BpfClock(BpfClock&&) noexcept = default;
BpfClock& BpfClock::operator=(BpfClock&&) noexcept = default;

BpfLoader& BpfClock::loaded() {
  if (!loader_) {
    auto fresh = std::make_unique<BpfLoader>();
    reported_ = fill_config(config_, fresh->rodata());
    fresh->load();  // throws Error with the kernel's reason
    loader_ = std::move(fresh);
  }
  return *loader_;
}

BpfBias BpfClock::bias(int stretches, int calls_per_stretch, bool null_call) {
  const RaisedCapabilities raised;
  return measure_bias_with(loaded(), stretches, calls_per_stretch, null_call);
}

BpfClockRun BpfClock::run(const std::function<int()>& child_main,
                          std::optional<std::chrono::nanoseconds> timeout,
                          bool command_gets_first_interrupt) {
  const RaisedCapabilities raised;  // load, attach, read: the child drops them (fork_tree)
  BpfClockRun run;
  std::int64_t t = monotonic_ns();
  const bool was_loaded = loader_ != nullptr;
  BpfLoader& loader = loaded();
  if (was_loaded) loader.reset();  // the last run's counts and tree
  run.timings.load_ms = ms_since(t);

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe2", errno, kExitRunFailed);
  UniqueFd release_read(fds[0]), release_write(fds[1]);
  const pid_t pid = fork_tree();
  if (pid < 0) throw_spawn_error("fork for the kernel clock", errno);
  if (pid == 0) run_parked_child(release_read.get(), child_main);
  ProcessTree::PassOn pass_on;
  if (command_gets_first_interrupt)
    pass_on = [&](const SignalSender& sender) { pass_on_interrupt(loader, pid, sender); };
  // From here on, a throw kills and reaps the child and all it starts; the first Ctrl-C is
  // the command's before it is released.
  ProcessTree tree(pid, std::move(pass_on));
  release_read.reset();
  wait_parked(pid);
  t = monotonic_ns();
  run.streams = standard_streams();  // what the child inherited at fork
  loader.set_streams(run.streams);
  loader.track(pid);
  loader.attach();
  run.timings.attach_ms = ms_since(t);
  const std::int64_t start = monotonic_ns();
  if (::write(release_write.get(), "G", 1) != 1)
    throw_errno("release the child", errno, kExitRunFailed);
  const TreeEnd end = tree.wait(deadline_after(timeout));
  run.wall_ns = end.main_exit_ns - start;
  run.status = end.status;
  run.timed_out = end.timed_out;

  t = monotonic_ns();
  loader.detach();  // the tree is gone: nothing more to count, stop costing the machine
  run.timings.detach_ms = ms_since(t);
  t = monotonic_ns();
  run.syscalls = collect_syscalls(loader, loader.rodata(), reported_);
  run.files = collect_files(loader);
  run.processes = collect_processes(loader, reported_);
  run.lost = loader.lost();
  run.privileged = loader.privileged_programs();
  run.waited_ns = loader.waited_ns(pid);
  for (const BpfProcessStats& p : run.processes)
    if (!run.comms.count(p.tgid)) run.comms[p.tgid] = loader.comm(p.tgid);
  run.timings.read_ms = ms_since(t);
  return run;
}

std::vector<BpfProgramCost> BpfClock::program_costs() const {
  return loader_ ? loader_->program_costs() : std::vector<BpfProgramCost>{};
}

void BpfClock::start(pid_t tgid) {
  const bool was_loaded = loader_ != nullptr;
  BpfLoader& loader = loaded();
  if (was_loaded) loader.reset();
  loader.track(tgid);
  loader.attach();
  started_ = true;
}

BpfClockRun BpfClock::stop() noexcept {
  BpfClockRun run;
  if (!started_) return run;
  started_ = false;
  loader_->detach();
  try {
    run.syscalls = collect_syscalls(*loader_, loader_->rodata(), reported_);
    run.files = collect_files(*loader_);
    run.lost = loader_->lost();
  } catch (...) {  // out of memory: nothing counted
    run = BpfClockRun{};
  }
  return run;
}

}  // namespace iobench::tracing
