// sqpoll_reuse DIR N: DIR/a gets N lines, is closed by an SQPOLL ring (IORING_OP_CLOSE, run
// by the ring's kernel thread: no syscall), and DIR/b, opened next on the same fd number,
// gets 5 lines. No io_uring_enter from the first write to A on. Exit 77 when an SQPOLL ring
// is unavailable, 75 when the poller was asleep before the close (the scenario did not
// happen: run again), 10+ when the plan did not happen as written.
#include <liburing.h>
#include <time.h>

#include <string>

#include "program_util.h"

using namespace iobench::programs;

namespace {

double now_s() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Waits for one completion by watching the queue in shared memory, not by entering.
bool reap_one(io_uring* ring, int* res) {
  const double deadline = now_s() + 60;
  while (io_uring_cq_ready(ring) == 0) {
    if (now_s() > deadline) return false;
  }
  io_uring_cqe* cqe = nullptr;
  if (io_uring_peek_cqe(ring, &cqe) != 0) return false;
  *res = cqe->res;
  io_uring_cqe_seen(ring, cqe);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string dir = argv[1];
  io_uring_params params{};
  params.flags = IORING_SETUP_SQPOLL;
  // The poller stays awake for a minute: submitting never needs io_uring_enter to wake it.
  params.sq_thread_idle = 60000;
  io_uring ring;
  if (io_uring_queue_init_params(4, &ring, &params) != 0) return 77;
  // A new poller is sometimes flagged asleep at once, and liburing then enters to wake it:
  // a no-op first takes that enter, before A exists, so it cannot clear A's path early.
  int res = 0;
  io_uring_prep_nop(io_uring_get_sqe(&ring));
  if (io_uring_submit(&ring) != 1 || !reap_one(&ring, &res)) return 14;

  const int a = open_out((dir + "/a").c_str());
  write_lines(a, arg_long(argv[2]));
  if (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP) return 75;
  io_uring_prep_close(io_uring_get_sqe(&ring), a);
  if (io_uring_submit(&ring) != 1) return 10;
  if (!reap_one(&ring, &res)) return 11;
  if (res != 0) return 12;

  if (open_out((dir + "/b").c_str()) != a) return 13;  // the number the ring freed
  write_lines(a, 5);
  io_uring_queue_exit(&ring);
  return 0;
}
