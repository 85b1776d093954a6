// deny SYSCALL[,SYSCALL...] COMMAND [ARGS...]: runs COMMAND under a seccomp policy that fails
// the named syscalls with EPERM, as a container runtime's default profile does. Used to test
// that iobench degrades (io_uring refused, ptrace refused, seccomp refused) instead of dying.
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: deny SYSCALL[,SYSCALL...] COMMAND [ARGS...]\n");
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  std::string list = argv[1];
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr == __NR_SCMP_ERROR || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) != 0) {
      std::fprintf(stderr, "deny: unknown syscall %s\n", name.c_str());
      return 2;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (seccomp_load(ctx) != 0) {
    std::perror("deny: seccomp_load");
    return 2;
  }
  execvp(argv[2], argv + 2);
  std::perror("deny: exec");
  return 127;
}
