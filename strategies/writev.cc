// writev: gather I/O, as fio's vsync engine does. Each line is its own iovec, as it would be
// if the lines lived in separate places, and params.batch of them (IOV_MAX by default, the
// most one call accepts) go to the kernel in one writev(2). It shows that a syscall can
// carry many buffers without the program first copying them into one.
// Honest best of the idea: lines are formatted once into a reused staging area (no
// allocation per line), a call always carries a full batch, and a partial write resumes
// where the kernel stopped instead of rewriting the batch.
// --sync every:N syncs after every N writev calls. No --direct: O_DIRECT needs every iovec
// aligned, and a line per iovec is the idea.
#include <sys/uio.h>

#include <cerrno>
#include <memory>
#include <new>

#include "strategies/strategy.h"
#include "strategies/support/direct_io.h"
#include "strategies/support/line_format.h"
#include "strategies/support/sync_policy.h"

namespace iobench {
namespace {

/// Writes all of iov[0..count), advancing past what each call accepted. Modifies iov.
/// Returns 0 or an errno value.
int writev_all(int fd, iovec* iov, std::size_t count) noexcept {
  while (count > 0) {
    const ssize_t n = ::writev(fd, iov, static_cast<int>(count));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;  // a regular file never legitimately accepts nothing
    auto left = static_cast<std::size_t>(n);
    while (count > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov;
      --count;
    }
    if (count > 0) {  // the kernel stopped inside this iovec
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return 0;
}

StrategyOutcome run(const WriteJob& job) noexcept {
  const std::size_t batch = job.params.batch;
  // More than IOV_MAX would only turn every call into EINVAL.
  if (batch == 0 || batch > IOV_MAX)
    return outcome_message(RunStatus::kFailed, "batch must be 1..IOV_MAX");
  if (job.params.direct)
    return direct_unsupported("O_DIRECT needs every iovec block-aligned; here each is one line");

  const int fd = create_output(job);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);

  const LineFormat format = line_format(job.params);
  std::unique_ptr<char[]> staging(new (std::nothrow) char[batch * format.max_bytes()]);
  std::unique_ptr<iovec[]> iov(new (std::nothrow) iovec[batch]);
  if (!staging || !iov) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);
  Syncer syncer(file.fd(), job.params.sync);

  const std::uint64_t lines = job.params.lines;
  for (std::uint64_t i = 0; i < lines;) {
    std::size_t count = 0;
    char* p = staging.get();
    for (; count < batch && i < lines; ++count, ++i) {
      const std::size_t n = format.format(p, i);
      iov[count] = {p, n};
      p += n;
    }
    if (int err = writev_all(file.fd(), iov.get(), count))
      return outcome_errno(RunStatus::kFailed, "writev", err);
    if (int err = syncer.unit_done()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  }
  if (int err = syncer.before_close()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

}  // namespace

// The knobs it reads (strategies/knobs.cc).
constexpr std::string_view kKnobs[] = {"batch", "sync", "direct"};

extern const Strategy kWritev = {
    .name = "writev",
    .description = "writev(2) of batch (IOV_MAX) lines, one iovec per line",
    .run = run,
    .knobs = kKnobs};

}  // namespace iobench
