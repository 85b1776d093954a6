// What this machine allows, asked of the kernel directly and never of iobench. A strategy may
// report `unsupported` only where README says it may (io_uring where rings are refused,
// --direct where the filesystem has no direct I/O); the tests accept that status only where
// these probes agree, so a strategy that wrongly gives up fails its test instead of skipping.
#pragma once

#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

namespace iobench::testing {

/// "" when this process may set up an io_uring ring (with an SQ poller if `sqpoll`); else why not.
inline std::string ring_refused(bool sqpoll) {
  io_uring_params p{};
  if (sqpoll) {
    p.flags = IORING_SETUP_SQPOLL;
    p.sq_thread_idle = 10;
  }
  const long fd = ::syscall(__NR_io_uring_setup, 4, &p);
  if (fd < 0) return std::string("io_uring_setup: ") + std::strerror(errno);
  ::close(static_cast<int>(fd));
  // The strategy needs unregistered files with SQPOLL (5.11 and later).
  if (sqpoll && (p.features & IORING_FEAT_SQPOLL_NONFIXED) == 0) return "SQPOLL needs fixed files";
  return "";
}

/// "" when files in `dir` can be opened with O_DIRECT and are on a device; else why not.
inline std::string direct_refused(const std::string& dir) {
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) == 0 && fs.f_type == TMPFS_MAGIC) return "tmpfs";
  const std::string probe = dir + "/.iobench-direct-probe-" + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
  if (fd < 0) return std::string("O_DIRECT: ") + std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

/// Why `strategy` may report unsupported here, or "" when it must run: the io_uring rows where
/// the kernel refuses the ring, and --direct (for a strategy that honours it) where `dir` cannot.
inline std::string may_be_unsupported(std::string_view strategy, bool direct,
                                      const std::string& dir) {
  if (strategy == "io_uring" || strategy == "io_uring-sqpoll") {
    if (std::string why = ring_refused(strategy == "io_uring-sqpoll"); !why.empty()) return why;
  }
  return direct ? direct_refused(dir) : "";
}

}  // namespace iobench::testing
