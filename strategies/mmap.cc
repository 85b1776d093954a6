// mmap: no write(2) at all. The final size is known up front, so the file is sized once
// with ftruncate and the lines are formatted straight into a shared mapping of it, one
// window of params.map_window bytes at a time. It shows what a page fault per page costs
// next to a syscall per buffer.
// Honest best of the idea: every byte is formatted in place (only a line straddling a
// window boundary goes through a temporary), each window is mapped and unmapped once, and
// there is no msync: munmap and close leave the dirty pages to writeback exactly as
// write(2) leaves its page-cache pages, so forcing them out would measure the disk instead.
// Memory stays bounded by one window at any N. The price of the idea: a disk that cannot
// back a page (ENOSPC on a sparse file) raises SIGBUS at the store instead of returning an
// errno, and the runner reports the child's signal.
// --sync every:N syncs after every N windows (after each munmap). No --direct: a mapping
// is the page cache itself.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "strategies/strategy.h"
#include "strategies/support/direct_io.h"
#include "strategies/support/exact_stream.h"
#include "strategies/support/line_format.h"
#include "strategies/support/sync_policy.h"

namespace iobench {
namespace {

/// Owns one mapping: unmapped on every early return, or explicitly so an error is seen.
class Mapping {
 public:
  Mapping(void* addr, std::size_t len) noexcept : addr_(addr), len_(len) {}
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (addr_ != MAP_FAILED) ::munmap(addr_, len_);
  }
  char* data() const noexcept { return static_cast<char*>(addr_); }
  /// Returns 0 or an errno value.
  int unmap() noexcept {
    void* addr = addr_;
    addr_ = MAP_FAILED;
    return ::munmap(addr, len_) < 0 ? errno : 0;
  }

 private:
  void* addr_;
  std::size_t len_;
};

StrategyOutcome run(const WriteJob& job) noexcept {
  const std::size_t window = job.params.map_window;  // a page multiple (the CLI checks)
  if (window == 0)
    return outcome_message(RunStatus::kFailed, "map_window must be at least one page");
  if (job.params.direct)
    return direct_unsupported("a shared mapping is the page cache; there is nothing to bypass");

  // O_RDWR: a writable MAP_SHARED mapping needs a readable fd, even if nothing is read.
  const int fd = create_output(job, O_RDWR);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);
  Syncer syncer(file.fd(), job.params.sync);

  const std::uint64_t size = job.expected_bytes;
  // N = 0: nothing to map (mmap of 0 bytes is EINVAL) and the new file is already empty.
  if (size > 0) {
    if (::ftruncate(file.fd(), static_cast<off_t>(size)) < 0)
      return outcome_errno(RunStatus::kFailed, "ftruncate", errno);

    ExactLineStream lines(job.params.lines, line_format(job.params));
    for (std::uint64_t offset = 0; offset < size; offset += window) {
      const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(window, size - offset));
      Mapping map(::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, file.fd(),
                         static_cast<off_t>(offset)),
                  len);
      if (map.data() == MAP_FAILED) return outcome_errno(RunStatus::kFailed, "mmap", errno);
      if (lines.fill(map.data(), map.data() + len) != map.data() + len)
        return outcome_message(RunStatus::kFailed, "expected_bytes is larger than the lines");
      if (int err = map.unmap()) return outcome_errno(RunStatus::kFailed, "munmap", err);
      if (int err = syncer.unit_done()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
    }
    if (!lines.done())
      return outcome_message(RunStatus::kFailed, "expected_bytes is smaller than the lines");
  } else if (job.params.lines > 0) {
    return outcome_message(RunStatus::kFailed, "expected_bytes is smaller than the lines");
  }
  if (int err = syncer.before_close()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

/// No write calls: its cost is page faults, beyond the floor's.
std::string note(const NoteFigures& f) {
  const std::uint64_t faults = f.row.page_faults;
  if (f.bytes == 0)  // nothing to map: every fault is the child's own start-up
    return fmt::format(
        "mmap: no write calls, and at 0 lines nothing to map: its {} page faults are the "
        "child's\n  own start-up (its code, libraries and stack), as in every row.",
        f.count(faults));
  std::string extra;
  if (f.floor && faults > f.floor->page_faults)
    extra = fmt::format(" ({} more than {})", f.count(faults - f.floor->page_faults), f.floor_name);
  return fmt::format(
      "mmap: no write calls: it stores into a shared mapping and the kernel writes the dirty "
      "pages\n  back later. Its cost is {} page faults{}: one per page it first touches.",
      f.count(faults), extra);
}

}  // namespace

// The knobs it reads (strategies/knobs.cc).
constexpr std::string_view kKnobs[] = {"map_window", "sync", "direct"};

extern const Strategy kMmap = {
    .name = "mmap",
    .description = "ftruncate, then format into a MAP_SHARED mapping, map_window at a time",
    .run = run,
    .knobs = kKnobs,
    .footnote = note,
    .note_rank = 1};

}  // namespace iobench
