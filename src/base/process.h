// Process plumbing shared by every command that runs something: a forked child and every
// process it starts (its "tree"), waited for with a deadline or an interrupt, and killed and
// reaped as a whole. `run`, `compare` and the perf backend all end their runs here, so that
// "nothing escapes" is one piece of code. (The ptrace backend follows its tree itself: every
// process in it is a tracee, and tracer/session.cc kills them by pidfd.)
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/interrupt.h"
#include "base/unique_fd.h"

namespace iobench {

/// Throws Error (exit 2) unless /proc is mounted for our own PID namespace: every tree is
/// followed through /proc/PID, and under `unshare -p -f` without --mount-proc those pids are
/// another namespace's (another process's files and children). Called before anything runs.
void require_proc_of_our_pid_namespace();

/// Makes this process a child subreaper (PR_SET_CHILD_SUBREAPER), once: a descendant whose
/// parent dies (a daemon's double fork and setsid) is reparented to us, not to init, so it
/// can still be found, waited for and killed. ProcessTree calls it; it is idempotent.
void become_child_subreaper();

/// How a tree ended: its main child's wait status and rusage, and whether the deadline hit.
struct TreeEnd {
  int status = 0;                 // raw wait status of the main child
  rusage usage{};                 // the main child's own rusage (wait4), not its descendants'
  bool timed_out = false;         // the deadline passed and the tree was killed
  std::int64_t main_exit_ns = 0;  // CLOCK_MONOTONIC when the main child was seen to exit
};

/// Owns a child the caller has just forked, and everything it starts. The caller must have
/// no other children while a ProcessTree lives: with the subreaper, every child of ours is
/// taken to be part of this tree (iobench runs one tree at a time).
class ProcessTree {
 public:
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;
  /// `trace`'s Ctrl-C for a command no tracer stops (README "Ctrl-C"): given the held first
  /// SIGINT's sender, passes it on to the command unless the command had the same one.
  using PassOn = std::function<void(const SignalSender&)>;

  /// Takes `pid`, a child of ours. On failure (no pidfd) kills and reaps it, then throws.
  /// With `first_interrupt`, the first SIGINT from now on, while the main child lives, is
  /// held for it (FirstInterruptToCommand) and handed to `first_interrupt` in wait(); a second
  /// one stops. Held from here, before the caller lets the child run: a Ctrl-C can never fall
  /// between the command's start and the wait.
  explicit ProcessTree(pid_t pid, PassOn first_interrupt = {});
  /// Kills and reaps whatever is left, so that a throw leaves no process behind.
  ~ProcessTree();
  ProcessTree(const ProcessTree&) = delete;
  ProcessTree& operator=(const ProcessTree&) = delete;

  /// Waits until the main child has exited and then until every descendant is gone (a
  /// daemonised grandchild is still the command's work). Past `deadline` the whole tree is
  /// killed and reaped (timed_out). A SIGINT/SIGTERM/SIGHUP kills and reaps the whole tree,
  /// then throws Interrupted, but for the first SIGINT held for the command (above).
  TreeEnd wait(Deadline deadline);

  pid_t pid() const noexcept { return pid_; }

 private:
  /// False when the deadline passed. Past it, or on a signal, the tree is killed and reaped.
  bool wait_descendants(Deadline deadline, const sigset_t& during);
  void reap_zombies() noexcept;
  void note_reaped(pid_t pid, int status, const rusage& usage) noexcept;
  void kill_and_reap() noexcept;

  pid_t pid_;
  UniqueFd pidfd_;
  PassOn first_interrupt_;
  std::optional<FirstInterruptToCommand> held_;
  TreeEnd end_;
  bool main_reaped_ = false;
  bool done_ = false;  // nothing of the tree is left
};

/// fork(2) for a child whose whole tree we follow: we become a subreaper *before* the child
/// exists, since a child that daemonises at once could otherwise orphan a grandchild to init
/// before the parent got round to prctl. The child drops iobench's file capabilities first
/// (base/capabilities.h). Returns as fork does.
pid_t fork_tree();

/// Throws Error("<what>: <strerror(err)>"), exit status 3, for a fork, clone or thread that
/// could not be started: `what` says what it was for ("fork for the traced run"). EAGAIN,
/// what the user's process limit gives, adds "(RLIMIT_NPROC?)".
[[noreturn]] void throw_spawn_error(const std::string& what, int err);

/// A deadline `timeout` from now, or none.
ProcessTree::Deadline deadline_after(std::optional<std::chrono::nanoseconds> timeout);

}  // namespace iobench
