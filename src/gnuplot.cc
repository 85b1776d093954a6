#include "gnuplot.h"

#include "presentation.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "error.h"
#include "interrupt.h"

namespace iobench {
namespace {

constexpr const char* kMissing = "--plot needs gnuplot (apt-get install gnuplot-nox)";

bool executable(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  for (;;) {
    std::size_t colon = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/gnuplot";
    if (executable(candidate)) return candidate;
    if (colon == std::string::npos) return "";
    start = colon + 1;
  }
}

void require_gnuplot() {
  if (find_gnuplot().empty()) throw Error(kMissing);
}

void check_plot_option(const std::string& path) {
  require_gnuplot();
  if (path.empty()) throw Error("--plot: needs a file name (e.g. --plot chart.svg)");
  check_output_file("--plot", path);
}

std::string run_gnuplot(const std::string& script) {
  const std::string program = find_gnuplot();
  if (program.empty()) throw Error(kMissing, kExitRunFailed);
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw_errno("pipe", errno, kExitRunFailed);
  if (::pipe2(out, O_CLOEXEC) != 0) throw_errno("pipe", errno, kExitRunFailed);
  if (::pipe2(err, O_CLOEXEC) != 0) throw_errno("pipe", errno, kExitRunFailed);
  pid_t pid = ::fork();
  if (pid < 0) throw_errno("fork", errno, kExitRunFailed);
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    (void)::signal(SIGPIPE, SIG_DFL);  // SIG_IGN would survive exec
    ::execl(program.c_str(), "gnuplot", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  int to = in[1], from = out[0], errors = err[0];
  // Feed the script and drain both outputs together: a pipe holds 64 KiB, and gnuplot may
  // write before it has read everything.
  std::string svg, messages;
  std::size_t sent = 0;
  if (script.empty()) close_fd(to);
  while (from >= 0 || errors >= 0) {
    pollfd fds[3] = {{to, POLLOUT, 0}, {from, POLLIN, 0}, {errors, POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR && interrupt_signal()) break;
      continue;
    }
    if (to >= 0 && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = ::write(to, script.data() + sent, script.size() - sent);
      if (n > 0) sent += static_cast<std::size_t>(n);
      if (n < 0 || sent == script.size()) close_fd(to);  // EOF ends gnuplot's input
    }
    for (int k : {1, 2}) {
      int& fd = k == 1 ? from : errors;
      if (fd < 0 || !(fds[k].revents & (POLLIN | POLLERR | POLLHUP))) continue;
      char buf[65536];
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0)
        (k == 1 ? svg : messages).append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR)
        close_fd(fd);
    }
  }
  close_fd(to);
  close_fd(from);
  close_fd(errors);
  if (interrupt_signal()) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  throw_if_interrupted();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || svg.empty()) {
    // gnuplot echoes the failing line and a caret; the line naming the problem is the last.
    std::string why;
    std::size_t end = messages.find_last_not_of(" \n");
    if (end != std::string::npos) {
      std::size_t begin = messages.rfind('\n', end);
      why = messages.substr(begin == std::string::npos ? 0 : begin + 1,
                            end + 1 - (begin == std::string::npos ? 0 : begin + 1));
    }
    throw Error("gnuplot failed" + (why.empty() ? std::string() : ": " + why), kExitRunFailed);
  }
  return svg;
}

void write_plot(const std::string& path, const std::string& script) {
  const std::string svg = run_gnuplot(script);
  write_file_atomically(path, svg, "--plot: ");
}

}  // namespace iobench
