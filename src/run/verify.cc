#include "run/verify.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "strategies/support/line_format.h"

namespace iobench {
namespace {

constexpr std::size_t kChunk = std::size_t{256} * 1024;

class Fd {
 public:
  explicit Fd(int fd) noexcept : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string verify_file(const std::string& path, std::uint64_t lines, LineFormat format,
                        int dir_fd) {
  Fd fd(::openat(dir_fd, path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) return fmt::format("cannot open output for checking: {}", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) < 0) return fmt::format("fstat: {}", std::strerror(errno));
  const std::uint64_t want = format.total_bytes(lines);
  const auto have = static_cast<std::uint64_t>(st.st_size);

  auto expected = std::make_unique<char[]>(kChunk);
  auto actual = std::make_unique<char[]>(kChunk);
  LineStream stream(0, lines, format);
  std::uint64_t offset = 0;
  // Expected bytes not yet compared: a partial line may be carried over between chunks.
  std::size_t exp_len = 0;
  std::size_t exp_pos = 0;
  while (offset < std::min(want, have)) {
    ssize_t n = ::read(fd.get(), actual.get(), kChunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fmt::format("read: {}", std::strerror(errno));
    }
    if (n == 0) break;
    std::size_t pos = 0;
    while (pos < static_cast<std::size_t>(n)) {
      if (exp_pos == exp_len) {
        exp_len = stream.fill(expected.get(), kChunk);
        exp_pos = 0;
        if (exp_len == 0) break;  // more bytes than expected; the size check reports it
      }
      std::size_t m = std::min(exp_len - exp_pos, static_cast<std::size_t>(n) - pos);
      if (std::memcmp(expected.get() + exp_pos, actual.get() + pos, m) != 0) {
        for (std::size_t k = 0; k < m; ++k)
          if (expected[exp_pos + k] != actual[pos + k])
            return fmt::format("wrong bytes: first difference at offset {}", offset + pos + k);
      }
      exp_pos += m;
      pos += m;
    }
    offset += static_cast<std::uint64_t>(n);
  }
  if (have != want) return fmt::format("wrong size: {} bytes, expected {}", have, want);
  return {};
}

}  // namespace iobench
