// Tracer: fork, attach, release, run the session; and correct its times by the calibrations
// either side of it (made in tracer_calibration.cc).
#include "tracer/tracer.h"

#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <utility>

#include "base/error.h"
#include "base/monotonic_clock.h"
#include "base/process.h"
#include "base/unique_fd.h"
#include "tracer/calibration.h"
#include "tracer/child_launch.h"
#include "tracer/cpu_follow.h"
#include "tracer/cpu_pin.h"
#include "tracer/idle_spinners.h"
#include "tracer/seccomp_filter.h"
#include "tracer/session.h"
#include "tracer/syscalls.h"
#include "tracer/tally.h"
#include "tracer/timed_call.h"
#include "tracer/tracer_impl.h"
#include "tracer/watchdog.h"

namespace iobench {

using namespace tracing;

namespace {

// EXITKILL: nothing we trace outlives iobench, whatever kills it. TRACESYSGOOD tells
// syscall stops from SIGTRAPs; TRACESECCOMP turns SECCOMP_RET_TRACE into stops; the
// clone/fork/vfork/exec events follow threads, children and new programs.
constexpr long kPtraceOptions = PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP |
                                PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
                                PTRACE_O_TRACEEXEC;

/// Timed calls from which a run is worth a calibration of its own after it (tens of ms).
constexpr std::uint64_t kRecalibrateAfter = 1000;
/// Calibrations tried after a run whose regime none of the recent ones shared.
constexpr int kRegimeRetries = 2;

}  // namespace

/// Owns the forked child until a TraceSession takes over (or it is reaped): on unwind it
/// is killed and reaped, so a throw never leaves it blocked or a zombie.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) noexcept
      : pid_(pid), pidfd_(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))) {}
  ~ChildGuard() {
    if (pid_ <= 0) return;
    kill();
    int status = 0;
    while (::waitpid(pid_, &status, __WALL) < 0 && errno == EINTR) {
    }
  }
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;

  /// Safe from another thread and after the child is reaped: the pidfd cannot name a
  /// recycled pid.
  void kill() const noexcept {
    if (pidfd_) {
      ::syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0);
    } else if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
    }
  }
  void disarm() noexcept { pid_ = -1; }

 private:
  pid_t pid_;
  UniqueFd pidfd_;
};

namespace {

/// What fill() shifts a timed call by, and its error. A probed call rests on the residual of
/// the run's own stop regime (`residual`, chosen once the run's probes are known), against
/// the `before` one the session subtracted; the others on the whole calibrated overhead,
/// whose drift the calibrations either side of the run bracket. Each by its share of calls.
Overhead correction(const TracerCalibration& before, const TracerCalibration& after,
                    const Overhead& residual, std::uint64_t probed, std::uint64_t timed) {
  const double b = static_cast<double>(before.overhead_ns);
  const double a = static_cast<double>(after.overhead_ns);
  const Overhead all{
      (a - b) / 2,
      std::hypot(std::hypot(before.overhead_se_ns, after.overhead_se_ns) / 2, (a - b) / 2)};
  const Overhead res{residual.ns - static_cast<double>(before.residual_ns), residual.se_ns};
  const double p = timed > 0 ? static_cast<double>(probed) / static_cast<double>(timed) : 0;
  return Overhead{p * res.ns + (1 - p) * all.ns, std::hypot(p * res.se_ns, (1 - p) * all.se_ns)};
}

void set_ending(TraceResult& result, const WaitStatus& status) {
  if (status.kind() == WaitStatus::Kind::kExited) result.exit_code = status.exit_code();
  if (status.kind() == WaitStatus::Kind::kFatalSignal) result.term_signal = status.fatal_signal();
}

}  // namespace

Tracer::Tracer(TracerOptions options)
    : options_(std::move(options)), impl_(std::make_unique<Impl>(options_)) {}

Tracer::~Tracer() = default;

std::optional<Overhead> Tracer::Impl::calibrate_beside(const Traced& t, bool later, bool calibrated,
                                                       TracerCalibration& after) {
  // A run that timed enough calls for the correction to matter is calibrated again right
  // after it (which is also the next run's "before"): what is subtracted drifts with the
  // machine's load, and a run is corrected by the two calibrations that bracket it.
  if (!later && calibrated && t.result.available && t.tally.timed_calls() >= kRecalibrateAfter) {
    calibrate();
    // Failed: the run rests on the one before it alone; the next run tries again.
    if (latest().failure.empty()) after = latest();
  }
  // The run's stops may have run in a regime none of the recent calibrations did: a few more
  // tries to meet it, then the median of them all, with their whole spread as its error.
  std::optional<Overhead> residual = residual_in_regime(history, t.probe_median_ns);
  for (int i = 0; calibrated && t.probed > 0 && !residual && i < kRegimeRetries &&
                  t.tally.timed_calls() >= kRecalibrateAfter && latest().failure.empty();
       ++i) {
    calibrate();
    residual = residual_in_regime(history, t.probe_median_ns);
  }
  if (!residual) residual = residual_in_regime(history, 0);
  return residual;
}

