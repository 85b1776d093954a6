// fd_kinds MODE ARGS...: N writes (or submits) to one kind of fd, one mode per case of
// README "What counts as a write". Every mode makes exactly the write-family calls its line
// says, nothing else but closes; exit 0 when all behaved as expected, 77 when the kernel
// lacks the facility.
//   badfd N                 N write(2) to fd 99, never open: EBADF
//   readonly PATH N         N write(2) to PATH opened O_RDONLY: EBADF
//   efault PATH N           N write(2) to PATH from a bad buffer: EFAULT
//   nondumpable PATH N      PR_SET_DUMPABLE 0, then N write(2) to stdout and N to PATH
//   rename-stdout TO N      1 write(2) to stdout, which it renames to TO; N more, unlinks
//                           TO, N more (stdout must be a regular file)
//   fifo PATH N             mkfifo PATH, N write(2) to it; pipe N: N write(2) to a pipe
//   anon N                  N write(2) each to an eventfd, a timerfd, a signalfd
//   uring-read PATH N       N reads of PATH through io_uring: N io_uring_enter
//   uring-read-write PATH N N reads, then N writes of PATH, on one ring: 2N io_uring_enter
//   uring-stdout N          N writes to stdout through io_uring: N io_uring_enter
//   aio PATH N              N io_submit of one IOCB_CMD_PWRITE to PATH
//   aio-read PATH N         N io_submit of one IOCB_CMD_PREAD of PATH
//   names DIR N             N write(2) each to a memfd, DIR/gone (unlinked before), a pipe,
//                           a socket pair, an eventfd and DIR/kept: names every backend
//                           must give alike
#include <liburing.h>
#include <linux/aio_abi.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>

#include "program_util.h"

using namespace iobench::programs;

namespace {

constexpr char kLine[] = "kinds line \n";  // kLineBytes long

bool write_fails(int fd, const void* buf, int err) {
  return ::write(fd, buf, kLineBytes) < 0 && errno == err;
}

int failing_writes(int fd, long n, const void* buf, int err) {
  for (long i = 0; i < n; ++i)
    if (!write_fails(fd, buf, err)) return 4;
  return 0;
}

int rename_stdout(const char* to, long n) {
  char self[PATH_MAX];
  const ssize_t len = ::readlink("/proc/self/fd/1", self, sizeof(self) - 1);
  if (len <= 0 || self[0] != '/') return 5;
  self[len] = '\0';
  write_lines(1, 1);  // read and cached under its first name
  if (::rename(self, to) != 0) return 6;
  write_lines(1, n);
  if (::unlink(to) != 0) return 7;
  write_lines(1, n);
  return 0;
}

int fifo(const char* path, long n) {
  if (::mkfifo(path, 0600) != 0) return 5;
  const int fd = ::open(path, O_RDWR | O_CLOEXEC);  // its own reader: never blocks
  if (fd < 0) return 6;
  write_lines(fd, n);  // n * 12 bytes: within the pipe's 64 KiB for the n the tests use
  return 0;
}

int pipe_writes(long n) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return 5;
  write_lines(ends[1], n);
  return 0;
}

int anon(long n) {
  const int event = ::eventfd(0, EFD_CLOEXEC);
  const int timer = ::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  const int signal = ::signalfd(-1, &set, SFD_CLOEXEC);
  if (event < 0 || timer < 0 || signal < 0) return 77;
  const std::uint64_t one = 1;
  for (long i = 0; i < n; ++i) {
    if (::write(event, &one, sizeof(one)) != sizeof(one)) return 4;
    // Neither can be written to at all: EINVAL.
    if (::write(timer, &one, sizeof(one)) >= 0 || ::write(signal, &one, sizeof(one)) >= 0) return 4;
  }
  return 0;
}

/// One request per io_uring_enter, submitted and waited for together.
int uring_one(io_uring& ring, bool write, int fd, char* buf, long i) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  if (write) {
    io_uring_prep_write(sqe, fd, kLine, kLineBytes, fd == 1 ? -1 : i * kLineBytes);
  } else {
    io_uring_prep_read(sqe, fd, buf, kLineBytes, 0);
  }
  if (io_uring_submit_and_wait(&ring, 1) != 1) return 3;
  io_uring_cqe* cqe = nullptr;
  if (io_uring_peek_cqe(&ring, &cqe) != 0 || cqe->res < 0) return 4;
  io_uring_cqe_seen(&ring, cqe);
  return 0;
}

