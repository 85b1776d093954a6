// The strategy interface: a name, a description and one hook, as in fio's sync
// engines ("sync engines only need a ->queue()"). A strategy runs in a freshly
// forked child, writes `Line <i>\n` for i = 0..lines-1 (padded by line_format(params)) to the job's
// file (which it creates with create_output), and reports through a plain StrategyOutcome. It
// must not throw.
#pragma once

#include <fcntl.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "strategies/note.h"

namespace iobench {

inline constexpr std::size_t kKiB = 1024;
inline constexpr std::size_t kMiB = 1024 * kKiB;

/// --sync: when a strategy makes its data durable with fdatasync(2). kEnd is one call before
/// close; kEvery is one after every `every` write units (what a unit is depends on the
/// strategy: a write call, a flushed buffer, a completed ring write, a mapped window; README
/// "Durability and direct I/O") and one before close for the rest.
enum class SyncMode { kNone, kEnd, kEvery };
struct SyncPolicy {
  SyncMode mode = SyncMode::kNone;
  std::uint64_t every = 0;  // kEvery only, at least 1
};
/// --sync as it is written: "none", "end" or "every:N" (JSON config, headers).
std::string to_string(const SyncPolicy& sync);

/// Every knob a strategy may read. One struct so that every run records its full configuration.
struct StrategyParams {
  std::uint64_t lines = 100000;
  std::size_t buffer_size = 64 * kKiB;  // buffered, io_uring chunk size
  std::size_t stdio_buffer = 0;         // 0: glibc's default buffering
  std::size_t batch = IOV_MAX;          // writev: lines per call
  unsigned queue_depth = 64;            // io_uring: writes in flight
  // mmap: bytes mapped at once. Every page of a window counts in the child's RSS until it is
  // unmapped: 16 MiB keeps iobench under 64 MiB at any N, at one mmap/munmap per 16 MiB.
  std::size_t map_window = 16 * kMiB;
  SyncPolicy sync;      // --sync: fdatasync policy, timed inside the run
  bool direct = false;  // --direct: O_DIRECT where the strategy can honour it
  // --line-length: bytes per line, newline included; 0 is `Line <i>\n` unpadded. Strategies
  // never read it: they format through line_format(params) (src/line_format.h).
  std::size_t line_length = 0;
};

struct WriteJob {
  const char* path;  // the file to create, relative to dir_fd; it does not exist yet
  StrategyParams params;
  std::uint64_t expected_bytes;  // exact final size, for strategies that need it up front
  // The directory `path` is in, by descriptor: the runner's private directory, whose name
  // another user may swap for a link while the run goes on.
  int dir_fd = AT_FDCWD;
};

enum class RunStatus { kOk, kUnsupported, kFailed };

/// What a strategy reports. Fixed-size so it can live in shared memory.
struct StrategyOutcome {
  RunStatus status = RunStatus::kOk;
  int error = 0;           // errno, when there is one
  char message[200] = {};  // one line: "write: No space left on device"
  // Bytes the strategy produced without writing them to the file (format-only), so the
  // parent can check that the work really happened.
  std::uint64_t produced_bytes = 0;
};

StrategyOutcome outcome_ok() noexcept;
/// `what` names the failing call; the errno text is appended.
StrategyOutcome outcome_errno(RunStatus status, const char* what, int err) noexcept;
StrategyOutcome outcome_message(RunStatus status, const char* message) noexcept;

/// Opens the job's file the one way every strategy must: new (O_EXCL), never through a
/// planted symlink (O_NOFOLLOW), never leaked into a child (O_CLOEXEC). Write-only unless
/// extra_flags asks for O_RDWR (a writable shared mapping needs it). Returns -1 with errno.
int create_output(const WriteJob& job, int extra_flags = 0) noexcept;

/// Owns the output fd: closes it on every early return, while the success path calls
/// close() itself so that a close(2) error is reported rather than swallowed.
class OutputFile {
 public:
  explicit OutputFile(int fd) noexcept : fd_(fd) {}
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();
  int fd() const noexcept { return fd_; }
  /// Hands the fd to a new owner (fdopen).
  int release() noexcept {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  /// Returns 0 or an errno value. The fd is gone either way (Linux never keeps it on error).
  int close() noexcept;

 private:
  int fd_;
};

/// Writes all of [data, data+len) with write(2), retrying short writes and EINTR.
/// Returns 0 or an errno value.
int write_all(int fd, const char* data, std::size_t len) noexcept;

struct Strategy {
  std::string_view name;         // a contract: scripts and baselines use it
  std::string_view description;  // one line for `iobench --list`
  StrategyOutcome (*run)(const WriteJob& job) noexcept;
  // false for format-only: the file it creates stays empty and the parent checks
  // produced_bytes instead of the file's content.
  bool writes_file = true;
  // The StrategyParams knobs it reads, by their name in strategies/knobs.cc (line_length is
  // everyone's, through line_format). A sweep of any other knob is refused for it.
  std::span<const std::string_view> knobs = {};
  StrategyRole role = StrategyRole::kNormal;
  FootnoteFn footnote = nullptr;  // its table footnote (note.h), or none
  // Where its footnote goes among the others': ascending, then the registry's order.
  int note_rank = 0;
};

}  // namespace iobench
