// restart_writer: a write the kernel restarts. Fills a pipe (non-blocking writes until
// EAGAIN), then makes one blocking write of a byte to it; a child sends it SIGWINCH (ignored
// by default: no handler runs, so the kernel restarts the write, which a tracer sees as
// -ERESTARTSYS), then drains the pipe so that the write completes. Exits with the number of
// writes that filled the pipe; 100 and up when a step failed.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace {

/// Whether `pid` sleeps in write(2) (/proc/PID/syscall starts with its number, 1).
bool in_write(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
  std::FILE* in = std::fopen(path, "re");
  if (in == nullptr) return false;
  char nr[8] = {};
  const bool got = std::fscanf(in, "%7s", nr) == 1;
  std::fclose(in);
  return got && std::strcmp(nr, "1") == 0;
}

void nap_ms(long ms) {
  const timespec ts{0, ms * 1'000'000};
  ::nanosleep(&ts, nullptr);
}

[[noreturn]] void child(pid_t parent, int in) {
  for (int i = 0; i < 5000 && !in_write(parent); ++i) nap_ms(1);
  nap_ms(50);  // asleep in the write, past its tracer's entry stop
  ::kill(parent, SIGWINCH);
  nap_ms(100);  // the write interrupted, its restart asleep again
  char buf[4096];
  while (::read(in, buf, sizeof(buf)) > 0) {
  }
  ::_exit(0);
}

}  // namespace

int main() {
  int p[2];
  if (::pipe(p) != 0 || ::fcntl(p[1], F_SETPIPE_SZ, 4096) < 0) return 100;
  if (::fcntl(p[1], F_SETFL, O_NONBLOCK) != 0) return 101;
  static char block[4096];
  int fills = 0;
  while (::write(p[1], block, sizeof(block)) > 0) ++fills;
  if (errno != EAGAIN || ::fcntl(p[1], F_SETFL, 0) != 0) return 102;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return 103;
  if (pid == 0) {
    ::close(p[1]);
    child(parent, p[0]);
  }
  ::close(p[0]);
  if (::write(p[1], "x", 1) != 1) return 104;
  ::close(p[1]);
  int st = 0;
  if (::waitpid(pid, &st, 0) != pid || st != 0) return 105;
  return fills;
}
