// The one clock every duration is read from: CLOCK_MONOTONIC, through the vDSO (no syscall,
// so a traced child reading it makes nothing the tracer would have to count).
#pragma once

#include <sys/time.h>
#include <time.h>

#include <cstdint>

namespace iobench {

/// CLOCK_MONOTONIC in ns.
inline std::int64_t monotonic_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

/// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID, vDSO too) in ns.
inline std::int64_t thread_cpu_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

/// A rusage time (user or sys) in ns.
inline std::int64_t to_ns(const timeval& tv) noexcept {
  return std::int64_t{tv.tv_sec} * 1'000'000'000 + std::int64_t{tv.tv_usec} * 1000;
}

}  // namespace iobench
