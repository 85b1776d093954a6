// The smallest user of the installed package: count the writes of a function, no test
// framework. Exits 0 when the count is exact, 1 when not, 77 (skipped) without ptrace.
#include <fcntl.h>
#include <iobench/trace.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main() {
  char path[] = "/tmp/iobench-plain-consumer.XXXXXX";
  const int made = ::mkstemp(path);
  if (made < 0) return 1;
  ::close(made);
  const iobench::Trace t = iobench::trace(
      [&] {
        const int fd = ::open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        for (int i = 0; i < 3; ++i)
          if (::write(fd, "line\n", 5) != 5) std::_Exit(2);
        ::close(fd);
      },
      {.timing = true});  // timing mode sees the bytes too
  ::unlink(path);
  if (!t.traced()) {
    std::puts("ptrace is not available here: skipped");
    return 77;
  }
  const bool ok = t.exit_status() == 0 && t.syscall_calls("write") == 3 &&
                  t.file_calls(path) == 3 && t.file_bytes(path) == 15;
  std::printf("%s: %llu write calls, %llu bytes to the file\n", ok ? "ok" : "WRONG",
              static_cast<unsigned long long>(t.syscall_calls("write")),
              static_cast<unsigned long long>(t.file_bytes(path)));
  return ok ? 0 : 1;
}
