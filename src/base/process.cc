#include "base/process.h"

#include <dirent.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "base/capabilities.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "base/monotonic_clock.h"

namespace iobench {

namespace {

// __WALL: a reparented orphan that was a clone() child with another exit signal still counts.
constexpr int kWaitAll = __WALL;

int open_pidfd(pid_t pid) noexcept { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

/// The children of every thread of `pid` (a reparented orphan may hang off any of our
/// threads), read from /proc/PID/task/TID/children. Empty once `pid` is gone.
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = ::opendir(task_dir.c_str());
  if (dir == nullptr) return out;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(task_dir + "/" + e->d_name + "/children");
    for (pid_t child = 0; in >> child;) out.push_back(child);
  }
  ::closedir(dir);
  return out;
}

/// Our children first, then theirs, and so on: the whole tree below us.
std::vector<pid_t> descendants_of_self() {
  std::vector<pid_t> all = children_of(::getpid());
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (pid_t grandchild : children_of(all[i]))
      if (std::find(all.begin(), all.end(), grandchild) == all.end()) all.push_back(grandchild);
  }
  return all;
}

/// SIGINT, SIGTERM and SIGHUP stay blocked while we wait, and ppoll unblocks them only
/// inside the wait: a signal can then never land between the flag check and the poll.
class InterruptWindow {
 public:
  InterruptWindow() {
    sigset_t stop;
    ::sigemptyset(&stop);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaddset(&stop, sig);
    ::pthread_sigmask(SIG_BLOCK, &stop, &old_);
  }
  ~InterruptWindow() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  InterruptWindow(const InterruptWindow&) = delete;
  InterruptWindow& operator=(const InterruptWindow&) = delete;
  const sigset_t& during_wait() const noexcept { return old_; }

 private:
  sigset_t old_{};
};

enum class Wake { kReady, kTimedOut, kInterrupted };

/// Waits until `fd` (a pidfd: readable once the process has exited) is readable, the
/// deadline passes, or a signal asks us to stop. `on_wake` runs after each signal that did
/// not (a held Ctrl-C).
Wake wait_readable(int fd, ProcessTree::Deadline deadline, const sigset_t& during,
                   const std::function<void()>& on_wake = {}) {
  for (;;) {
    if (on_wake) on_wake();
    if (interrupt_signal() != 0) return Wake::kInterrupted;
    timespec left{};
    timespec* timeout = nullptr;
    if (deadline) {
      const auto ns =
          std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        *deadline - std::chrono::steady_clock::now())
                                        .count());
      left = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
      timeout = &left;
    }
    pollfd pfd{fd, POLLIN, 0};
    const int r = ::ppoll(&pfd, 1, timeout, &during);
    if (r > 0) return Wake::kReady;
    if (r == 0) return Wake::kTimedOut;
    if (errno != EINTR) throw_errno("ppoll", errno, kExitRunFailed);
  }
}

}  // namespace

void require_proc_of_our_pid_namespace() {
  char self[32] = {};
  const ssize_t n = ::readlink("/proc/self", self, sizeof(self) - 1);
  if (n <= 0) throw Error("/proc is not mounted: iobench follows its runs through /proc/PID");
  const std::string ours = std::to_string(::getpid());
  if (std::string(self, static_cast<std::size_t>(n)) != ours)
    throw Error(fmt::format(
        "/proc belongs to another PID namespace (iobench is pid {} here, /proc/self is {}): "
        "mount this namespace's own, as `unshare --pid --fork --mount-proc` does",
        ours, std::string(self, static_cast<std::size_t>(n))));
}

void become_child_subreaper() {
  static const bool done = [] {
    // Best effort: without it (a kernel before 3.4) an orphan goes to init and only what is
    // still below our child can be found.
    (void)::prctl(PR_SET_CHILD_SUBREAPER, 1);
    return true;
  }();
  (void)done;
}

pid_t fork_tree() {
  become_child_subreaper();
  const pid_t pid = ::fork();
  if (pid == 0) drop_file_capabilities();  // iobench's own privileges stay iobench's
  return pid;
}

void throw_spawn_error(const std::string& what, int err) {
  // EAGAIN from fork or clone is nearly always RLIMIT_NPROC (ulimit -u), which counts every
  // process and thread of the user, not only ours: the hint names it.
  throw Error(
      fmt::format("{}: {}{}", what, std::strerror(err), err == EAGAIN ? " (RLIMIT_NPROC?)" : ""),
      kExitRunFailed);
}