TraceResult Tracer::run(const std::function<int()>& child_main,
                        std::optional<std::chrono::nanoseconds> timeout) {
  Impl::Hooks hooks;
  hooks.mode = options_.mode;
  hooks.time_all = options_.time_all;
  hooks.command_gets_first_interrupt = options_.command_gets_first_interrupt;
  hooks.watch = impl_->watch;
  const bool timing = options_.mode == TraceMode::kTiming;
  const std::uint32_t calibrations = impl_->calibrations;
  // Calibrate later: with no calibration yet, the run's timed calls are held and the
  // calibrations right after it correct them, so that a run that timed none (`iobench trace
  // -- true`) needs none. --time-all would hold every call, however many: it calibrates first.
  const bool later = timing && !options_.time_all && !impl_->calibrated();
  if (timing && !later) impl_->ensure_calibrated();
  TracerCalibration before = timing && !later ? impl_->latest() : TracerCalibration{};
  hooks.hold_timed_calls = later;
  hooks.sleep = SleepRule{before.off_median_ns, before.off_threshold_ns};
  hooks.overhead_ns = before.overhead_ns;
  hooks.probe = kCanProbe && (later || before.probed);
  hooks.residual_ns = before.residual_ns;
  Impl::Traced t = impl_->trace(child_main, timeout, hooks);
  TracerCalibration after = before;
  const bool skipped = later && t.held.empty();  // nothing timed: nothing to correct
  if (later && !skipped) before = impl_->calibrate_after(t, after);
  // Without a calibration the run is still traced in timing mode (calls, errors and bytes are
  // measured as ever), but none of its times is known.
  const bool calibrated = timing && !skipped && before.failure.empty();
  const std::optional<Overhead> residual = impl_->calibrate_beside(t, later, calibrated, after);
  TraceResult& r = t.result;
  PtraceDetails& details = *r.ptrace;
  details.probed_calls = t.probed;
  Overhead overhead =
      correction(before, after, residual.value_or(Overhead{}), t.probed, t.tally.timed_calls());
  // An error of a second per call: every 95% interval holds 0, and every time reads "—".
  // Only without spinners: the unsteady stops it was made for came from CPUs halting
  // between stops, which the spinners prevent; beside them the stops' long tail tripped it
  // on a quiet machine in 5 runs of 5 whose times were right (README "Idle CPUs").
  if (t.stops_unsteady && t.spinners == 0) overhead.se_ns = 1e9;
  details.overhead_ns =
      t.probed > 0 ? std::llround(t.probe_level_ns) + before.residual_ns : before.overhead_ns;
  if (r.available) {
    t.tally.fill(r, impl_->table, overhead);
    split_file_keys(r.files);  // the tally files calls by path and kind in one string
    for (ProcessStats& p : r.processes) split_file_keys(p.files);
  }
  if (timing && !skipped && !calibrated)
    tracing::forget_times(r, "tracer calibration: " + before.failure);
  details.calibrations = impl_->calibrations - calibrations;
  details.calibration_skipped = skipped;
  return r;
}

void Tracer::watch_sessions(SessionWatch* watch) noexcept { impl_->watch = watch; }

