// One traced run: the waitpid loop over every thread of the traced tree, from the moment
// the first child is attached until the last tracee is gone.
#pragma once

#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/interrupt.h"
#include "base/result.h"
#include "base/unique_fd.h"
#include "tracer/cpu_follow.h"
#include "tracer/fd_paths.h"
#include "tracer/idle_spinners.h"
#include "tracer/latency_histogram.h"
#include "tracer/probe.h"
#include "tracer/run_delay.h"
#include "tracer/syscalls.h"
#include "tracer/tally.h"
#include "tracer/timed_call.h"
#include "tracer/wait_status.h"

namespace iobench::tracing {

/// What the forked child tells the parent, in shared memory, without a syscall the
/// filter could trap.
struct ChildReport {
  std::atomic<int> filter_errno{0};  // nonzero: the kernel refused the filter
  /// Loading the filter needed PR_SET_NO_NEW_PRIVS (no CAP_SYS_ADMIN): an exec of a
  /// setuid, setgid or file-capability program runs without those privileges.
  std::atomic<bool> no_new_privs{false};
};

struct SessionConfig {
  TraceMode mode = TraceMode::kTiming;
  bool trace_all = false;
  bool time_all = false;  // time every call, not a sample (tracer/sampler.h)
  const SyscallTable* table = nullptr;
  const ChildReport* report = nullptr;
  /// Calibration: receives the interval of every timed write-family call, except those on
  /// `unsampled_fd` (which stop only when the filter was refused).
  std::vector<IntervalSample>* samples = nullptr;
  int unsampled_fd = -1;
  SleepRule sleep;  // from the calibration before the run
  /// No calibration before the run: every timed call is held (take_held_calls()), not
  /// recorded, for the calibration after it to correct (tracer.cc, "Calibrate later").
  bool hold_timed_calls = false;
  /// Measure the tracer's cost next to each timed call (probe.h) instead of subtracting
  /// `overhead_ns`, which then serves only the calls a probe could not follow.
  bool probe = false;
  std::int64_t overhead_ns = 0;      // calibrated cost per timed call
  std::int64_t residual_ns = 0;      // calibrated: a probed call's cost beyond the probe
  IdleSpinners* spinners = nullptr;  // told of every stop (idle_spinners.h); may be null
  CpuFollow* follow = nullptr;       // told of every stop (cpu_follow.h); may be null
  /// Ctrl-C as strace does it: the first SIGINT is passed on to the main child and the run
  /// goes on (session_signals.cc); only a second one stops it. `iobench trace` only.
  bool command_gets_first_interrupt = false;
};

class TraceSession {
 public:
  /// `main_pid` is seized and blocked, not yet released.
  TraceSession(const SessionConfig& config, pid_t main_pid);
  /// Kills and reaps whatever is left, so that no tracee outlives a throw.
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;

  /// Runs until every tracee has exited.
  void run();
  /// SIGKILLs the whole traced tree; safe from another thread (the watchdog).
  void kill_all() noexcept;

