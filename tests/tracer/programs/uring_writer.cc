// uring_writer PATH N: N one-line writes to PATH through io_uring, one submit-and-wait per
// line: N io_uring_enter calls on the ring's fd and no write(2) at all. Exit 77 when
// io_uring is unavailable.
#include <liburing.h>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int fd = open_out(argv[1]);
  io_uring ring;
  if (io_uring_queue_init(4, &ring, 0) != 0) return 77;
  static const char kLine[] = "uring line \n";
  const long n = arg_long(argv[2]);
  for (long i = 0; i < n; ++i) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    io_uring_prep_write(sqe, fd, kLine, kLineBytes, static_cast<__u64>(i) * kLineBytes);
    if (io_uring_submit_and_wait(&ring, 1) != 1) return 3;
    io_uring_cqe* cqe = nullptr;
    if (io_uring_wait_cqe(&ring, &cqe) != 0 || cqe->res != kLineBytes) return 4;
    io_uring_cqe_seen(&ring, cqe);
  }
  io_uring_queue_exit(&ring);
  return 0;
}
