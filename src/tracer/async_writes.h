// What an io_uring_enter or an io_submit is about to write, read while the caller is
// stopped at the call's entry: the SQEs and iocbs say it, no return value does.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace iobench::tracing {

/// One request among those a call submits.
struct AsyncRequest {
  int fd = -1;
  bool fixed = false;  // fd indexes the ring's registered files (IOSQE_FIXED_FILE)
  bool write = false;  // a write of data: IORING_OP_WRITE*, IOCB_CMD_PWRITE(V)
};

/// The SQEs an io_uring_enter on `ring_fd` of `tid` will submit, as the ring's
/// /proc/TID/fdinfo lists them between the kernel's head and the program's tail (the
/// program publishes its tail before it enters). Empty when there are none or the ring
/// cannot be read.
std::vector<AsyncRequest> pending_sqes(pid_t tid, int ring_fd);

/// The iocbs of io_submit(ctx, nr, iocbpp), read from the tracee's memory; nullopt when
/// the memory cannot be read (errno says why). `compat`: an i386 call's 32-bit pointers.
std::optional<std::vector<AsyncRequest>> submitted_iocbs(pid_t tid, std::uint64_t iocbpp,
                                                         std::uint64_t nr, bool compat);

}  // namespace iobench::tracing
