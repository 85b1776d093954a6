// The tracer's cost per traced call: a child makes K write(2) calls of one byte to
// /dev/null, once under Tracer::run and once in a plain fork; the difference per call is
// what tracing adds (the fork, attach and filter set-up are amortised over K). Count mode
// stops once per call; timing/all (--time-all) stops twice on every call and reads the
// clock and the schedstat figures at both; timing (the default) does that for a sample
// (tracer/sampler.h) and stops once on the rest, and recalibrates after the run (included).
// Reported with the tracer pinned (--pin; the child never is) and unpinned (the default).
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <string>

#include "microbench.h"
#include "tracer/tracer.h"

namespace iobench::microbench {
namespace {

constexpr int kCalls = 20000;

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

/// The traced program: K one-byte writes. Exit status 1 if any write fails.
int write_k_times() noexcept {
  const int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return 1;
  for (int i = 0; i < kCalls; ++i)
    if (::write(fd, "x", 1) != 1) return 1;
  ::close(fd);
  return 0;
}

/// The same program in a plain fork, waited for: the untraced reference, fork included.
std::int64_t untraced_run_ns() {
  const std::int64_t t0 = now_ns();
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(write_k_times());
  int status = 0;
  if (pid > 0) ::waitpid(pid, &status, 0);
  return now_ns() - t0;
}

void BM_TracerCost(benchmark::State& state, TraceMode mode, bool time_all, bool pin,
                   const Config& config) {
  TracerOptions o;
  o.mode = mode;
  o.time_all = time_all;
  o.pin = pin;
  o.calibration_dir = config.dir;
  Tracer tracer(o);
  if (mode == TraceMode::kTiming) tracer.calibration();  // once, not inside the first sample

  double traced = 0, untraced = 0, timed = 0;
  for ([[maybe_unused]] auto _ : state) {
    const std::int64_t t0 = now_ns();
    const TraceResult r = tracer.run(write_k_times);
    const std::int64_t t1 = now_ns();
    if (!r.available) {
      state.SkipWithError(("cannot trace: " + r.unavailable_reason).c_str());
      break;
    }
    const auto it = r.syscalls.find("write");
    if (r.exit_code != 0 || it == r.syscalls.end() || it->second.calls != kCalls) {
      state.SkipWithError("the traced child did not make exactly K writes");
      break;
    }
    const std::int64_t base = untraced_run_ns();
    state.SetIterationTime(static_cast<double>(t1 - t0) * 1e-9);
    traced += static_cast<double>(t1 - t0);
    timed += static_cast<double>(it->second.timed_calls);
    untraced += static_cast<double>(base);
  }
  const double calls = static_cast<double>(state.iterations()) * kCalls;
  if (calls == 0) return;
  state.counters["traced_ns_per_call"] = traced / calls;
  state.counters["untraced_ns_per_call"] = untraced / calls;
  state.counters["overhead_ns_per_call"] = (traced - untraced) / calls;
  if (mode == TraceMode::kTiming) {
    state.counters["calibrated_overhead_ns"] = static_cast<double>(tracer.overhead_ns());
    state.counters["timed_share"] = timed / calls;
  }
}

}  // namespace

void register_tracer_benchmarks(const Config& config) {
  struct Variant {
    const char* name;
    TraceMode mode;
    bool time_all;
  };
  for (const Variant v :
       {Variant{"count", TraceMode::kCount, false}, Variant{"timing", TraceMode::kTiming, false},
        Variant{"timing/all", TraceMode::kTiming, true}}) {
    for (bool pin : {true, false}) {
      const std::string name = std::string("tracer/") + v.name + (pin ? "/pinned" : "/unpinned");
      benchmark::RegisterBenchmark(name.c_str(),
                                   [v, pin, config](benchmark::State& st) {
                                     BM_TracerCost(st, v.mode, v.time_all, pin, config);
                                   })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->MinTime(1.0);
    }
  }
}

}  // namespace iobench::microbench