Tracer::Impl::Traced Tracer::Impl::trace(const std::function<int()>& child_main,
                                         std::optional<std::chrono::nanoseconds> timeout,
                                         const Hooks& hooks) {
  Traced traced;
  TraceResult& result = traced.result;
  result.mode = hooks.mode;
  result.backend = kPtraceTraits.name;
  PtraceDetails& details = result.ptrace.emplace();
  SharedMapping<ChildReport> report;
  if (!report) throw_errno("mmap", errno, kExitRunFailed);
  // The release channel. A socket rather than a pipe: send(MSG_NOSIGNAL) cannot SIGPIPE us.
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    throw_errno("socketpair", errno, kExitRunFailed);
  }
  UniqueFd parent_end(ends[0]);
  UniqueFd child_end(ends[1]);

  ChildPlan plan;
  plan.child_end = child_end.get();
  plan.parent_end = parent_end.get();
  plan.filter = hooks.filter != nullptr ? hooks.filter : &filter;
  plan.report = report.get();
  plan.before_filter = hooks.before_filter;
  plan.main = &child_main;
  // fork_tree: should ptrace be refused, the untraced fallback follows the tree as a subreaper.
  const pid_t pid = fork_tree();
  if (pid < 0) throw_spawn_error(std::string("fork for ") + hooks.purpose, errno);
  if (pid == 0) run_child(plan);
  ChildGuard guard(pid);
  child_end.reset();
  // Before the pin: they spin on the CPUs the program may use, not just the tracer's.
  IdleSpinners spinners(true);
  // After fork, so only the tracer is pinned: the program keeps the affinity it would have
  // had untraced (a program sizing its threads by its CPU count must not see one).
  CpuPin pin(options.pin);
  details.pinned = pin.pinned();
  CpuFollow follow(!pin.pinned());

  // The child is blocked reading the socket: attaching now misses nothing it does.
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, kPtraceOptions) != 0) {
    result.unavailable_reason = std::string("ptrace: ") + std::strerror(errno);
    run_untraced(guard, pid, parent_end.get(), timeout, result);
    return traced;
  }
  result.available = true;

  TraceSession session(
      SessionConfig{.mode = hooks.mode,
                    .trace_all = options.trace_all,
                    .time_all = hooks.time_all,
                    .table = &table,
                    .report = report.get(),
                    .samples = hooks.samples,
                    .unsampled_fd = hooks.unsampled_fd,
                    .sleep = hooks.sleep,
                    .hold_timed_calls = hooks.hold_timed_calls,
                    .probe = hooks.probe,
                    .overhead_ns = hooks.overhead_ns,
                    .residual_ns = hooks.residual_ns,
                    .spinners = &spinners,
                    .follow = &follow,
                    .command_gets_first_interrupt = hooks.command_gets_first_interrupt},
      pid);
  guard.disarm();  // the session kills and reaps from here on
  Watchdog watchdog(timeout, [&session] { session.kill_all(); });
  if (hooks.watch != nullptr) hooks.watch->started(pid);
  const std::int64_t start = monotonic_ns();
  release_child(parent_end.get(), Verdict::kTraced);  // if it is gone, run() reaps it
  parent_end.reset();
  session.run();
  if (hooks.watch != nullptr) hooks.watch->ended();
  result.timed_out = watchdog.expired();
  traced.spinners = spinners.count();
  collect(session, start, traced);
  return traced;
}

void Tracer::Impl::collect(TraceSession& session, std::int64_t start, Traced& traced) {
  TraceResult& result = traced.result;
  PtraceDetails& details = *result.ptrace;
  details.seccomp = session.seccomp();
  details.lost_privileges = session.lost_privileges();
  details.refused_ptrace = session.refused_ptrace();
  result.wall_ns = session.main_exit_ns() - start;
  details.cpu_ns = session.main_cpu_ns();
  if (session.main_status()) set_ending(result, *session.main_status());
  traced.tally = session.take_tally();
  traced.held = session.take_held_calls();
  traced.probed = session.probed_calls();
  traced.probe_level_ns = session.probe_level_ns();
  traced.probe_median_ns = session.probe_median_ns();
  traced.stops_unsteady = session.stops_unsteady();
  details.busy_share = session.busy_share();
}

void Tracer::Impl::run_untraced(ChildGuard& guard, pid_t pid, int parent_end,
                                std::optional<std::chrono::nanoseconds> timeout,
                                TraceResult& result) {
  // Untraced, nothing follows the child's own children: the process helper does.
  guard.disarm();
  ProcessTree tree(pid);
  const std::int64_t start = monotonic_ns();
  // Released in every case: a child left blocked would be a hang, not an error.
  release_child(parent_end, Verdict::kUntraced);
  const TreeEnd end = tree.wait(deadline_after(timeout));
  result.wall_ns = end.main_exit_ns - start;
  result.timed_out = end.timed_out;
  set_ending(result, WaitStatus(end.status));
}

std::string refused_ptrace_warning(const std::string& program, const std::string& request) {
  const bool traceme = request == "PTRACE_TRACEME";
  return program + ": " + request + (traceme ? "" : " of a process of the command") +
         " refused (EPERM): " + (traceme ? "it is" : "that process is") +
         " traced by iobench already, and a process has one tracer, as under strace (a "
         "debugger works untraced, or under --tracer bpf)";
}

std::string lost_privileges_warning(const std::string& program) {
  return program +
         " ran without the setuid, setgid or file-capability privileges its file grants: the "
         "kernel ignores them for a program traced without root, so it may behave otherwise "
         "than untraced";
}

}  // namespace iobench
