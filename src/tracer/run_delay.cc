#include "tracer/run_delay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace iobench::tracing {

RunDelay::RunDelay(pid_t tid) noexcept {
  char path[64];
  if (tid == 0) {
    (void)std::snprintf(path, sizeof(path), "/proc/thread-self/schedstat");
  } else {
    (void)std::snprintf(path, sizeof(path), "/proc/%d/schedstat", tid);
  }
  fd_.reset(::open(path, O_RDONLY | O_CLOEXEC));
}

std::int64_t RunDelay::read() const noexcept { return read_times().wait; }

RunDelay::Times RunDelay::read_times() const noexcept {
  Times t;
  if (!fd_) return t;
  // "<sum_exec_runtime> <run_delay> <timeslices>\n"
  char buf[96];
  const ssize_t n = ::pread(fd_.get(), buf, sizeof(buf) - 1, 0);
  if (n <= 0) return t;
  buf[n] = '\0';
  const char* p = buf;
  for (; *p >= '0' && *p <= '9'; ++p) t.cpu = t.cpu * 10 + (*p - '0');
  if (*p == ' ') ++p;
  for (; *p >= '0' && *p <= '9'; ++p) t.wait = t.wait * 10 + (*p - '0');
  if (*p == ' ') ++p;
  for (; *p >= '0' && *p <= '9'; ++p) t.slices = t.slices * 10 + (*p - '0');
  return t;
}

}  // namespace iobench::tracing
