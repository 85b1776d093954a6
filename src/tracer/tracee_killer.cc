#include "tracer/tracee_killer.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace iobench::tracing {
namespace {

/// A decimal number at `p` (no sign), or -1 when there is none.
long parse_decimal(const char* p) {
  if (*p < '0' || *p > '9') return -1;
  long v = 0;
  for (; *p >= '0' && *p <= '9'; ++p) v = v * 10 + (*p - '0');
  return v;
}

/// "/proc/PID/status" into `out`, which holds 32 bytes.
void status_path(pid_t pid, char* out) {
  char digits[16];
  int n = 0;
  for (auto v = static_cast<unsigned>(pid); n == 0 || v != 0; v /= 10)
    digits[n++] = static_cast<char>('0' + v % 10);
  char* p = out;
  for (const char* s = "/proc/"; *s != '\0';) *p++ = *s++;
  while (n > 0) *p++ = digits[--n];
  for (const char* s = "/status"; *s != '\0';) *p++ = *s++;
  *p = '\0';
}

struct Status {
  long tracer = -1;  // TracerPid; -1 when the process is gone
  char state = '?';  // Z: a zombie, X: dead
};

Status read_status(pid_t pid) {
  char path[32];
  status_path(pid, path);
  Status st;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return st;
  char buf[1024];  // State and TracerPid are among the first ten lines
  const ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return st;
  buf[n] = '\0';
  if (const char* s = std::strstr(buf, "\nState:\t")) st.state = s[8];
  if (const char* t = std::strstr(buf, "\nTracerPid:\t")) st.tracer = parse_decimal(t + 12);
  return st;
}

/// SIGKILL to `pid` if it is still traced by `tracer`; whether it had not ended yet.
bool kill_if_traced(pid_t pid, pid_t tracer) {
  const auto fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  // No pidfd (before Linux 5.3): by pid. A dead tracee stays a zombie until its tracer
  // reaps it, so the pid is still this process's unless the tracer ran meanwhile.
  const Status st = read_status(pid);
  if (st.tracer != tracer) {
    if (fd >= 0) ::close(fd);
    return false;
  }
  if (fd >= 0) {
    (void)::syscall(SYS_pidfd_send_signal, fd, SIGKILL, nullptr, 0);
    ::close(fd);
  } else {
    (void)::kill(pid, SIGKILL);
  }
  return st.state != 'Z' && st.state != 'X';
}

}  // namespace

int kill_tracees_of(pid_t tracer) noexcept {
  const int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  int alive = 0;
  alignas(dirent64) char buf[4096];
  for (;;) {
    const ssize_t n = ::getdents64(dir, buf, sizeof(buf));
    if (n <= 0) break;
    for (ssize_t at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buf + at);
      at += entry->d_reclen;
      const long pid = parse_decimal(entry->d_name);
      if (pid <= 0 || entry->d_name[std::strspn(entry->d_name, "0123456789")] != '\0') continue;
      // Cheap first: only a tracee is worth a pidfd.
      if (read_status(static_cast<pid_t>(pid)).tracer != tracer) continue;
      if (kill_if_traced(static_cast<pid_t>(pid), tracer)) ++alive;
    }
  }
  ::close(dir);
  return alive;
}

}  // namespace iobench::tracing
