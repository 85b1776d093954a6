// io_uring: asynchronous writes through a submission ring (liburing), as in liburing's
// examples/io_uring-cp.c and fio's io_uring engine. The byte stream is cut into chunks of
// params.buffer_size bytes, each written at its own file offset with up to
// params.queue_depth writes in flight. It shows what batching syscalls (one io_uring_enter
// for many writes) buys over write(2) when the data is already in memory.
// Honest best of the idea: one io_uring_enter per round both submits every write prepared
// in that round and waits (for one completion while there is more to send, for all once
// there is not); every completion found is reaped before the next round; a buffer is
// refilled as soon as its write completes; a short write is resubmitted for the rest;
// buffers are allocated only as the stream needs them.
#include <liburing.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "line_format.h"
#include "strategy.h"

namespace iobench {
namespace {

constexpr unsigned kMaxRingEntries = 32768;  // the kernel's IORING_MAX_ENTRIES

/// Owns the ring: io_uring_queue_exit on every return path.
class Ring {
 public:
  Ring() = default;
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  ~Ring() {
    if (live_) io_uring_queue_exit(&ring_);
  }
  /// Returns 0 or -errno, as liburing does.
  int init(unsigned entries) noexcept {
    // CLAMP: a depth beyond the kernel's maximum gets the largest ring rather than EINVAL.
    const int rc = io_uring_queue_init(entries, &ring_, IORING_SETUP_CLAMP);
    live_ = rc == 0;
    return rc;
  }
  io_uring* get() noexcept { return &ring_; }

 private:
  io_uring ring_{};
  bool live_ = false;
};

/// The expected byte stream, handed out in chunks of at most `cap` bytes: whole lines when a
/// chunk can hold the longest line, otherwise cut at arbitrary byte positions (a 1-byte
/// chunk size must still produce the exact file).
class ChunkSource {
 public:
  explicit ChunkSource(std::uint64_t lines) noexcept : lines_(0, lines) {}

  std::size_t fill(char* buf, std::size_t cap) noexcept {
    if (cap >= kMaxLineBytes) return lines_.fill(buf, cap);
    std::size_t used = 0;
    while (used < cap) {
      if (pending_pos_ == pending_len_) {
        pending_len_ = lines_.fill(pending_, sizeof pending_);
        pending_pos_ = 0;
        if (pending_len_ == 0) break;
      }
      const std::size_t n = std::min(cap - used, pending_len_ - pending_pos_);
      std::memcpy(buf + used, pending_ + pending_pos_, n);
      used += n;
      pending_pos_ += n;
    }
    return used;
  }
  bool done() const noexcept { return lines_.done() && pending_pos_ == pending_len_; }

 private:
  LineStream lines_;
  char pending_[kMaxLineBytes] = {};  // formatted bytes not yet handed out (tiny chunks only)
  std::size_t pending_len_ = 0;
  std::size_t pending_pos_ = 0;
};

/// One write in flight: a chunk buffer and how much of it the kernel has taken.
struct Slot {
  std::unique_ptr<char[]> buf;  // allocated on first use
  std::size_t len = 0;
  std::size_t done = 0;
  std::uint64_t offset = 0;  // where the chunk goes in the file
};

/// The submit/complete loop. Slots are indexed by the SQE's user data.
class UringWriter {
 public:
  UringWriter(io_uring* ring, int fd, Slot* slots, unsigned* free_ids, unsigned depth,
              std::size_t chunk, std::uint64_t lines) noexcept
      : ring_(ring), fd_(fd), slots_(slots), free_ids_(free_ids), chunk_(chunk), source_(lines) {
    // Lowest index on top, so the first rounds reuse the same few buffers.
    for (unsigned i = 0; i < depth; ++i) free_ids_[free_count_++] = depth - 1 - i;
  }

  StrategyOutcome run() noexcept {
    std::uint64_t offset = 0;
    for (;;) {
      while (free_count_ > 0 && !source_.done()) {
        const unsigned id = free_ids_[--free_count_];
        Slot& s = slots_[id];
        if (!s.buf) {
          s.buf.reset(new (std::nothrow) char[chunk_]);
          if (!s.buf) return fail("malloc", ENOMEM);
        }
        s.len = source_.fill(s.buf.get(), chunk_);
        s.done = 0;
        s.offset = offset;
        offset += s.len;
        if (int err = queue(id)) return fail("io_uring_get_sqe", err);
      }
      if (in_flight_ == 0) return outcome_ok();

      // Submits everything prepared this round and waits: for one completion while there is
      // more to send (its buffer is refilled at once), for all of them once there is not.
      const int rc = io_uring_submit_and_wait(ring_, source_.done() ? in_flight_ : 1);
      if (rc < 0 && rc != -EINTR) return fail("io_uring_submit_and_wait", -rc);

      io_uring_cqe* cqe = nullptr;
      while (io_uring_peek_cqe(ring_, &cqe) == 0) {
        const auto id = static_cast<unsigned>(io_uring_cqe_get_data64(cqe));
        const int res = cqe->res;
        io_uring_cqe_seen(ring_, cqe);
        --in_flight_;
        if (res < 0) return fail("write", -res);
        if (res == 0) return fail("write", EIO);  // no progress: a retry would spin forever
        Slot& s = slots_[id];
        s.done += static_cast<std::size_t>(res);
        if (s.done < s.len) {  // short write: resubmit the rest at the right offset
          if (int err = queue(id)) return fail("io_uring_get_sqe", err);
        } else {
          free_ids_[free_count_++] = id;
        }
      }
    }
  }

