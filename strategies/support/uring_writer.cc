// Honest best of the idea: one io_uring_enter per round (kEnter) both submits every write
// prepared in that round and waits (for one completion while there is more to send, for all
// once there is not); every completion found is reaped before the next round; a buffer is
// refilled as soon as its write completes; a short write is resubmitted for the rest;
// buffers are allocated only as the stream needs them; every chunk but the last is exactly
// buffer_size bytes, so writes start at page-aligned offsets and never share a page (and
// --direct needs nothing more than padding the last one).
#include "strategies/support/uring_writer.h"

#include <liburing.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "strategies/support/direct_io.h"
#include "strategies/support/exact_stream.h"
#include "strategies/support/sync_policy.h"

namespace iobench {
namespace {

constexpr unsigned kMaxRingEntries = 32768;  // the kernel's IORING_MAX_ENTRIES
// How long the SQPOLL thread spins without work before it sleeps (and the next submit
// needs an io_uring_enter to wake it, one more write call). Far above the gap between two
// rounds at any N, and above a loaded machine's scheduling delays, so that the count stays
// exactly one; the poller stops with the ring at the end of the run, so it costs no more.
constexpr unsigned kSqThreadIdleMs = 1000;

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

int poll_cq(io_uring* ring) noexcept;          // below: SQPOLL's wait for a completion
int wait_for_poller(io_uring* ring) noexcept;  // below: one look, waking it if it sleeps

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
  int init(unsigned entries, UringMode mode) noexcept {
    io_uring_params p{};
    // CLAMP: a depth beyond the kernel's maximum gets the largest ring rather than EINVAL.
    p.flags = IORING_SETUP_CLAMP;
    if (mode == UringMode::kSqpoll) {
      p.flags |= IORING_SETUP_SQPOLL;
      p.sq_thread_idle = kSqThreadIdleMs;
    }
    const int rc = io_uring_queue_init_params(entries, &ring_, &p);
    live_ = rc == 0;
    features_ = p.features;
    return rc;
  }
  io_uring* get() noexcept { return &ring_; }
  unsigned features() const noexcept { return features_; }

 private:
  io_uring ring_{};
  bool live_ = false;
  unsigned features_ = 0;
};

/// One write in flight: a chunk buffer and how much of it the kernel has taken.
struct Slot {
  AlignedBuffer buf;  // allocated on first use
  std::size_t len = 0;
  std::size_t done = 0;
  std::uint64_t offset = 0;  // where the chunk goes in the file
};

/// The submit/complete loop. Slots are indexed by the SQE's user data.
class UringWriter {
 public:
  UringWriter(io_uring* ring, UringMode mode, int fd, Slot* slots, unsigned* free_ids,
              unsigned depth, std::size_t chunk, std::size_t align, std::uint64_t lines,
              LineFormat format, Syncer& syncer) noexcept
      : ring_(ring),
        mode_(mode),
        fd_(fd),
        slots_(slots),
        free_ids_(free_ids),
        chunk_(chunk),
        align_(align),
        source_(lines, format),
        syncer_(syncer) {
    // Lowest index on top, so the first rounds reuse the same few buffers.
    for (unsigned i = 0; i < depth; ++i) free_ids_[free_count_++] = depth - 1 - i;
  }

  StrategyOutcome run() noexcept {
    for (;;) {
      if (mode_ == UringMode::kSqpoll) {
        // Submitting costs a store, so each chunk goes out the moment it is formatted and
        // the writes overlap the formatting of the next ones; the program waits only when
        // every buffer is in flight, or at the end.
        if (free_count_ > 0 && !source_.done()) {
          if (int err = prepare_next()) return fail("io_uring_get_sqe", err);
          if (int err = submit()) return fail("io_uring_submit", err);
        } else if (in_flight_ == 0) {
          return outcome_ok();
        } else if (int err = poll_completion()) {
          return fail("io_uring_submit", err);
        }
      } else {
        while (free_count_ > 0 && !source_.done()) {
          if (int err = prepare_next()) return fail("io_uring_get_sqe", err);
        }
        if (in_flight_ == 0) return outcome_ok();
        // Submits everything prepared this round and waits: for one completion while there
        // is more to send (its buffer is refilled at once), for all of them once there is not.
        const int rc = io_uring_submit_and_wait(ring_, source_.done() ? in_flight_ : 1);
        if (rc < 0 && rc != -EINTR) return fail("io_uring_submit_and_wait", -rc);
      }
      if (StrategyOutcome out = reap(); out.status != RunStatus::kOk) return out;
    }
  }

