#include "tracer/cpu_follow.h"

#include "tracer/cpu_pin.h"
#include "tracer/task_info.h"

namespace iobench::tracing {

CpuFollow::CpuFollow(bool enable) noexcept {
  if (!enable || ::sched_getaffinity(0, sizeof(original_), &original_) != 0) return;
  enabled_ = CPU_COUNT(&original_) >= 2;
}

CpuFollow::~CpuFollow() {
  if (moved_) ::sched_setaffinity(0, sizeof(original_), &original_);
}

void CpuFollow::after_stop(pid_t tid) noexcept {
  if (!enabled_ || ++stops_ % kEvery != 0) return;
  const int cpu = last_cpu(tid);
  if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &original_) || cpu == ::sched_getcpu())
    return;
  if (!pin_thread_to(cpu)) return;
  moved_ = true;
  ++moves_;
}

}  // namespace iobench::tracing