 private:
  /// Prepares a write of what is left of slot `id`; submitted with the rest of the round.
  int queue(unsigned id) noexcept {
    io_uring_sqe* sqe = io_uring_get_sqe(ring_);
    // Cannot happen: writes in flight never exceed the ring's entries. Checked anyway.
    if (sqe == nullptr) return EBUSY;
    Slot& s = slots_[id];
    io_uring_prep_write(sqe, fd_, s.buf.get() + s.done, static_cast<unsigned>(s.len - s.done),
                        s.offset + s.done);
    io_uring_sqe_set_data64(sqe, id);
    ++in_flight_;
    return 0;
  }

  /// Waits for the writes still in flight before reporting, so that no request outlives
  /// the buffers it reads (closing the ring does not wait for a running write).
  StrategyOutcome fail(const char* what, int err) noexcept {
    while (in_flight_ > 0) {
      const int rc = io_uring_submit_and_wait(ring_, 1);
      if (rc < 0 && rc != -EINTR) break;
      io_uring_cqe* cqe = nullptr;
      while (in_flight_ > 0 && io_uring_peek_cqe(ring_, &cqe) == 0) {
        io_uring_cqe_seen(ring_, cqe);
        --in_flight_;
      }
    }
    return outcome_errno(RunStatus::kFailed, what, err);
  }

  io_uring* ring_;
  int fd_;
  Slot* slots_;
  unsigned* free_ids_;
  unsigned free_count_ = 0;
  unsigned in_flight_ = 0;  // prepared and not yet completed
  std::size_t chunk_;
  ChunkSource source_;
};

StrategyOutcome run(const WriteJob& job) noexcept {
  const std::size_t chunk = job.params.buffer_size;
  // A chunk is one SQE, whose length field is 32 bits.
  if (chunk == 0 || chunk > UINT32_MAX)
    return outcome_message(RunStatus::kFailed, "buffer_size must be 1..4 GiB-1");
  if (job.params.queue_depth == 0)
    return outcome_message(RunStatus::kFailed, "queue_depth must be at least 1");

  // The buffers must outlive every request that reads them: declared before the ring, so
  // destroyed after it.
  std::unique_ptr<Slot[]> slots;
  std::unique_ptr<unsigned[]> free_ids;

  // The ring first: where io_uring is disabled (io_uring_disabled, seccomp, old kernel) the
  // strategy reports so without having created the file.
  Ring ring;
  if (int rc = ring.init(std::min(job.params.queue_depth, kMaxRingEntries)); rc < 0) {
    const RunStatus status = (rc == -ENOSYS || rc == -EPERM || rc == -EACCES)
                                 ? RunStatus::kUnsupported
                                 : RunStatus::kFailed;
    return outcome_errno(status, "io_uring_setup", -rc);
  }
  // The kernel rounds entries up to a power of two; never put more in flight than asked, nor
  // more than the submission queue holds (so io_uring_get_sqe cannot run dry and the
  // completion queue, twice as large, cannot overflow).
  const unsigned depth = std::min(job.params.queue_depth, ring.get()->sq.ring_entries);

  const int fd = create_output(job.path);
  if (fd < 0) return outcome_errno(RunStatus::kFailed, "open", errno);
  OutputFile file(fd);

  slots.reset(new (std::nothrow) Slot[depth]);
  free_ids.reset(new (std::nothrow) unsigned[depth]);
  if (!slots || !free_ids) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);

  UringWriter writer(ring.get(), file.fd(), slots.get(), free_ids.get(), depth, chunk,
                     job.params.lines);
  if (StrategyOutcome out = writer.run(); out.status != RunStatus::kOk) return out;
  if (int err = file.close()) return outcome_errno(RunStatus::kFailed, "close", err);
  return outcome_ok();
}

}  // namespace

extern const Strategy kIoUring = {
    "io_uring", "io_uring writes of buffer_size chunks, queue_depth in flight", run};

}  // namespace iobench
