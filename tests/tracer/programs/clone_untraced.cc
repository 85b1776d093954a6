// clone_untraced DIR K: two children made with CLONE_UNTRACED, one by clone(2) and one by
// clone3(2), each writing K lines (DIR/clone, DIR/clone3). Exits 0 only if both children
// exited 0; 10 + n when child n failed, 20 + n when it could not be created.
#include <linux/sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <csignal>
#include <string>

#include "program_util.h"

using namespace iobench::programs;

namespace {

int child_writes(const std::string& path, long k) {
  write_lines(open_out(path.c_str()), k);
  return 0;
}

bool exited_ok(long pid) {
  int status = 0;
  return ::waitpid(static_cast<pid_t>(pid), &status, 0) == pid && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string dir = argv[1];
  const long k = arg_long(argv[2]);

  // Raw clone with no new stack: the child continues on a copy of ours, as after fork.
  const long a = ::syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
  if (a == 0) ::_exit(child_writes(dir + "/clone", k));
  if (a < 0) return 21;
  if (!exited_ok(a)) return 11;

  clone_args args{};
  args.flags = CLONE_UNTRACED;
  args.exit_signal = SIGCHLD;
  const long b = ::syscall(SYS_clone3, &args, sizeof(args));
  if (b == 0) ::_exit(child_writes(dir + "/clone3", k));
  if (b < 0) return 22;
  if (!exited_ok(b)) return 12;
  return 0;
}
