// int80_writer PATH N: a 64-bit program making N write(2) calls of one line to PATH through
// the i386 ABI (`int $0x80`, i386 number 4), each followed by a native stat(2) of PATH, whose
// x86-64 number is that same 4 (perf must not take one for the other); then exit 0 (101: a
// call failed).
// int80_writer --x32 PATH: one write to PATH through the x32 ABI (x86-64's `syscall` with
// bit 30 set); exits 0 when it fails with ENOSYS (the kernel offers no x32), 1 when it
// wrote, 2 on any other outcome.
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace

int main(int argc, char** argv) {
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
