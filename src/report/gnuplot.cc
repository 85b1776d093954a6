#include "report/gnuplot.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "base/error.h"
#include "base/interrupt.h"
#include "base/process.h"
#include "base/program_path.h"
#include "base/unique_fd.h"
#include "report/plot.h"
#include "report/presentation.h"

namespace iobench {
namespace {

constexpr const char* kMissing = "--plot needs gnuplot (apt-get install gnuplot-nox)";

struct Pipe {
  UniqueFd read, write;
};

Pipe make_pipe() {
  int fds[2];
  // O_CLOEXEC: only the ends dup2'd onto gnuplot's 0, 1 and 2 reach it.
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe", errno, kExitRunFailed);
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

/// gnuplot running with its stdin, stdout and stderr on pipes; our ends of them.
struct Gnuplot {
  pid_t pid = -1;
  UniqueFd to, from, errors;
};

Gnuplot spawn_gnuplot(const std::string& program) {
  Pipe in = make_pipe(), out = make_pipe(), err = make_pipe();
  // Our end of gnuplot's stdin does not block: a write to a full blocking pipe waits for
  // room while gnuplot, its stderr full, waits for us to read (poll's POLLOUT promises only
  // some room, not room for the rest of the script).
  if (::fcntl(in.write.get(), F_SETFL, O_NONBLOCK) != 0)
    throw_errno("fcntl", errno, kExitRunFailed);
  const pid_t pid = ::fork();
  if (pid < 0) throw_spawn_error("fork for gnuplot", errno);
  if (pid == 0) {
    ::dup2(in.read.get(), 0);
    ::dup2(out.write.get(), 1);
    ::dup2(err.write.get(), 2);
    (void)::signal(SIGPIPE, SIG_DFL);  // SIG_IGN would survive exec
    ::execl(program.c_str(), "gnuplot", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return {pid, std::move(in.write), std::move(out.read), std::move(err.read)};
}

/// What gnuplot wrote: the image on stdout (SVG text, PNG or PDF bytes), its messages on
/// stderr.
struct GnuplotOutput {
  std::string bytes, messages;
};

/// Feeds the script and drains both outputs together: a pipe holds 64 KiB, and gnuplot may
/// write before it has read everything. Returns early on SIGINT/SIGTERM.
GnuplotOutput exchange(Gnuplot& g, const std::string& script) {
  GnuplotOutput got;
  std::size_t sent = 0;
  if (script.empty()) g.to.reset();
  while (g.from || g.errors) {
    pollfd fds[3] = {
        {g.to.get(), POLLOUT, 0}, {g.from.get(), POLLIN, 0}, {g.errors.get(), POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR && interrupt_signal()) break;
      continue;
    }
    if (g.to && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = ::write(g.to.get(), script.data() + sent, script.size() - sent);
      if (n > 0) sent += static_cast<std::size_t>(n);
      const bool full = n < 0 && (errno == EAGAIN || errno == EINTR);
      if ((n < 0 && !full) || sent == script.size()) g.to.reset();  // EOF ends gnuplot's input
    }
    for (int k : {1, 2}) {
      UniqueFd& fd = k == 1 ? g.from : g.errors;
      if (!fd || !(fds[k].revents & (POLLIN | POLLERR | POLLHUP))) continue;
      char buf[65536];
      ssize_t n = ::read(fd.get(), buf, sizeof buf);
      if (n > 0)
        (k == 1 ? got.bytes : got.messages).append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR)
        fd.reset();
    }
  }
  return got;
}

/// gnuplot echoes the failing line and a caret; the line naming the problem is the last.
std::string last_line(const std::string& messages) {
  const std::size_t end = messages.find_last_not_of(" \n");
  if (end == std::string::npos) return "";
  const std::size_t newline = messages.rfind('\n', end);
  const std::size_t begin = newline == std::string::npos ? 0 : newline + 1;
  return messages.substr(begin, end + 1 - begin);
}

}  // namespace

std::string find_gnuplot() { return find_program("gnuplot"); }

void require_gnuplot() {
  if (find_gnuplot().empty()) throw Error(kMissing);
}

void check_plot_option(const std::string& path) {
  require_gnuplot();
  if (path.empty()) throw Error("--plot: needs a file name (e.g. --plot chart.svg)");
  check_output_file("--plot", path);
  (void)plot_terminal(path);  // the extension names a format gnuplot draws
}

std::string run_gnuplot(const std::string& script) {
  const std::string program = find_gnuplot();
  if (program.empty()) throw Error(kMissing, kExitRunFailed);
  Gnuplot g = spawn_gnuplot(program);
  const GnuplotOutput got = exchange(g, script);
  g.to.reset();
  g.from.reset();
  g.errors.reset();
  if (interrupt_signal()) ::kill(g.pid, SIGKILL);
  int status = 0;
  while (::waitpid(g.pid, &status, 0) < 0 && errno == EINTR) {
  }
  throw_if_interrupted();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got.bytes.empty()) {
    const std::string why = last_line(got.messages);
    throw Error("gnuplot failed" + (why.empty() ? std::string() : ": " + why), kExitRunFailed);
  }
  return got.bytes;
}

void write_plot(const std::string& path, const std::string& script) {
  std::string image;
  try {
    image = run_gnuplot(plot_terminal(path) + script);
  } catch (const Error& e) {
    // The chart is an output like the others: its failure must not cost the verdicts, the
    // baseline comparison or the JUnit file still to come. An interrupt still ends the run.
    if (e.exit_status() != kExitRunFailed) throw;
    note_output_failure(std::string("--plot: ") + e.what());
    return;
  }
  write_output(path, image, "--plot: ");
}

}  // namespace iobench