ProcessTree::Deadline deadline_after(std::optional<std::chrono::nanoseconds> timeout) {
  if (!timeout) return std::nullopt;
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(*timeout);
}

ProcessTree::ProcessTree(pid_t pid, PassOn first_interrupt)
    : pid_(pid), pidfd_(open_pidfd(pid)), first_interrupt_(std::move(first_interrupt)) {
  become_child_subreaper();  // fork_tree() did it already; a caller that forked itself is late
  if (!pidfd_) {
    const int err = errno;
    kill_and_reap();
    done_ = true;
    throw_errno("pidfd_open", err, kExitRunFailed);
  }
  if (first_interrupt_) held_.emplace(pid_);
}

ProcessTree::~ProcessTree() {
  if (!done_) kill_and_reap();
}

TreeEnd ProcessTree::wait(Deadline deadline) {
  InterruptWindow window;
  end_ = TreeEnd{};
  // A SIGINT held before the window is passed on at the first wake, which comes at once.
  const auto pass_on = [&] {
    if (!held_) return;
    if (const auto sender = held_->take()) first_interrupt_(*sender);
  };
  switch (wait_readable(pidfd_.get(), deadline, window.during_wait(), pass_on)) {
    case Wake::kReady:
      held_.reset();  // the main child is gone: a SIGINT from now on stops us
      end_.main_exit_ns = monotonic_ns();
      reap_zombies();
      break;
    case Wake::kTimedOut:
      end_.timed_out = true;
      [[fallthrough]];
    case Wake::kInterrupted:
      kill_and_reap();
      end_.main_exit_ns = monotonic_ns();
      break;
  }
  if (!end_.timed_out && interrupt_signal() == 0)
    end_.timed_out = !wait_descendants(deadline, window.during_wait());
  done_ = true;
  throw_if_interrupted();
  return end_;
}

bool ProcessTree::wait_descendants(Deadline deadline, const sigset_t& during) {
  for (;;) {
    reap_zombies();
    const std::vector<pid_t> children = children_of(::getpid());
    if (children.empty()) return true;
    // Every descendant is reparented to us when its parent dies, so waiting for our own
    // children one at a time ends only when the whole tree is gone.
    UniqueFd child(open_pidfd(children.front()));
    if (!child) {
      if (errno == ESRCH) continue;  // reaped meanwhile (it was ours: by us)
      const int err = errno;
      kill_and_reap();
      throw_errno("pidfd_open", err, kExitRunFailed);
    }
    const Wake wake = wait_readable(child.get(), deadline, during);
    if (wake == Wake::kReady) continue;
    kill_and_reap();
    return wake != Wake::kTimedOut;
  }
}

void ProcessTree::reap_zombies() noexcept {
  for (;;) {
    int status = 0;
    rusage usage{};
    const pid_t pid = ::wait4(-1, &status, WNOHANG | kWaitAll, &usage);
    if (pid <= 0) return;
    note_reaped(pid, status, usage);
  }
}

void ProcessTree::note_reaped(pid_t pid, int status, const rusage& usage) noexcept {
  if (pid != pid_) return;
  main_reaped_ = true;
  end_.status = status;
  end_.usage = usage;
  pidfd_.reset();
}

void ProcessTree::kill_and_reap() noexcept {
  try {
    for (;;) {
      reap_zombies();
      if (!main_reaped_ && pidfd_)
        ::syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0);
      const std::vector<pid_t> tree = descendants_of_self();
      if (tree.empty()) return;
      // Our own children cannot be reaped by anyone else, so their pids are theirs; a
      // deeper pid could in theory be reaped and reused between the read and the kill.
      for (pid_t pid : tree) ::kill(pid, SIGKILL);
      // Block on one we have just killed (it will die), then look again: a process may
      // have forked just before it died, and its child is ours now.
      int status = 0;
      rusage usage{};
      pid_t reaped = -1;
      while ((reaped = ::wait4(tree.front(), &status, kWaitAll, &usage)) < 0 && errno == EINTR) {
      }
      if (reaped > 0) note_reaped(reaped, status, usage);
    }
  } catch (...) {
    // No memory to walk the tree: at least the main child dies and is reaped.
    if (main_reaped_) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    rusage usage{};
    while (::wait4(pid_, &status, kWaitAll, &usage) < 0 && errno == EINTR) {
    }
    note_reaped(pid_, status, usage);
  }
}

}  // namespace iobench
