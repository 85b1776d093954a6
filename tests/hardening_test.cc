// Attacks from outside the run, on the real binary: another user racing iobench's files, and
// iobench in a PID namespace as a container or a CI runner starts it.
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "run_process.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::ScratchDir;
using testing::slurp;

bool is_root() { return ::geteuid() == 0; }

std::set<std::string> entries_of(const std::string& dir) {
  std::set<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.insert(n);
    }
    ::closedir(d);
  }
  return names;
}

/// As `user` (a real second user), waits for iobench's private directory to appear in
/// `shared`, renames it to `moved` and plants a link to `target` under its name. Returns the
/// swapper's pid; it exits 0 once it has swapped, 1 if the directory never showed.
pid_t swap_private_dir_for_link(const passwd& user, const std::string& shared,
                                const std::string& target) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  if (::setgroups(0, nullptr) != 0 || ::setgid(user.pw_gid) != 0 || ::setuid(user.pw_uid) != 0)
    ::_exit(2);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < give_up) {
    for (const std::string& n : entries_of(shared)) {
      if (n.rfind("iobench.", 0) != 0) continue;
      const std::string at = shared + "/" + n;
      if (::rename(at.c_str(), (shared + "/moved").c_str()) == 0 &&
          ::symlink(target.c_str(), at.c_str()) == 0)
        ::_exit(0);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ::_exit(1);
}

// Root measures in a directory another user owns. Mid-run that user swaps iobench's private
// directory for a link to a root-only directory: nothing there may be read, made or removed.
TEST(Hardening, ALinkPlantedInPlaceOfThePrivateDirectoryIsNeverFollowed) {
  if (!is_root()) GTEST_SKIP() << "the race needs root to run iobench and a second user";
  const passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user 'nobody' to race as";
  ScratchDir base;
  ASSERT_EQ(::chmod(base.path().c_str(), 0755), 0);
  const std::string shared = base.path() + "/shared", victim = base.path() + "/victim";
  ASSERT_EQ(::mkdir(shared.c_str(), 0755), 0);
  ASSERT_EQ(::chown(shared.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  ASSERT_EQ(::mkdir(victim.c_str(), 0700), 0);
  for (const char* name : {"a", "b", "c"}) std::ofstream(victim + "/" + name) << name << "\n";

  const pid_t swapper = swap_private_dir_for_link(*nobody, shared, victim);
  const ProcessOutput r = iobench({"--lines", "20000", "--strategy", "unbuffered,buffered",
                                   "--runs", "5", "--dir", shared, "--format", "json"});
  int st = 0;
  ASSERT_EQ(::waitpid(swapper, &st, 0), swapper);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "the swap never happened mid-run";

  EXPECT_EQ(entries_of(victim), (std::set<std::string>{"a", "b", "c"}));
  for (const char* name : {"a", "b", "c"})
    EXPECT_EQ(slurp(victim + "/" + name), std::string(name) + "\n");
  EXPECT_EQ(entries_of(shared + "/moved"), std::set<std::string>{});
  // Swapped mid-run, the run goes on in its own directory wherever it was moved; swapped in
  // the microseconds between its making and its opening, it is refused before anything ran.
  if (r.status == 2) {
    EXPECT_NE(r.err.find("was replaced before it could be opened"), std::string::npos) << r.err;
  } else {
    EXPECT_EQ(r.status, 0) << r.err;
  }
}

}  // namespace
}  // namespace iobench
