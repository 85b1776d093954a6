#include "strategies/support/direct_io.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace iobench {
namespace {

// Where statx cannot say (kernels before 6.1, filesystems that do not fill STATX_DIOALIGN):
// a page, which every logical block size divides.
constexpr std::size_t kFallbackAlign = 4096;

std::size_t page_size() noexcept {
  const long page = ::sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<std::size_t>(page) : kFallbackAlign;
}

int fail_closed(int fd, StrategyOutcome* out, StrategyOutcome outcome) noexcept {
  ::close(fd);
  *out = outcome;
  return -1;
}

}  // namespace

int create_direct_output(const WriteJob& job, std::size_t* align, StrategyOutcome* out) noexcept {
  const int fd = create_output(job, O_DIRECT);
  if (fd < 0) {
    const int err = errno;
    *out = err == EINVAL ? outcome_message(RunStatus::kUnsupported,
                                           "--direct: the filesystem refuses O_DIRECT (EINVAL)")
                         : outcome_errno(RunStatus::kFailed, "open", err);
    return -1;
  }
  struct statfs fs {};
  if (::fstatfs(fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC) {
    // Newer kernels accept O_DIRECT on tmpfs and copy through its page cache anyway: there is
    // no device underneath, so "direct" would only be a label.
    return fail_closed(fd, out,
                       outcome_message(RunStatus::kUnsupported,
                                       "--direct: tmpfs keeps files in memory; nothing to bypass"));
  }
  std::size_t need = kFallbackAlign;
  struct statx sx {};
  if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN)) {
    if (sx.stx_dio_offset_align == 0) {
      return fail_closed(fd, out,
                         outcome_message(RunStatus::kUnsupported,
                                         "--direct: the filesystem reports no direct I/O support"));
    }
    need = std::max<std::size_t>(sx.stx_dio_offset_align, sx.stx_dio_mem_align);
  }
  *align = need;
  return fd;
}

int create_job_output(const WriteJob& job, std::size_t* align, StrategyOutcome* out,
                      int extra_flags) noexcept {
  if (job.params.direct) return create_direct_output(job, align, out);
  *align = 1;
  const int fd = create_output(job, extra_flags);
  if (fd < 0) *out = outcome_errno(RunStatus::kFailed, "open", errno);
  return fd;
}

int create_chunked_output(const WriteJob& job, std::size_t chunk, std::size_t* align,
                          StrategyOutcome* out) noexcept {
  const int fd = create_job_output(job, align, out);
  if (fd < 0 || chunk % *align == 0) return fd;
  ::close(fd);
  char why[120];
  std::snprintf(why, sizeof why,
                "buffer_size %zu is not a multiple of the direct I/O alignment %zu", chunk, *align);
  *out = direct_unsupported(why);
  return -1;
}

StrategyOutcome direct_unsupported(const char* why) noexcept {
  char message[sizeof(StrategyOutcome::message)];
  std::snprintf(message, sizeof message, "--direct: %s", why);
  return outcome_message(RunStatus::kUnsupported, message);
}

int finish_direct(int fd, std::uint64_t exact_size) noexcept {
  return ::ftruncate(fd, static_cast<off_t>(exact_size)) < 0 ? errno : 0;
}

StrategyOutcome finish_output(const WriteJob& job, std::size_t align, Syncer& syncer,
                              OutputFile& file) noexcept {
  if (job.params.direct && job.expected_bytes % align != 0) {
    if (int err = finish_direct(file.fd(), job.expected_bytes))
      return outcome_errno(RunStatus::kFailed, "ftruncate", err);
  }
  if (int err = syncer.before_close()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

bool AlignedBuffer::allocate(std::size_t size, std::size_t align) noexcept {
  std::free(data_);
  data_ = nullptr;
  void* p = nullptr;
  if (align <= 1) {
    p = std::malloc(std::max<std::size_t>(size, 1));
  } else if (::posix_memalign(&p, std::max(align, page_size()), std::max<std::size_t>(size, 1)) !=
             0) {
    p = nullptr;
  }
  data_ = static_cast<char*>(p);
  return p != nullptr;
}

}  // namespace iobench
