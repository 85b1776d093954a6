#include "tracer/idle_spinners.h"

#include <pthread.h>
#include <sched.h>

#include "base/interrupt.h"
#include "base/monotonic_clock.h"
#include "tracer/cpu_pin.h"

namespace iobench::tracing {

namespace {

void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();  // a spin-wait hint: frees the core's resources for a sibling
#endif
}

}  // namespace

IdleSpinners::IdleSpinners(bool enable) {
  if (!enable) return;
  cpu_set_t mask;
  if (::sched_getaffinity(0, sizeof(mask), &mask) != 0 || CPU_COUNT(&mask) < 2) return;
  shared_ = std::make_unique<Shared>();
  const InterruptsOffForNewThreads off;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    try {
      threads_.emplace_back(spin, std::ref(*shared_), cpu);
    } catch (...) {
      break;  // no thread: fewer spinners, slower stops, never a wrong count
    }
  }
}

IdleSpinners::~IdleSpinners() {
  if (!shared_) return;
  shared_->quit.store(true);
  shared_->generation.fetch_add(1);
  shared_->generation.notify_all();
  // Off SCHED_IDLE first: on a busy machine an idle-policy thread waits seconds for the CPU
  // it needs to see `quit` (3.6 s for `iobench trace -- true` here). Refused without
  // CAP_SYS_NICE or RLIMIT_NICE: then it is joined as it is.
  const sched_param normal{};
  for (std::thread& t : threads_) ::pthread_setschedparam(t.native_handle(), SCHED_OTHER, &normal);
  for (std::thread& t : threads_) t.join();
}

void IdleSpinners::spin(Shared& s, int cpu) noexcept {
  // Without its CPU or the idle policy a spinner would compete with the program: give up.
  if (!pin_thread_to(cpu)) return;
  const sched_param param{};
  if (::sched_setscheduler(0, SCHED_IDLE, &param) != 0) return;
  ParkWatch watch(s.stops.load(), monotonic_ns());
  while (!s.quit.load(std::memory_order_relaxed)) {
    const std::uint64_t stops = s.stops.load(std::memory_order_relaxed);
    if (watch.should_park(stops, monotonic_ns())) {
      const std::uint32_t generation = s.generation.load();
      s.parked.fetch_add(1);
      // Re-checked after announcing the park: a stop between the two is either seen here
      // or made touch() bump the generation, so the wait cannot miss it. A wake has already
      // taken this one off the count; not waiting, it takes itself off, unless a wake did.
      if (s.stops.load() == stops && !s.quit.load()) {
        s.generation.wait(generation);
      } else {
        int parked = s.parked.load();
        while (parked > 0 && !s.parked.compare_exchange_weak(parked, parked - 1)) {
        }
      }
      watch.restart(s.stops.load(), monotonic_ns());
    }
    relax();
  }
}

}  // namespace iobench::tracing
