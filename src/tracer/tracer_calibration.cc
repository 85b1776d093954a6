// The Tracer's calibrations: when it makes one (on first use, right after a run that had
// none, or once more when the last failed), how one runs, and the recent ones it keeps.
// What a run does with them: tracer.cc.
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"
#include "tracer/calibration.h"
#include "tracer/seccomp_filter.h"
#include "tracer/tracer.h"
#include "tracer/tracer_impl.h"

namespace iobench {

using namespace tracing;

namespace {

constexpr std::chrono::seconds kCalibrationTimeout{30};
/// Recent calibrations kept to correct runs by (calibration.h, residual_in_regime()).
constexpr std::size_t kCalibrationHistory = 8;
constexpr int kFirstCalibrations = 3;

}  // namespace

std::int64_t Tracer::overhead_ns() {
  return options_.mode == TraceMode::kTiming ? calibration().overhead_ns : 0;
}

const TracerCalibration& Tracer::calibration() {
  if (!impl_->calibration) impl_->ensure_calibrated();
  return impl_->latest();
}

TracerCalibration Tracer::Impl::calibrate_after(Traced& t, TracerCalibration& after) {
  const int tries = calibration ? 1 : kFirstCalibrations;  // as ensure_calibrated()
  calibrate();
  TracerCalibration first = latest();
  for (int i = 1; i < tries && latest().failure.empty(); ++i) calibrate();
  after = latest().failure.empty() ? latest() : first;
  // Recorded even when it failed: their errors and bytes stay, only their times go.
  t.probed = record_held_calls(t.held, first, t.probed);
  return first;
}

void Tracer::Impl::ensure_calibrated() {
  if (calibration && calibration->failure.empty()) return;
  if (calibration) {
    calibrate();
    return;
  }
  // Three to start with, so that the median of their residuals already outvotes one that
  // went wrong; a failure ends the tries (it would fail alike).
  for (int i = 0; i < kFirstCalibrations && (!calibration || calibration->failure.empty()); ++i)
    calibrate();
}

// Calibration (method and estimator: calibration.cc). Runs through trace() like any run,
// so it is pinned and bookkept exactly like the runs it corrects. A failure is never an
// error of the run: it leaves `calibration` holding the reason, and the runs it would have
// corrected report their times as unknown, with that reason.
void Tracer::Impl::calibrate() {
  ++calibrations;
  const std::string dir = options.calibration_dir.empty() ? "/tmp" : options.calibration_dir;
  TracerCalibration failed;
  failed.traced = true;
  const UniqueFd target = open_calibration_target(dir, failed.failure);
  if (!target) {
    calibration = failed;
    return;
  }
  SharedMapping<CalibrationShared> shared;
  if (!shared) throw_errno("mmap", errno, kExitRunFailed);
  CalibrationShared* s = shared.get();
  s->untraced_fd = target.get();
  // The real filter plus one exception: write(2) on the target's own fd.
  const SeccompFilter calibration_filter(table.stop_set(), options.trace_all, target.get());
  // Under --trace-all the filter stops every call but the target's writes: a twin under it
  // could not read its clock, yield or even exit (no tracer takes the stops).
  if (!options.trace_all) measure_filter_cost(s, calibration_filter);
  const std::function<void()> prepare = [s] { calibration_prepare(s); };
  const std::function<int()> run = [s] { return calibration_run(s); };
  std::vector<IntervalSample> samples;
  samples.reserve(calibration_traced_calls());
  Hooks hooks;
  hooks.mode = TraceMode::kTiming;
  hooks.time_all = true;  // the estimate needs every traced batch's every call
  hooks.filter = &calibration_filter;
  hooks.before_filter = &prepare;
  hooks.samples = &samples;
  hooks.unsampled_fd = target.get();
  hooks.purpose = "the tracer's calibration";
  const TraceResult r = trace(run, kCalibrationTimeout, hooks).result;
  if (!r.available) {
    calibration = TracerCalibration{};  // nothing is ever timed, nothing to subtract
    return;
  }
  if (r.exit_code != 0 || s->error != 0 || samples.size() != calibration_traced_calls()) {
    failed.failure = calibration_failure(*s, dir, r, samples.size());
    calibration = failed;
    return;
  }
  calibration = estimate_calibration(*s, samples, r.ptrace->seccomp);
  if (!calibration->probed) return;
  history.push_back(*calibration);
  if (history.size() > kCalibrationHistory) history.erase(history.begin());
  // One calibration's residual can land far off (a preemption inside a batch): the median
  // of the recent ones in its regime stands for them all.
  calibration->residual_ns =
      std::llround(residual_in_regime(history, calibration->probe_level_ns)->ns);
}

}  // namespace iobench
