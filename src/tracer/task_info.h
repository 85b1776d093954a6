// What the kernel says about a task, asked from outside: /proc, kcmp, the clock.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace iobench::tracing {

struct TaskIds {
  pid_t tgid = 0;  // its process
  pid_t ppid = 0;  // its parent process
};

/// From /proc/TID/status; zeros when the task is gone.
TaskIds read_task_ids(pid_t tid) noexcept;

/// The task's command name as ps shows it (/proc/TID/comm, without its newline: what the
/// kernel set at its last exec, or a later prctl); empty when the task is gone.
std::string read_comm(pid_t tid);

/// The file of the program the task runs (/proc/TID/exe); empty when it cannot be read.
std::string read_exe(pid_t tid);

/// True when the task's process has a handler for `sig` (/proc/TID/status, SigCgt); false
/// when it has none or cannot be read.
bool catches_signal(pid_t tid, int sig) noexcept;

/// The CPU the task last ran on (/proc/TID/stat, field 39); -1 when it cannot be read.
int last_cpu(pid_t tid) noexcept;

/// True when kcmp says the two tasks certainly use different fd tables.
bool separate_fd_tables(pid_t a, pid_t b) noexcept;

/// One 8-byte word of a stopped tracee's memory (PTRACE_PEEKDATA); nullopt when the address
/// cannot be read (the call it belongs to then fails with EFAULT) or the tracee is gone.
std::optional<std::uint64_t> peek_word(pid_t tid, std::uint64_t addr) noexcept;

/// At io_uring_setup's entry: whether the io_uring_params at `params` ask for SQPOLL.
bool ring_setup_has_sqpoll(pid_t tid, std::uint64_t params) noexcept;

}  // namespace iobench::tracing
