// A real program for `iobench compare` tests: writes "Line <i>\n" for i < N to PATH.
//   line_writer per-line PATH N   one write(2) per line: exactly N write calls
//   line_writer buffered PATH N   a 4096-byte buffer flushed with write(2) when full:
//                                 exactly ceil(bytes / 4096) write calls
//   line_writer fail PATH N       exits with status 3 before writing anything
// It also writes one line to stdout and one to stderr, which compare must not count.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: line_writer per-line|buffered|fail PATH N\n");
    return 2;
  }
  const std::string mode = argv[1];
  const long n = std::strtol(argv[3], nullptr, 10);
  if (mode == "fail") return 3;
  int fd = ::open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return 1;
  constexpr std::size_t kBuffer = 4096;
  char buf[kBuffer];
  std::size_t used = 0;
  for (long i = 0; i < n; ++i) {
    char line[32];
    const auto len = static_cast<std::size_t>(std::snprintf(line, sizeof line, "Line %ld\n", i));
    if (mode == "per-line") {
      if (!write_all(fd, line, len)) return 1;
      continue;
    }
    // Fill the buffer to the brim, flushing whenever it is full: ceil(bytes / 4096) writes.
    for (std::size_t done = 0; done < len;) {
      const std::size_t take = std::min(len - done, kBuffer - used);
      std::memcpy(buf + used, line + done, take);
      used += take;
      done += take;
      if (used == kBuffer) {
        if (!write_all(fd, buf, used)) return 1;
        used = 0;
      }
    }
  }
  if (used > 0 && !write_all(fd, buf, used)) return 1;
  if (::close(fd) != 0) return 1;
  std::printf("wrote %ld lines\n", n);  // stdout: not a write call of the file
  std::fprintf(stderr, "done\n");       // stderr: neither
  return 0;
}