int uring(const std::string& mode, const char* path, long n) {
  const bool to_stdout = mode == "uring-stdout";
  const int fd = to_stdout ? 1 : ::open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return 5;
  io_uring ring;
  if (io_uring_queue_init(4, &ring, 0) != 0) return 77;
  char buf[kLineBytes];
  const long reads = to_stdout ? 0 : n;
  const long writes = mode == "uring-read" ? 0 : n;
  for (long i = 0; i < reads; ++i)
    if (int rc = uring_one(ring, false, fd, buf, i)) return rc;
  for (long i = 0; i < writes; ++i)
    if (int rc = uring_one(ring, true, fd, buf, i)) return rc;
  io_uring_queue_exit(&ring);
  return 0;
}

int aio(bool write, const char* path, long n) {
  const int fd = ::open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return 5;
  aio_context_t ctx = 0;
  if (::syscall(SYS_io_setup, 4, &ctx) != 0) return 77;
  char buf[kLineBytes];
  for (long i = 0; i < n; ++i) {
    iocb cb{};
    cb.aio_fildes = static_cast<std::uint32_t>(fd);
    cb.aio_lio_opcode = write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
    cb.aio_buf = reinterpret_cast<std::uint64_t>(write ? kLine : buf);
    cb.aio_nbytes = kLineBytes;
    cb.aio_offset = write ? i * kLineBytes : 0;
    iocb* list[] = {&cb};
    if (::syscall(SYS_io_submit, ctx, 1, list) != 1) return 3;
    io_event ev{};
    if (::syscall(SYS_io_getevents, ctx, 1, 1, &ev, nullptr) != 1 || ev.res < 0) return 4;
  }
  ::syscall(SYS_io_destroy, ctx);
  return 0;
}

int names(const std::string& dir, long n) {
  const int memfd = ::memfd_create("iobench", MFD_CLOEXEC);
  const std::string gone_path = dir + "/gone";
  const int gone = open_out(gone_path.c_str());
  int ends[2], pair[2];
  if (memfd < 0 || ::unlink(gone_path.c_str()) != 0 || ::pipe2(ends, O_CLOEXEC) != 0 ||
      ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    return 5;
  const int event = ::eventfd(0, EFD_CLOEXEC);
  const int kept = open_out((dir + "/kept").c_str());
  const std::uint64_t one = 1;
  for (long i = 0; i < n; ++i)
    if (::write(event, &one, sizeof(one)) != sizeof(one)) return 4;
  for (int fd : {memfd, gone, ends[1], pair[0], kept}) write_lines(fd, n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string mode = argv[1];
  const long n = arg_long(argv[argc - 1]);
  const char* path = argv[2];
  if (mode == "badfd") return failing_writes(99, n, kLine, EBADF);
  if (mode == "pipe") return pipe_writes(n);
  if (mode == "anon") return anon(n);
  if (mode == "uring-stdout") return uring(mode, nullptr, n);
  if (argc < 4) return 2;
  if (mode == "readonly")
    return failing_writes(::open(path, O_RDONLY | O_CLOEXEC), n, kLine, EBADF);
  // Address 4096 is never mapped (vm.mmap_min_addr): the copy from it faults.
  const auto* unmapped = reinterpret_cast<const void*>(std::uintptr_t{4096});
  if (mode == "efault") return failing_writes(open_out(path), n, unmapped, EFAULT);
  if (mode == "nondumpable") {
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return 3;
    write_lines(1, n);
    write_lines(open_out(path), n);
    return 0;
  }
  if (mode == "rename-stdout") return rename_stdout(path, n);
  if (mode == "fifo") return fifo(path, n);
  if (mode.starts_with("uring-")) return uring(mode, path, n);
  if (mode == "aio") return aio(true, path, n);
  if (mode == "aio-read") return aio(false, path, n);
  if (mode == "names") return names(path, n);
  return 2;
}
