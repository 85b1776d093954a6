// RAII owners for kernel resources every layer holds: fds and shared mappings.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace iobench {

/// Owns one file descriptor; closes it once.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

/// A MAP_SHARED|MAP_ANONYMOUS mapping of one T, created before fork so that parent and
/// child see the same memory: the child reports through it without any syscall.
template <typename T>
class SharedMapping {
  static_assert(std::is_trivially_destructible_v<T>, "never destroyed, only unmapped");

 public:
  SharedMapping() {
    void* p = ::mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) value_ = new (p) T{};
  }
  SharedMapping(const SharedMapping&) = delete;
  SharedMapping& operator=(const SharedMapping&) = delete;
  ~SharedMapping() {
    if (value_ != nullptr) ::munmap(value_, sizeof(T));
  }

  explicit operator bool() const noexcept { return value_ != nullptr; }
  T* get() const noexcept { return value_; }
  T* operator->() const noexcept { return value_; }

 private:
  T* value_ = nullptr;
};

}  // namespace iobench
