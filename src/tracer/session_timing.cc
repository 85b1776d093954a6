// A timed call's interval, from its entry stop to its exit stop, and the probe that follows
// it (probe.h): the part of the session that turns stops into corrected times.
#include <cerrno>

#include "base/error.h"
#include "base/monotonic_clock.h"
#include "tracer/session.h"

namespace iobench::tracing {

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
    Held h{static_cast<long>(info.exit.rval), info.exit.is_error != 0,
           IntervalSample{tracee.cpu - t.cpu0, 0}, tracee.cpu};
    h.interval.off = now_ns - t.t0 - waited - h.interval.cpu;
    h.interval.slices = tracee.slices - t.slices0;
    waited_ns_ += waited;
    interval_ns_ += now_ns - t.t0;
    // No schedstat (no CONFIG_SCHED_INFO): the whole interval, as the tracer saw it.
    if (!t.run_delay) h.interval = IntervalSample{now_ns - t.t0, 0};
    // A failed call may be one the kernel restarts (-ERESTARTSYS): its registers are not ours
    // to borrow.
    if (!h.is_error && start_probe(tid, t, h)) return;
    record(t, h, false);
  }
  resume(tid, t);
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
  const std::int64_t slept = config_.sleep.slept(h.interval.off, h.interval.slices);
  if (!probed) {  // the calibrated cost
    const std::int64_t ns = h.interval.cpu - config_.overhead_ns;
    TraceTally::record_exit(t.slot, h.rval, h.is_error, t.moves_data, ns, slept, ns + slept,
                            t.weight);
  } else {
    // The sums take the call less its own probe: the probe shares the call's CPU, speed and
    // placement, and a spike in either cancels on average (tally.h trims what is left). The
    // histogram takes the call less the recent probes' median: one call's time, not the
    // difference of two noisy ones. Both less the calibrated residual (the caches the
    // tracer's work evicted).
    const std::int64_t paired = h.interval.cpu - h.interval.probe - config_.residual_ns;
    const std::int64_t shown = h.interval.cpu - probe_level_.median() - config_.residual_ns + slept;
    TraceTally::record_exit(t.slot, h.rval, h.is_error, t.moves_data, paired, slept, shown,
                            t.weight);
  }
  if (t.sample) config_.samples->push_back(h.interval);
}

}  // namespace iobench::tracing
