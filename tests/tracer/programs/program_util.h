// Shared bits of the programs the tracer is tested on. They make no write-family call
// beyond the ones their comment promises, so the tests can assert exact counts.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace iobench::programs {

/// Every line is this long, so bytes = lines * kLineBytes.
inline constexpr int kLineBytes = 12;

inline int open_out(const char* path, int extra = 0) {
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | extra, 0644);
  if (fd < 0) {
    std::perror(path);
    std::exit(100);
  }
  return fd;
}

/// n write(2) calls of one line each.
inline void write_lines(int fd, long n) {
  char line[kLineBytes + 1];
  for (long i = 0; i < n; ++i) {
    std::snprintf(line, sizeof(line), "line %06ld\n", i % 1000000);
    if (::write(fd, line, kLineBytes) != kLineBytes) std::_Exit(101);
  }
}

inline long arg_long(const char* s) { return std::strtol(s, nullptr, 10); }

}  // namespace iobench::programs
