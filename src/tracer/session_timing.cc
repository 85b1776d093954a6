// A timed call's interval, from its entry stop to its exit stop, and the probe that follows
// it (probe.h): the part of the session that turns stops into corrected times.
#include <cerrno>

#include "base/error.h"
#include "base/monotonic_clock.h"
#include "tracer/session.h"
#include "tracer/task_info.h"
#include "tracer/timed_call.h"

namespace iobench::tracing {

namespace {

// The kernel's own return values (include/linux/errno.h) for a call a signal or a ptrace
// stop interrupted: it restarts the call unless a handler runs (and then it may turn them
// into EINTR). The program never sees them.
constexpr long kRestartSys = -512, kRestartNoIntr = -513, kRestartNoHand = -514,
               kRestartBlock = -516;

bool is_restart(long rval) {
  return rval == kRestartSys || rval == kRestartNoIntr || rval == kRestartNoHand ||
         rval == kRestartBlock;
}

}  // namespace

void TraceSession::begin_timed_interval(Thread& t) {
  const RunDelay::Times tracee = t.run_delay.read_times();
  t.cpu0 = tracee.cpu;
  t.slices0 = tracee.slices;
  t.waited0 = own_run_delay_.read() + tracee.wait;
  // The interval starts as late as possible: everything above is tracer time.
  t.t0 = monotonic_ns();
}

void TraceSession::on_exit(pid_t tid, Thread& t, const __ptrace_syscall_info& info,
                           std::int64_t now_ns) {
  if (t.probe == Probe::kTiming) {
    end_probe(tid, t, now_ns);
  } else if (t.pending) {
    t.pending = false;
    const RunDelay::Times tracee = t.run_delay.read_times();
    // Time either side spent waiting for the CPU is neither call nor tracer (run_delay.h).
    const std::int64_t waited = own_run_delay_.read() + tracee.wait - t.waited0;
    Held h{.rval = static_cast<long>(info.exit.rval),
           .is_error = info.exit.is_error != 0,
           .interval = IntervalSample{.cpu = tracee.cpu - t.cpu0},
           .exit_cpu = tracee.cpu};
    h.interval.off = now_ns - t.t0 - waited - h.interval.cpu;
    h.interval.slices = tracee.slices - t.slices0;
    waited_ns_ += waited;
    interval_ns_ += now_ns - t.t0;
    // No schedstat (no CONFIG_SCHED_INFO): the whole interval, as the tracer saw it.
    if (!t.run_delay) h.interval = IntervalSample{.cpu = now_ns - t.t0};
    if (h.is_error && is_restart(h.rval)) {
      // Not an error, and not the call's end: its restart re-enters (and stops) as the
      // same call, which must not count twice (resume_restarted).
      t.held = h;
      t.restarting = true;
      resume(tid, t);
      return;
    }
    // A failed call may be one the kernel restarts (-ERESTARTSYS): its registers are not ours
    // to borrow.
    if (!h.is_error && start_probe(tid, t, h)) return;
    record(t, h, false);
  }
  resume(tid, t);
}

bool TraceSession::resume_restarted(pid_t tid, Thread& t, const __ptrace_syscall_info& info) {
  if (!t.restarting) return false;
  t.restarting = false;
  // Anything else is a new call: restart_syscall (the restart of -ERESTART_RESTARTBLOCK),
  // or, once a handler made the call fail with EINTR, whatever the program does next.
  if (info.arch != t.arch || static_cast<long>(info.entry.nr) != t.nr) return false;
  // Counted at its first entry, its fd effects applied there: timed from here on (the
  // interrupted part is lost), with the first entry's slot, weight and sample.
  t.pending = true;
  begin_timed_interval(t);
  resume(tid, t);
  return true;
}

void TraceSession::settle_restart(pid_t tid, Thread& t, int sig) {
  // Delivered to a handler, the signal decides: ERESTARTNOINTR restarts anyway,
  // ERESTARTNOHAND and ERESTART_RESTARTBLOCK turn into the EINTR the program sees, and
  // ERESTARTSYS restarts only with SA_RESTART, which /proc does not show: counted anew if it
  // does restart, never as an error. Without a handler (ignored, or a stop) it restarts.
  if (!t.restarting || sig == 0 || t.held.rval == kRestartNoIntr || !catches_signal(tid, sig))
    return;
  t.restarting = false;
  if (t.held.rval == kRestartSys) return;
  t.held.rval = -EINTR;
  record(t, t.held, false);
}

bool TraceSession::start_probe(pid_t tid, Thread& t, const Held& h) {
  if (!config_.probe || !t.probe_ok || !seccomp_ || !t.run_delay || processes_[t.tgid].own_filter)
    return false;
  if (!arm_probe(tid, t.saved)) return false;
  t.held = h;
  t.probe = Probe::kArmed;
  resume(tid, t);  // PTRACE_CONT: the filter stops the probe's write at its entry
  return true;
}

void TraceSession::end_probe(pid_t tid, Thread& t, std::int64_t now_ns) {
  const RunDelay::Times tracee = t.run_delay.read_times();
  t.probe = Probe::kNone;
  if (!disarm_probe(tid, t.saved)) {
    if (errno == ESRCH) return;  // killed meanwhile: nothing will run with our registers
    throw_errno("PTRACE_SETREGS", errno, kExitRunFailed);
  }
  const std::int64_t waited = own_run_delay_.read() + tracee.wait - t.waited0;
  interval_ns_ += now_ns - t.t0;
  waited_ns_ += waited;
  t.held.interval.probe = tracee.cpu - t.cpu0;
  probe_level_.add(t.held.interval.probe);
  probe_costs_.add(t.held.interval.probe, 1);
  probe_sum_ns_ += t.held.interval.probe;
  ++probes_;
  record(t, t.held, true);
}

void TraceSession::cancel_probe(pid_t tid, Thread& t) {
  if (t.probe != Probe::kArmed) return;
  t.probe = Probe::kNone;
  // The signal is delivered before the probe's syscall runs: the frame it saves must hold
  // the program's registers, as if the call had just returned.
  if (!disarm_probe(tid, t.saved) && errno != ESRCH) {
    throw_errno("PTRACE_SETREGS", errno, kExitRunFailed);
  }
  record(t, t.held, false);
}

void TraceSession::record(Thread& t, const Held& h, bool probed) {
  if (t.weight == Sampler::kPrimer) return;  // timed for the next call's sake only
  if (probed) ++probed_;
  const TimedCall call{.slot = t.slot,
                       .rval = h.rval,
                       .is_error = h.is_error,
                       .moves_data = t.moves_data,
                       .probed = probed,
                       .weight = t.weight,
                       .interval = h.interval,
                       .probe_level_ns = probe_level_.median()};
  // No calibration yet: what to subtract is known only once the run is over.
  if (config_.hold_timed_calls) {
    held_.push_back(call);
  } else {
    record_timed_call(call, Subtraction{.sleep = config_.sleep,
                                        .overhead_ns = config_.overhead_ns,
                                        .residual_ns = config_.residual_ns});
  }
  if (t.sample) config_.samples->push_back(h.interval);
}

}  // namespace iobench::tracing
