// daemon_writer PATH K: writes one line to PATH itself, and starts a daemon (fork, setsid,
// fork: the classic double fork) that writes K more lines, one write(2) each, only after
// this process has exited. Exactly K + 1 write calls in all, most of them by a process that
// is no longer a descendant of whoever started this one (it was reparented).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace {

void write_lines(int fd, long n) {
  char line[13];
  for (long i = 0; i < n; ++i) {
    std::snprintf(line, sizeof line, "line %06ld\n", i % 1000000);
    if (::write(fd, line, 12) != 12) std::_Exit(101);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const long k = std::strtol(argv[2], nullptr, 10);
  const int fd = ::open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  int gate[2];
  if (fd < 0 || ::pipe2(gate, O_CLOEXEC) != 0) return 100;
  const pid_t middle = ::fork();
  if (middle == 0) {
    ::setsid();  // leaves our process group and session, as a daemon does
    if (::fork() == 0) {
      ::close(gate[1]);
      char c = 0;
      // EOF once the last holder of the write end, the first process, has exited.
      for (ssize_t n; (n = ::read(gate[0], &c, 1)) != 0;)
        if (n < 0 && errno != EINTR) break;
      write_lines(fd, k);
      ::_exit(0);
    }
    ::_exit(0);  // the daemon is now an orphan
  }
  ::waitpid(middle, nullptr, 0);
  write_lines(fd, 1);
  return 0;  // exiting closes the gate: the daemon starts writing
}