 private:
  /// Fills the next free buffer from the stream and prepares its write. Returns 0 or errno.
  int prepare_next() noexcept {
    const unsigned id = free_ids_[--free_count_];
    Slot& s = slots_[id];
    if (!s.buf.get() && !s.buf.allocate(chunk_, align_)) return ENOMEM;
    s.len = static_cast<std::size_t>(source_.fill(s.buf.get(), s.buf.get() + chunk_) - s.buf.get());
    if (s.len % align_ != 0) {  // --direct, the last chunk: pad it (direct_io.h)
      const std::size_t padded = round_up(s.len, align_);
      std::memset(s.buf.get() + s.len, 0, padded - s.len);
      s.len = padded;
    }
    s.done = 0;
    s.offset = offset_;
    offset_ += s.len;
    return queue(id);
  }

  /// Every completion there is: frees its buffer, or resubmits the rest of a short write.
  StrategyOutcome reap() noexcept {
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
        if (mode_ == UringMode::kSqpoll) {
          if (int err = submit()) return fail("io_uring_submit", err);
        }
      } else {
        free_ids_[free_count_++] = id;
        if (int err = syncer_.unit_done()) return fail("fdatasync", err);
      }
    }
    return outcome_ok();
  }

  /// SQPOLL: publishes the prepared SQEs with a store; io_uring_submit enters the kernel only
  /// when the poller is asleep (IORING_SQ_NEED_WAKEUP: it starts asleep, so once per run).
  int submit() noexcept {
    const int rc = io_uring_submit(ring_);
    return rc < 0 && rc != -EINTR ? -rc : 0;
  }

  /// SQPOLL: waits for a completion by polling the completion ring, not in io_uring_enter.
  int poll_completion() noexcept { return poll_cq(ring_); }

  /// Prepares a write of what is left of slot `id`; submitted with the rest of the round.
  int queue(unsigned id) noexcept {
    io_uring_sqe* sqe = io_uring_get_sqe(ring_);
    // SQPOLL: the poller can post a write's completion before it publishes the submission
    // ring's new head, so a slot that is free by its CQE may not have its SQE back yet.
    // Wait for the head; never long (kEnter's io_uring_enter consumes before it returns).
    while (sqe == nullptr && mode_ == UringMode::kSqpoll) {
      if (int err = wait_for_poller(ring_)) return err;
      sqe = io_uring_get_sqe(ring_);
    }
    // Cannot happen otherwise: writes in flight never exceed the ring's entries.
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
  UringMode mode_;
  int fd_;
  Slot* slots_;
  unsigned* free_ids_;
  unsigned free_count_ = 0;
  unsigned in_flight_ = 0;  // prepared and not yet completed
  std::size_t chunk_;
  std::size_t align_;
  std::uint64_t offset_ = 0;  // where the next chunk goes
  ExactLineStream source_;
  Syncer& syncer_;
};

bool refused(int rc) noexcept { return rc == -ENOSYS || rc == -EPERM || rc == -EACCES; }

/// SQPOLL: polls the completion ring until a CQE shows. sched_yield between looks: with two
/// cores, the poller and the io-wq worker doing the copy need them more than this loop does.
/// Should the poller have gone to sleep (1 s without work), the one way to wake it is an
/// io_uring_enter, which io_uring_submit makes only then. Returns 0 or an errno value.
int poll_cq(io_uring* ring) noexcept {
  while (io_uring_cq_ready(ring) == 0) {
    if (int err = wait_for_poller(ring)) return err;
  }
  return 0;
}

/// SQPOLL: lets the poller get on (a pause and a yield), waking it if it fell asleep.
/// Returns 0 or an errno value.
int wait_for_poller(io_uring* ring) noexcept {
  if (IO_URING_READ_ONCE(*ring->sq.kflags) & IORING_SQ_NEED_WAKEUP) {
    const int rc = io_uring_submit(ring);
    if (rc < 0 && rc != -EINTR) return -rc;
  }
  cpu_relax();
  ::sched_yield();
  return 0;
}