  bool seccomp() const noexcept { return seccomp_; }
  /// The tally, moved out once the run is over: the held calls' slots point into it.
  TraceTally take_tally() noexcept { return std::move(tally_); }
  /// The timed calls held for a calibration after the run (hold_timed_calls), in call order.
  std::vector<TimedCall> take_held_calls() noexcept { return std::move(held_); }
  /// Of the timed intervals' wall time, the part either side waited for a CPU: how busy the
  /// machine was while calls were being timed.
  double busy_share() const noexcept {
    return interval_ns_ > 0 ? static_cast<double>(waited_ns_) / static_cast<double>(interval_ns_)
                            : 0;
  }
  /// How the main child ended; empty if its end was never reported (it cannot be, but a
  /// result must not claim "exit 0" on a guess).
  const std::optional<WaitStatus>& main_status() const noexcept { return main_status_; }
  std::int64_t main_exit_ns() const noexcept { return main_exit_ns_; }
  /// The main child's user + sys CPU time, its waited-for children's included (wait4).
  std::int64_t main_cpu_ns() const noexcept { return main_cpu_ns_; }
  /// Timed calls whose cost was measured by a probe next to them (probe.h).
  std::uint64_t probed_calls() const noexcept { return probed_; }
  /// What one stop costs the tracee, from the probes (0: none): a probe's two stops, from
  /// the call's exit stop to the probe's (a resume, a re-entry through the filter, a stop) and
  /// on to the probe's exit stop (a resume, a stop), halved. Means, tails kept: every stop of
  /// the run pays them.
  /// True when the stops' mean cost is far above the probes' median: on some hosts a tracee
  /// left waiting on another CPU is charged tens of microseconds for some stops, a call's
  /// interval with them, and the pairs no longer cancel it. Then no subtraction can be trusted.
  bool stops_unsteady() const noexcept {
    return probes_ > 0 && stop_cost_ns() > kUnsteadyRatio * probe_level_ns();
  }
  double stop_cost_ns() const noexcept {
    return probes_ > 0 ? static_cast<double>(probe_sum_ns_ + reentry_sum_ns_) / 2 /
                             static_cast<double>(probes_)
                       : 0;
  }
  /// The median of the recent probes when the run ended (0: none): the cost per timed call.
  double probe_level_ns() const noexcept { return static_cast<double>(probe_level_.median()); }
  /// The median of every probe of the run (0: none): which of the stop regimes it ran in
  /// (calibration.h, residual_in_regime()).
  double probe_median_ns() const noexcept {
    return static_cast<double>(probe_costs_.quantile(0.5));
  }
  /// Programs exec'd without the setuid/setgid/file capabilities their file grants.
  const std::vector<std::string>& lost_privileges() const noexcept { return lost_privileges_; }
  /// {program, request} of each ptrace the kernel refused a tracee's process for being traced
  /// already (PtraceDetails::refused_ptrace).
  const std::vector<std::pair<std::string, std::string>>& refused_ptrace() const noexcept {
    return refused_ptrace_;
  }

 private:
  /// A timed call's exit-stop figures, held while its probe runs.
  struct Held {
    long rval = 0;
    bool is_error = false;
    IntervalSample interval;
    std::int64_t exit_cpu = 0;  // the tracee's CPU time at the call's exit stop
  };
  enum class Probe : std::uint8_t { kNone, kArmed, kTiming };
  struct Thread {
    pid_t tgid = 0;
    bool pending = false;        // between a timed call's entry and its exit stop
    Probe probe = Probe::kNone;  // kArmed: registers set, kTiming: between its two stops
    ProbeRegs saved{};
    Held held;
    bool moves_data = false;
    bool sample = false;
    bool probe_ok = false;  // an ordinary call: rip - 2 is its `syscall` (not execve, sigreturn)
    bool refusing = false;  // a ptrace of ours skipped at its entry, to fail at its exit
    /// A timed call's exit said -ERESTART*: its restart is the same call, counted already
    /// (session_timing.cc). `nr` and `arch` name the timed call in flight.
    bool restarting = false;
    long nr = -1;
    std::uint32_t arch = 0;
    std::uint32_t weight = 0;  // of the call in flight: the calls it stands for
    std::int64_t t0 = 0;
    std::int64_t waited0 = 0;  // tracer's + tracee's run-queue wait at t0
    std::int64_t cpu0 = 0;     // the tracee's CPU time at t0
    std::int64_t slices0 = 0;  // and its schedstat time slices
    RunDelay run_delay;        // opened at the thread's first timed call
    TraceTally::Slot slot;
  };
  struct Process {
    FdPaths fds;
    int threads = 0;
    bool own_filter = false;  // it loaded a seccomp filter of its own: never probed
  };

