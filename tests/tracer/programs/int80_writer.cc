// int80_writer PATH N: a 64-bit program making N write(2) calls of one line to PATH through
// the i386 ABI (`int $0x80`, i386 number 4), each followed by a native stat(2) of PATH, whose
// x86-64 number is that same 4 (perf must not take one for the other); then exit 0 (101: a
// call failed).
// int80_writer --aio PATH: one i386 io_submit (io_setup, io_submit, io_getevents through
// `int $0x80`) of a pwrite of one line to PATH, its iocb array of 32-bit pointers; exits 0
// when the line was written, 1 when a call failed.
// int80_writer --x32 PATH: one write to PATH through the x32 ABI (x86-64's `syscall` with
// bit 30 set); exits 0 when it fails with ENOSYS (the kernel offers no x32), 1 when it
// wrote, 2 on any other outcome.
#include <linux/aio_abi.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "program_util.h"

using namespace iobench::programs;

namespace {

constexpr long kI386Write = 4;
static_assert(SYS_stat == kI386Write, "the test wants the native call numbered as i386 write");
constexpr long kX32Bit = 0x40000000;
constexpr long kX32Write = kX32Bit | 1;

/// The i386 ABI passes 32-bit registers: the buffer must lie below 4 GiB (MAP_32BIT).
char* low_buffer() {
  void* p =
      ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (p == MAP_FAILED) std::_Exit(102);
  return static_cast<char*>(p);
}

long int80_write(int fd, const char* buf, long len) {
  long ret = kI386Write;
  // eax = number, ebx, ecx, edx = arguments; int $0x80 clobbers nothing else we use.
  asm volatile("int $0x80" : "+a"(ret) : "b"(fd), "c"(buf), "d"(len) : "memory");
  return ret;
}

long x32_write(int fd, const char* buf, long len) {
  long ret = kX32Write;
  asm volatile("syscall"
               : "+a"(ret)
               : "D"(static_cast<long>(fd)), "S"(buf), "d"(len)
               : "rcx", "r11", "memory");
  return ret;
}

/// An i386 call of up to five arguments.
long int80(long nr, long a, long b = 0, long c = 0, long d = 0, long e = 0) {
  asm volatile("int $0x80" : "+a"(nr) : "b"(a), "c"(b), "d"(c), "S"(d), "D"(e) : "memory");
  return nr;
}

int aio_write_line(const char* path) {
  constexpr long kSetup = 245, kSubmit = 248, kGetevents = 247;  // syscall_32.tbl
  const int fd = open_out(path);
  char* low = low_buffer();  // the context id, the pointer array, the iocb, the line
  auto* ctx = reinterpret_cast<std::uint32_t*>(low);
  auto* ptrs = reinterpret_cast<std::uint32_t*>(low + 8);
  auto* cb = reinterpret_cast<iocb*>(low + 64);
  char* line = low + 1024;
  std::memcpy(line, "line aio-386\n", kLineBytes);
  if (int80(kSetup, 1, reinterpret_cast<long>(ctx)) != 0) return 1;
  *cb = iocb{};
  cb->aio_lio_opcode = IOCB_CMD_PWRITE;
  cb->aio_fildes = static_cast<std::uint32_t>(fd);
  cb->aio_buf = reinterpret_cast<std::uint64_t>(line);
  cb->aio_nbytes = kLineBytes;
  ptrs[0] = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(cb));
  ptrs[1] = 0xdeadbeef;  // past the array's end: read with it, the first pointer is no iocb
  // Bits above 32 in the registers: the kernel reads ecx and edx, never the rest.
  constexpr long kHigh = 1L << 40;
  if (int80(kSubmit, *ctx, 1 | kHigh, reinterpret_cast<long>(ptrs) | kHigh) != 1) return 1;
  char* events = low + 2048;  // one compat io_event: 32 bytes
  return int80(kGetevents, *ctx, 1, 1, reinterpret_cast<long>(events), 0) == 1 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--aio") == 0) return aio_write_line(argv[2]);
  if (argc == 3 && std::strcmp(argv[1], "--x32") == 0) {
    const int fd = open_out(argv[2]);
    char* line = low_buffer();
    std::memcpy(line, "line x32-abi\n", kLineBytes);
    const long ret = x32_write(fd, line, kLineBytes);
    if (ret == -ENOSYS) return 0;
    return ret == kLineBytes ? 1 : 2;
  }
  if (argc != 3) return 2;
  const int fd = open_out(argv[1]);
  char* line = low_buffer();
  std::memcpy(line, "line int0x80\n", kLineBytes);
  for (long i = arg_long(argv[2]); i > 0; --i) {
    if (int80_write(fd, line, kLineBytes) != kLineBytes) return 101;
    struct stat st {};
    if (::syscall(SYS_stat, argv[1], &st) != 0) return 101;
  }
  return 0;
}
