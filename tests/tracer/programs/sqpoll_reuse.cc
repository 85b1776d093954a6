// sqpoll_reuse DIR N: DIR/a gets N lines, is closed by an SQPOLL ring (IORING_OP_CLOSE, run
// by the ring's kernel thread: no syscall), and DIR/b, opened next on the same fd number,
// gets 5 lines. No io_uring_enter at all. Exit 77 when an SQPOLL ring is unavailable,
// 10+ when the plan did not happen as written.
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string dir = argv[1];
  const int a = open_out((dir + "/a").c_str());
  write_lines(a, arg_long(argv[2]));

  io_uring_params params{};
  params.flags = IORING_SETUP_SQPOLL;
  // The poller stays awake for a minute: submitting never needs io_uring_enter to wake it.
  params.sq_thread_idle = 60000;
  io_uring ring;
  if (io_uring_queue_init_params(4, &ring, &params) != 0) return 77;

  io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  io_uring_prep_close(sqe, a);
  if (io_uring_submit(&ring) != 1) return 10;
  // Wait by watching the completion queue in shared memory, not by entering the kernel.
  const double deadline = now_s() + 60;
  while (io_uring_cq_ready(&ring) == 0) {
    if (now_s() > deadline) return 11;
  }
  io_uring_cqe* cqe = nullptr;
  if (io_uring_peek_cqe(&ring, &cqe) != 0 || cqe->res != 0) return 12;
  io_uring_cqe_seen(&ring, cqe);

  if (open_out((dir + "/b").c_str()) != a) return 13;  // the number the ring freed
  write_lines(a, 5);
  io_uring_queue_exit(&ring);
  return 0;
}
