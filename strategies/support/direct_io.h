// --direct: O_DIRECT for the strategies that can honour it (buffered, io_uring,
// io_uring-sqpoll, single-write; format-only opens the same way and writes nothing). Every
// write's file offset, length and buffer address must be a multiple of the filesystem's
// direct-I/O alignment, so those strategies write whole aligned blocks only.
//
// The final partial block: padded with zeros to the alignment, written with O_DIRECT like
// every other block, then the file is cut back to its exact size with one ftruncate(2)
// (finish_direct). That is what databases with direct I/O do (RocksDB pads the last block
// and truncates at close). The alternative, clearing O_DIRECT with fcntl for the tail,
// would send the last bytes through the page cache: one file, two I/O paths, and a tail
// that --sync none leaves in memory while the rest is on its way to the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "strategies/strategy.h"
#include "strategies/support/sync_policy.h"

namespace iobench {

/// Creates the job's file with O_DIRECT (plus extra_flags) and stores the alignment its
/// writes need in *align. Returns the fd, or -1 with *out set: kUnsupported where the
/// filesystem has no direct I/O (open refuses O_DIRECT with EINVAL; tmpfs, which accepts it
/// but has no page cache to bypass; a filesystem whose statx reports no alignment),
/// kFailed for any other error.
int create_direct_output(const WriteJob& job, std::size_t* align, StrategyOutcome* out) noexcept;

/// Creates the job's file the way its params ask: with --direct as create_direct_output does,
/// else plainly (*align = 1). Returns the fd, or -1 with *out set.
int create_job_output(const WriteJob& job, std::size_t* align, StrategyOutcome* out,
                      int extra_flags = 0) noexcept;

/// create_job_output for a strategy that writes `chunk` bytes at a time: with --direct, a
/// chunk that is not a multiple of the alignment is refused (kUnsupported) and the file
/// closed. Returns the fd, or -1 with *out set.
int create_chunked_output(const WriteJob& job, std::size_t chunk, std::size_t* align,
                          StrategyOutcome* out) noexcept;

/// "--direct: <why>" as an unsupported outcome, for strategies that cannot honour it.
StrategyOutcome direct_unsupported(const char* why) noexcept;

/// Cuts the padded file back to its exact size. Returns 0 or an errno value.
int finish_direct(int fd, std::uint64_t exact_size) noexcept;

/// The end every chunked writer shares: with --direct, the padded tail cut back to the job's
/// exact size (finish_direct); then the sync policy's last call and the close. ok, or the
/// outcome of the call that failed.
StrategyOutcome finish_output(const WriteJob& job, std::size_t align, Syncer& syncer,
                              OutputFile& file) noexcept;

inline std::size_t round_up(std::size_t n, std::size_t align) noexcept {
  return (n + align - 1) / align * align;
}

/// A write buffer, freed on every return path: aligned for O_DIRECT (to at least a page,
/// which every device accepts) when align > 1, a plain malloc otherwise. Not page-aligned
/// without --direct on purpose: buffered at N = 1e6 took 9.35 ms with a page-aligned buffer
/// and 8.15 ms with a malloc'd one (median of 5 x 7 runs), most likely because the kernel's
/// copy into the page cache then reads and writes at the same offset within a page
/// (4K aliasing).
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(data_); }
  /// Returns false (nothing allocated) when memory is short.
  bool allocate(std::size_t size, std::size_t align) noexcept;
  char* get() const noexcept { return data_; }

 private:
  char* data_ = nullptr;
};

}  // namespace iobench
