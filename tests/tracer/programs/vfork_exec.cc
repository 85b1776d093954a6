// vfork_exec WRITER PATH N: one line to PATH.parent, then vfork + exec "WRITER PATH N",
// wait, one more line to PATH.parent. Exits with the writer's status.
#include <sys/wait.h>

#include <string>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const int fd = open_out((std::string(argv[2]) + ".parent").c_str());
  write_lines(fd, 1);
  char* args[] = {argv[1], argv[2], argv[3], nullptr};
  const pid_t child = ::vfork();
  if (child < 0) return 3;
  if (child == 0) {
    ::execv(args[0], args);
    ::_exit(127);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child) return 4;
  write_lines(fd, 1);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
}
