// process_tree READY_PATH: starts a sleeper child and a daemon sleeper (fork, setsid, fork),
// creates READY_PATH once both are running, then sleeps forever. All three ignore SIGINT,
// SIGTERM and SIGHUP, so only SIGKILL ends them, and none calls exec, so every one of them
// has READY_PATH in its /proc/PID/cmdline: a test finds survivors by it.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>

namespace {

[[noreturn]] void sleep_forever() {
  for (;;) ::pause();
}

void say_ready(int fd) {
  while (::write(fd, "r", 1) < 0 && errno == EINTR) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_IGN);
  int ready[2];
  if (::pipe(ready) != 0) return 100;
  if (::fork() == 0) {
    say_ready(ready[1]);
    sleep_forever();
  }
  const pid_t middle = ::fork();
  if (middle == 0) {
    ::setsid();  // out of our process group: a group kill does not reach it
    if (::fork() == 0) {
      say_ready(ready[1]);
      sleep_forever();
    }
    ::_exit(0);  // the daemon is now an orphan
  }
  ::waitpid(middle, nullptr, 0);
  char c = 0;
  for (int seen = 0; seen < 2;) {
    const ssize_t n = ::read(ready[0], &c, 1);
    if (n == 1) ++seen;
    if (n == 0 || (n < 0 && errno != EINTR)) return 101;
  }
  const int fd = ::open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return 102;
  ::close(fd);
  sleep_forever();
}