/// SQPOLL: the poller goes to sleep soon after it is created. One no-op, submitted and waited
/// for in the run's one io_uring_enter, wakes it; its completion proves the poller ran: from
/// then on it is awake and IORING_SQ_NEED_WAKEUP is clear. The enter is made whether or not
/// the poller had slept yet (the wait for the completion needs it), so a run always counts
/// exactly one: a count that depended on the poller's timing would make baselines flap.
/// Without the wake-up, every chunk submitted between the wake-up and the poller's first
/// moment on a CPU would see the flag still set and enter again. Returns 0 or an errno value.
int wake_poller(io_uring* ring) noexcept {
  io_uring_sqe* sqe = io_uring_get_sqe(ring);
  if (sqe == nullptr) return EBUSY;
  io_uring_prep_nop(sqe);
  // wait_nr 1 makes liburing enter with IORING_ENTER_GETEVENTS even when the poller is awake
  // (adding IORING_ENTER_SQ_WAKEUP when it is asleep): one enter, never zero.
  int rc = 0;
  do {
    rc = io_uring_submit_and_wait(ring, 1);
  } while (rc == -EINTR && io_uring_cq_ready(ring) == 0);
  if (rc < 0 && rc != -EINTR) return -rc;
  io_uring_cqe* cqe = nullptr;
  if (io_uring_peek_cqe(ring, &cqe) != 0) return EIO;
  const int res = cqe->res;
  io_uring_cqe_seen(ring, cqe);
  return res < 0 ? -res : 0;
}

/// Sets up the ring for `job` and sets *depth, the requests to keep in flight; where
/// io_uring (or its SQPOLL thread) is not allowed (io_uring_disabled, seccomp, an old kernel,
/// SQPOLL without privileges before 5.11) the outcome says unsupported.
StrategyOutcome open_ring(Ring& ring, const WriteJob& job, UringMode mode,
                          unsigned* depth) noexcept {
  if (int rc = ring.init(std::min(job.params.queue_depth, kMaxRingEntries), mode); rc < 0) {
    return outcome_errno(refused(rc) ? RunStatus::kUnsupported : RunStatus::kFailed,
                         mode == UringMode::kSqpoll ? "io_uring_setup(SQPOLL)" : "io_uring_setup",
                         -rc);
  }
  if (mode == UringMode::kSqpoll && !(ring.features() & IORING_FEAT_SQPOLL_NONFIXED)) {
    return outcome_message(RunStatus::kUnsupported,
                           "SQPOLL needs registered files on this kernel (before 5.11)");
  }
  // The kernel rounds entries up to a power of two; never put more in flight than asked, nor
  // more than the submission queue holds (so io_uring_get_sqe cannot run dry and the
  // completion queue, twice as large, cannot overflow).
  *depth = std::min(job.params.queue_depth, ring.get()->sq.ring_entries);
  if (mode == UringMode::kSqpoll) {
    if (int err = wake_poller(ring.get()))
      return outcome_errno(RunStatus::kFailed, "io_uring nop (waking the SQ poller)", err);
  }
  return outcome_ok();
}

}  // namespace

StrategyOutcome run_uring(const WriteJob& job, UringMode mode) noexcept {
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

  // The ring first: where io_uring is not allowed the strategy reports so without having
  // created the file.
  Ring ring;
  unsigned depth = 0;
  if (StrategyOutcome out = open_ring(ring, job, mode, &depth); out.status != RunStatus::kOk)
    return out;

  std::size_t align = 1;
  StrategyOutcome refused_open;
  const int fd = create_chunked_output(job, chunk, &align, &refused_open);
  if (fd < 0) return refused_open;
  OutputFile file(fd);

  slots.reset(new (std::nothrow) Slot[depth]);
  free_ids.reset(new (std::nothrow) unsigned[depth]);
  if (!slots || !free_ids) return outcome_errno(RunStatus::kFailed, "malloc", ENOMEM);

  Syncer syncer(file.fd(), job.params.sync);
  UringWriter writer(ring.get(), mode, file.fd(), slots.get(), free_ids.get(), depth, chunk, align,
                     job.params.lines, line_format(job.params), syncer);
  if (StrategyOutcome out = writer.run(); out.status != RunStatus::kOk) return out;
  return finish_output(job, align, syncer, file);
}

}  // namespace iobench