  void handle(pid_t tid, const WaitStatus& status, std::int64_t now_ns, const struct rusage& usage);
  Thread& adopt(pid_t tid);
  void forget(pid_t tid);
  void on_syscall_stop(pid_t tid, Thread& t, std::int64_t now_ns);
  void on_signal_stop(pid_t tid, Thread& t, int sig);
  void on_entry(pid_t tid, Thread& t, const __ptrace_syscall_info& info);
  /// An entry while a probe is armed: true if it was the probe (timed from here and resumed);
  /// else the held call is recorded unprobed and the process never probed again.
  bool on_probe_entry(pid_t tid, Thread& t, bool native_write, const std::uint64_t* args);
  /// Holds the call `t` entered as timed (nr and arch set) and resumes it.
  void start_timing(pid_t tid, Thread& t, const SyscallInfo& sc, std::uint32_t weight,
                    const TraceTally::Slot& slot, const std::uint64_t* args);
  /// The tally's key (fd_kind.h, file_key()) of the file a write-family call names.
  const std::string* file_of(pid_t tid, Process& p, const SyscallInfo& sc,
                             const std::uint64_t* args);
  const std::string* ring_file(pid_t tid, Process& p, const std::uint64_t* args);
  const std::string* aio_file(pid_t tid, Process& p, std::uint64_t iocbpp, std::uint64_t nr,
                              bool compat);
  void on_exit(pid_t tid, Thread& t, const __ptrace_syscall_info& info, std::int64_t now_ns);
  void begin_timed_interval(Thread& t);
  void record(Thread& t, const Held& h, bool probed);
  bool start_probe(pid_t tid, Thread& t, const Held& h);
  void end_probe(pid_t tid, Thread& t, std::int64_t now_ns);
  void cancel_probe(pid_t tid, Thread& t);
  bool resume_restarted(pid_t tid, Thread& t, const __ptrace_syscall_info& info);
  void settle_restart(pid_t tid, Thread& t, int sig);
  void on_event(pid_t tid, Thread& t, int event);
  void on_exec(pid_t tid);
  void note_lost_privileges(pid_t tid);
  void apply_fd_effect(pid_t tid, Process& p, FdEffect effect, const std::uint64_t* args);
  void share_check(pid_t a, pid_t b);
  void resume(pid_t tid, const Thread& t, int sig = 0);
  /// ptrace's ESRCH means the tracee died under us (SIGKILL); its exit is still to be reaped.
  static void ptrace_or_throw(int request, pid_t tid, void* addr, void* data, const char* what);
  void take_first_interrupt() noexcept;
  void note_main_signal(pid_t tid, const WaitStatus& status);
  void pass_on_interrupt();
  void interrupt_main_process() noexcept;
  bool refuse_ptrace_of_us(pid_t tid, Thread& t, const __ptrace_syscall_info& info);
  void note_refused_ptrace(pid_t tid, const char* request);
  void finish_refusal(pid_t tid, Thread& t);
  void reap_orphaned_zombies() noexcept;

  SessionConfig config_;
  pid_t main_pid_;
  bool seccomp_ = true;
  bool handshake_seen_ = false;
  std::map<pid_t, Thread> threads_;
  std::map<pid_t, Process> processes_;
  std::vector<pid_t> descendants_;  // every traced process but the main child
  TraceTally tally_;
  std::vector<TimedCall> held_;  // hold_timed_calls: every recorded call, in call order
  std::uint64_t probed_ = 0;     // recorded calls that were probed
  std::uint64_t probes_ = 0;     // every probe, the primers' too (sampler.h)
  std::int64_t probe_sum_ns_ = 0, reentry_sum_ns_ = 0;
  static constexpr double kUnsteadyRatio = 2;  // on a steady machine the mean is ~1.1-1.4x
  ProbeLevel probe_level_;
  LatencyHistogram probe_costs_;  // every probe's: fixed memory, whatever the calls
  std::int64_t waited_ns_ = 0, interval_ns_ = 0;
  std::optional<WaitStatus> main_status_;
  RunDelay own_run_delay_{0};
  std::int64_t main_exit_ns_ = 0;
  std::int64_t main_cpu_ns_ = 0;
  std::vector<std::string> lost_privileges_;
  std::vector<std::pair<std::string, std::string>> refused_ptrace_;
  std::vector<FileId> streams_ = standard_streams();  // the main child inherits them at fork
  std::set<FileId> writing_rings_;  // rings seen submitting a write to a file, any process's
  std::string key_;                 // file_of()'s answer when it is not a cached one
  // Ctrl-C (session_signals.cc): the held SIGINT, the sender of the main child's last own
  // SIGINT, and the SIGINT taken from the handler that is still to be passed on.
  std::optional<FirstInterruptToCommand> first_interrupt_;
  std::optional<SignalSender> main_sigint_;
  std::optional<SignalSender> to_pass_on_;

  // Shared with the watchdog: one pidfd per traced process, so a kill can never hit a
  // recycled pid.
  std::mutex kill_mutex_;
  bool killing_ = false;
  std::map<pid_t, UniqueFd> pidfds_;
};

}  // namespace iobench::tracing
