// without_mount DIR... -- PROGRAM [ARGS...]: runs PROGRAM in a mount namespace of its own in
// which nothing is mounted on any DIR (a fresh machine's /sys/kernel/tracing), leaving the
// machine's mounts alone. Exits 77 when it cannot (not root, no mount namespaces).
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  int sep = 1;
  while (sep < argc && std::strcmp(argv[sep], "--") != 0) ++sep;
  if (sep + 1 >= argc) return 2;
  if (::unshare(CLONE_NEWNS) != 0) {
    std::perror("unshare(CLONE_NEWNS)");
    return 77;
  }
  // Private first: an unmount here must not propagate back to the machine's mounts.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    std::perror("mount --make-rprivate /");
    return 77;
  }
  for (int i = 1; i < sep; ++i) {
    // Every mount stacked there; EINVAL: none (left), ENOENT: no such directory.
    while (::umount2(argv[i], MNT_DETACH) == 0) {
    }
    if (errno != EINVAL && errno != ENOENT) {
      std::perror(argv[i]);
      return 77;
    }
  }
  ::execv(argv[sep + 1], argv + sep + 1);
  std::perror(argv[sep + 1]);
  return 127;
}
