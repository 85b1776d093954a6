#include "tracer/cpu_pin.h"

namespace iobench::tracing {

bool pin_thread_to(int cpu) noexcept {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return ::sched_setaffinity(0, sizeof(one), &one) == 0;
}

CpuPin::CpuPin(bool enable) noexcept {
  if (!enable) return;
  if (::sched_getaffinity(0, sizeof(original_), &original_) != 0) return;
  const int cpu = ::sched_getcpu();
  // The CPU we run on is normally in our mask; if it is not (the mask just changed),
  // pinning there would fail, so leave the scheduler alone.
  if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &original_)) return;
  if (!pin_thread_to(cpu)) return;
  pinned_ = true;
  cpu_ = cpu;
}

CpuPin::~CpuPin() {
  if (pinned_) ::sched_setaffinity(0, sizeof(original_), &original_);
}

}  // namespace iobench::tracing
