// stdio: a FILE* and fwrite, the way most C and C++ programs write text. It shows what a
// general-purpose library buffer costs next to a purpose-built one (buffered.cc).
// Honest best of the idea: fwrite of a line formatted with the shared formatter (not
// fprintf, whose format parsing would be measured instead of the I/O); glibc skips the
// FILE lock in a single-threaded process, so no _unlocked variants are needed. The FILE
// comes from fdopen of create_output's fd, so O_EXCL and O_NOFOLLOW still hold.
// --sync every:N syncs after every N lines, with an fflush first (the FILE holds the bytes;
// glibc's own flushes are invisible to the program). No --direct: a FILE's buffer is
// neither aligned nor flushed in aligned pieces.
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <new>

#include "strategies/strategy.h"
#include "strategies/support/direct_io.h"
#include "strategies/support/line_format.h"
#include "strategies/support/sync_policy.h"

namespace iobench {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

StrategyOutcome run(const WriteJob& job) noexcept {
  if (job.params.direct)
    return direct_unsupported("a FILE buffer is neither aligned nor flushed in whole blocks");
  const int fd = create_output(job);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);

  // Declared before the FILE so that it outlives it: fclose flushes from this buffer.
  std::unique_ptr<char[]> buffer;
  const std::size_t size = job.params.stdio_buffer;
  if (size > 0) {
    buffer.reset(new (std::nothrow) char[size]);
    if (!buffer) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);
  }

  FilePtr f(::fdopen(file.fd(), "w"));
  if (!f) return outcome_errno(RunStatus::kFailed, "fdopen", errno);
  file.release();  // the FILE owns the fd now; fclose closes it

  // A real buffer, because setvbuf with a NULL buffer keeps glibc's default size (st_blksize)
  // and silently ignores the size asked for.
  if (buffer && std::setvbuf(f.get(), buffer.get(), _IOFBF, size) != 0)
    return outcome_message(RunStatus::kFailed, "setvbuf: refused the buffer");

  Syncer syncer(::fileno(f.get()), job.params.sync);
  LineBuffer line(line_format(job.params));
  if (!line.ok()) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);
  for (std::uint64_t i = 0; i < job.params.lines; ++i) {
    const std::size_t n = line.format(i);
    if (std::fwrite(line.data(), 1, n, f.get()) != n)
      return outcome_errno(RunStatus::kFailed, "fwrite", errno);
    if (syncer.due_next() && std::fflush(f.get()) != 0)
      return outcome_errno(RunStatus::kFailed, "fflush", errno);
    if (int err = syncer.unit_done()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  }
  if (job.params.sync.mode != SyncMode::kNone) {
    if (std::fflush(f.get()) != 0) return outcome_errno(RunStatus::kFailed, "fflush", errno);
    if (int err = syncer.before_close()) return outcome_errno(RunStatus::kFailed, "fdatasync", err);
  }
  // fclose flushes the last buffer and closes the fd; either can fail, and the FILE is
  // gone afterwards whatever it returns.
  if (std::fclose(f.release()) != 0) return outcome_errno(RunStatus::kFailed, "fclose", errno);
  return outcome_ok();
}

/// Its write calls follow from the FILE buffer's size; its time, often, from fwrite itself.
std::string note(const NoteFigures& f) {
  const std::uint64_t size = f.stdio_buffer ? f.stdio_buffer : f.block_size;
  if (!size) return "";
  const std::string where =
      f.stdio_buffer
          ? fmt::format("a {} setvbuf buffer (--stdio-buffer)", f.size(static_cast<double>(size)))
          : fmt::format("glibc's FILE buffer, the file's st_blksize: {} here",
                        f.size(static_cast<double>(size)));
  // Few calls, and still slower than buffered: say where its time goes when it is not
  // the kernel.
  std::string why;
  if (f.row.syscall_time_ns && *f.row.syscall_time_ns < 0.5 * f.row.time_ns)
    why =
        "\n  Most of its time is fwrite's work per line in the library (lock, copy), not the "
        "kernel.";
  return fmt::format("stdio: {}, so about {} write calls (bytes / {}).{}", where,
                     f.count((f.bytes + size - 1) / size), size, why);
}

}  // namespace

// The knobs it reads (strategies/knobs.cc).
constexpr std::string_view kKnobs[] = {"stdio_buffer", "sync", "direct"};

extern const Strategy kStdio = {
    .name = "stdio",
    .description = "fwrite(3) of each line through a FILE* (glibc buffering)",
    .run = run,
    .knobs = kKnobs,
    .footnote = note,
    .note_rank = 4};

}  // namespace iobench
