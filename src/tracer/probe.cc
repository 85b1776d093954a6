#include "tracer/probe.h"

#include <sys/ptrace.h>
#include <sys/syscall.h>

#include <algorithm>

namespace iobench::tracing {

#if defined(__x86_64__)
bool arm_probe(pid_t tid, ProbeRegs& saved) noexcept {
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &saved) != 0) return false;
  ProbeRegs r = saved;
  r.rip -= 2;  // back over `syscall` (0f 05), as the kernel's own restart does
  r.rax = SYS_write;
  r.rdi = static_cast<unsigned long long>(static_cast<long long>(kProbeFd));
  r.rsi = 0;
  r.rdx = 0;
  return ::ptrace(PTRACE_SETREGS, tid, nullptr, &r) == 0;
}

bool disarm_probe(pid_t tid, const ProbeRegs& saved) noexcept {
  return ::ptrace(PTRACE_SETREGS, tid, nullptr, &saved) == 0;
}
#else
bool arm_probe(pid_t, ProbeRegs&) noexcept { return false; }
bool disarm_probe(pid_t, const ProbeRegs&) noexcept { return true; }
#endif

void ProbeLevel::add(std::int64_t ns) noexcept { ring_[n_++ % kWindow] = ns; }

std::int64_t ProbeLevel::median() const noexcept {
  const std::size_t k = std::min(n_, kWindow);
  if (k == 0) return 0;
  std::array<std::int64_t, kWindow> v = ring_;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k / 2),
                   v.begin() + static_cast<long>(k));
  return v[k / 2];
}

}  // namespace iobench::tracing
