// What the kernel says about a task, asked from outside: /proc, kcmp, the clock.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace iobench::tracing {

struct TaskIds {
  pid_t tgid = 0;  // its process
  pid_t ppid = 0;  // its parent process
};

/// From /proc/TID/status; zeros when the task is gone.
TaskIds read_task_ids(pid_t tid) noexcept;

/// True when kcmp says the two tasks certainly use different fd tables.
bool separate_fd_tables(pid_t a, pid_t b) noexcept;

/// CLOCK_MONOTONIC in ns (vDSO: no syscall, so nothing a tracee would have to count).
std::int64_t monotonic_ns() noexcept;
/// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), in ns.
std::int64_t thread_cpu_ns() noexcept;

}  // namespace iobench::tracing
