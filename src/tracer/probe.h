// The in-run probe. At the exit stop of a timed call the tracer makes the tracee run one more
// syscall, write(-1, NULL, 0), which fails at once (EBADF) but stops at the same two places as
// the call it follows; the tracee's CPU time between those stops is the tracer's cost to it,
// measured a microsecond after the call, on the same CPU, at the same clock speed and cache
// state. A cost calibrated once in another process drifts with the machine's load and with
// where the scheduler puts tracer and tracee (the cost per stop changes several-fold between
// one CPU and two); a cost taken next to every timed call cannot.
//
// The injection is the kernel's own syscall-restart mechanism (rewind rip over the 2-byte
// `syscall` instruction) with our registers; every register is restored at the probe's exit
// stop, so the program sees exactly what it would have seen, one syscall's time later.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace iobench::tracing {

#if defined(__x86_64__)
inline constexpr bool kCanProbe = true;
using ProbeRegs = user_regs_struct;
#else
inline constexpr bool kCanProbe = false;  // the fallback: the calibrated cost
struct ProbeRegs {};
#endif

/// The probe's fd: no process can have it, so the call touches nothing.
inline constexpr int kProbeFd = -1;

/// At a syscall-exit stop: saves the registers and points the tracee at write(-1, 0, 0).
/// False (nothing changed) when the registers cannot be read or written.
bool arm_probe(pid_t tid, ProbeRegs& saved) noexcept;
/// At the probe's exit stop (or a signal before it ran): puts every register back.
bool disarm_probe(pid_t tid, const ProbeRegs& saved) noexcept;

/// The tracer's recent cost per stop, robust to the odd probe an interrupt landed in: the
/// median of the last kWindow probes, which follows a change of CPU speed or placement
/// within a few milliseconds of timed calls.
class ProbeLevel {
 public:
  static constexpr std::size_t kWindow = 15;
  void add(std::int64_t ns) noexcept;
  /// 0 before any probe.
  std::int64_t median() const noexcept;

 private:
  std::array<std::int64_t, kWindow> ring_{};
  std::size_t n_ = 0;
};

}  // namespace iobench::tracing
