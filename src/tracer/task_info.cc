#include "tracer/task_info.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/kcmp.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/unique_fd.h"

namespace iobench::tracing {

namespace {

/// The start of /proc/TID/<file>, NUL-terminated, into buf; false when it cannot be read.
bool read_proc(pid_t tid, const char* file, char* buf, std::size_t size) noexcept {
  char path[64];
  (void)std::snprintf(path, sizeof(path), "/proc/%d/%s", tid, file);
  UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd) return false;
  const ssize_t n = ::read(fd.get(), buf, size - 1);
  if (n <= 0) return false;
  buf[n] = '\0';
  return true;
}

}  // namespace

TaskIds read_task_ids(pid_t tid) noexcept {
  TaskIds ids;
  char buf[4096];  // both fields sit in the first few lines
  if (!read_proc(tid, "status", buf, sizeof(buf))) return ids;
  auto field = [&buf](const char* name) {
    const char* p = std::strstr(buf, name);
    return p == nullptr ? 0 : static_cast<pid_t>(std::strtol(p + std::strlen(name), nullptr, 10));
  };
  ids.tgid = field("\nTgid:");
  ids.ppid = field("\nPPid:");
  return ids;
}

std::string read_comm(pid_t tid) {
  char buf[64];  // TASK_COMM_LEN is 16
  if (!read_proc(tid, "comm", buf, sizeof(buf))) return {};
  std::string name(buf);
  if (!name.empty() && name.back() == '\n') name.pop_back();  // the kernel's, not the name's
  return name;
}

std::string read_exe(pid_t tid) {
  char path[PATH_MAX];
  const std::string link = "/proc/" + std::to_string(tid) + "/exe";
  const ssize_t n = ::readlink(link.c_str(), path, sizeof(path));
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
}

bool catches_signal(pid_t tid, int sig) noexcept {
  char buf[4096];
  if (!read_proc(tid, "status", buf, sizeof(buf))) return false;
  const char* p = std::strstr(buf, "\nSigCgt:");
  if (p == nullptr || sig < 1 || sig > 64) return false;
  const unsigned long long caught = std::strtoull(p + 8, nullptr, 16);
  return ((caught >> (sig - 1)) & 1U) != 0;
}

int last_cpu(pid_t tid) noexcept {
  char buf[1024];
  if (!read_proc(tid, "stat", buf, sizeof(buf))) return -1;
  // The name (field 2) may hold spaces and parentheses: count from the last ')'.
  const char* p = std::strrchr(buf, ')');
  for (int field = 2; p != nullptr && *p != '\0'; ++p) {
    if (*p == ' ' && ++field == 39) return static_cast<int>(std::strtol(p + 1, nullptr, 10));
  }
  return -1;
}

bool separate_fd_tables(pid_t a, pid_t b) noexcept {
  return ::syscall(SYS_kcmp, a, b, KCMP_FILES, 0, 0) > 0;
}

std::optional<std::uint64_t> peek_word(pid_t tid, std::uint64_t addr) noexcept {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the address is in the tracee.
  void* at = reinterpret_cast<void*>(static_cast<std::uintptr_t>(addr));
  errno = 0;  // PEEKDATA returns the word itself: only errno tells a failure
  const long word = ::ptrace(PTRACE_PEEKDATA, tid, at, nullptr);
  if (errno != 0) return std::nullopt;
  return static_cast<std::uint64_t>(word);
}

bool ring_setup_has_sqpoll(pid_t tid, std::uint64_t params) noexcept {
  const std::optional<std::uint64_t> word =
      peek_word(tid, params + offsetof(io_uring_params, flags));
  if (!word) return false;  // the kernel fails the setup with EFAULT
  std::uint32_t flags = 0;
  std::memcpy(&flags, &*word, sizeof(flags));  // the word's first bytes, either endianness
  return (flags & IORING_SETUP_SQPOLL) != 0;
}

}  // namespace iobench::tracing
