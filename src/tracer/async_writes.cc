#include "tracer/async_writes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/unique_fd.h"

namespace iobench::tracing {

namespace {

// The ring lists at most its SQ size (32768 entries, ~150 bytes each): enough for all.
constexpr std::size_t kMaxFdinfo = std::size_t{8} << 20;
// io_submit takes at most the context's nr_events; past this many, the rest are not read.
constexpr std::uint64_t kMaxIocbs = 4096;
constexpr std::size_t kBatch = 64;  // iocbs per process_vm_readv

std::string read_all(const char* path) {
  std::string text;
  const UniqueFd in(::open(path, O_RDONLY | O_CLOEXEC));
  if (!in) return text;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(in.get(), buf, sizeof(buf));
    if (n <= 0 || text.size() > kMaxFdinfo) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

/// io_uring_get_opcode()'s names of the opcodes that write data.
bool is_write_opcode(std::string_view name) {
  return name == "WRITE" || name == "WRITEV" || name == "WRITE_FIXED" || name == "WRITEV_FIXED";
}

/// "fd:%d" or "flags:%x" out of one SQE line, after `field`.
long field_value(std::string_view line, std::string_view field, int base) {
  const std::size_t at = line.find(field);
  if (at == std::string_view::npos) return -1;
  return std::strtol(std::string(line.substr(at + field.size(), 24)).c_str(), nullptr, base);
}

/// process_vm_readv of `n` local and remote ranges of equal sizes, all or nothing. A short
/// read (the tracee's memory ends inside a range) leaves errno as it was: say EFAULT, as
/// the kernel would answer the call itself, or the caller would test a stale errno.
bool read_all(pid_t tid, const iovec* local, const iovec* remote, std::size_t n) {
  std::size_t want = 0;
  for (std::size_t i = 0; i < n; ++i) want += local[i].iov_len;
  const ssize_t got = ::process_vm_readv(tid, local, n, remote, n, 0);
  if (got == static_cast<ssize_t>(want)) return true;
  if (got >= 0) errno = EFAULT;
  return false;
}

}  // namespace

std::vector<AsyncRequest> pending_sqes(pid_t tid, int ring_fd) {
  char path[64];
  *fmt::format_to_n(path, sizeof(path) - 1, "/proc/{}/fdinfo/{}", tid, ring_fd).out = '\0';
  const std::string text = read_all(path);
  std::vector<AsyncRequest> sqes;
  // One line per SQE: "%5u: opcode:%s, fd:%d, flags:%x, off:%llu, ..." (io_uring/fdinfo.c).
  constexpr std::string_view kOpcode = "opcode:";
  for (std::size_t at = text.find(kOpcode); at != std::string::npos;
       at = text.find(kOpcode, at + 1)) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line(text.data() + at, end - at);
    const std::size_t comma = line.find(',');
    if (comma == std::string_view::npos) continue;
    AsyncRequest r;
    r.write = is_write_opcode(line.substr(kOpcode.size(), comma - kOpcode.size()));
    r.fd = static_cast<int>(field_value(line, "fd:", 10));
    r.fixed = (field_value(line, "flags:", 16) & IOSQE_FIXED_FILE) != 0;
    sqes.push_back(r);
  }
  return sqes;
}

std::optional<std::vector<AsyncRequest>> submitted_iocbs(pid_t tid, std::uint64_t iocbpp,
                                                         std::uint64_t nr, bool compat) {
  std::vector<AsyncRequest> out;
  nr = std::min(nr, kMaxIocbs);
  // Compat io_submit takes an array of 32-bit pointers; the iocb itself is laid out alike.
  const std::size_t ptr_size = compat ? sizeof(std::uint32_t) : sizeof(std::uint64_t);
  for (std::uint64_t first = 0; first < nr; first += kBatch) {
    const std::size_t n = std::min<std::uint64_t>(kBatch, nr - first);
    std::array<std::uint64_t, kBatch> ptrs{};
    std::array<std::uint32_t, kBatch> ptrs32{};
    void* const into = compat ? static_cast<void*>(ptrs32.data()) : ptrs.data();
    const iovec local_ptrs{into, n * ptr_size};
    // NOLINTNEXTLINE(performance-no-int-to-ptr): an address in the tracee.
    const iovec remote_ptrs{reinterpret_cast<void*>(iocbpp + first * ptr_size), local_ptrs.iov_len};
    if (!read_all(tid, &local_ptrs, &remote_ptrs, 1)) return std::nullopt;
    if (compat) std::copy_n(ptrs32.begin(), n, ptrs.begin());
    std::array<iocb, kBatch> cbs{};
    std::array<iovec, kBatch> local{}, remote{};
    for (std::size_t i = 0; i < n; ++i) {
      local[i] = {&cbs[i], sizeof(iocb)};
      // NOLINTNEXTLINE(performance-no-int-to-ptr): an address in the tracee.
      remote[i] = {reinterpret_cast<void*>(ptrs[i]), sizeof(iocb)};
    }
    if (!read_all(tid, local.data(), remote.data(), n)) return std::nullopt;
    for (std::size_t i = 0; i < n; ++i) {
      const auto op = cbs[i].aio_lio_opcode;
      out.push_back({static_cast<int>(cbs[i].aio_fildes), false,
                     op == IOCB_CMD_PWRITE || op == IOCB_CMD_PWRITEV});
    }
  }
  return out;
}

}  // namespace iobench::tracing
