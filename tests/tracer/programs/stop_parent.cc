// stop_parent: stops its parent with SIGSTOP, then waits to be killed. Traced by iobench, it
// stops iobench, every thread of it: only something outside iobench can end it at a timeout.
#include <signal.h>
#include <unistd.h>

int main() {
  if (::kill(::getppid(), SIGSTOP) != 0) return 1;
  for (;;) ::pause();
}
