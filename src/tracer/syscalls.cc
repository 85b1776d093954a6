#include "tracer/syscalls.h"

#include <seccomp.h>

#include <array>
#include <cstdlib>

#include "tracer/tracer.h"

namespace iobench {

namespace {

struct WriteCall {
  std::string_view name;
  bool moves_data;
  int fd_arg;
};

// The write family (README "What counts as a write"). fd_arg names the destination:
// splice and copy_file_range write to their third argument, everything else to the first;
// msync has no fd at all; io_submit's are in its iocbs.
constexpr std::array<WriteCall, 17> kWriteFamily{{
    {"write", true, 0},
    {"writev", true, 0},
    {"pwrite64", true, 0},
    {"pwritev", true, 0},
    {"pwritev2", true, 0},
    {"sendfile", true, 0},
    {"splice", true, 2},
    {"vmsplice", true, 0},
    {"copy_file_range", true, 2},
    {"io_uring_enter", false, 0},                // returns SQEs consumed, not bytes
    {"io_submit", false, tracing::kFdsInIocbs},  // Linux AIO: returns iocbs queued
    {"msync", false, -1},
    {"fsync", false, 0},
    {"fdatasync", false, 0},
    {"sync_file_range", false, 0},
    {"fallocate", false, 0},
    {"ftruncate", false, 0},
}};

}  // namespace

bool is_write_family(std::string_view syscall_name) noexcept {
  for (const auto& call : kWriteFamily) {
    if (call.name == syscall_name) return true;
  }
  return false;
}

bool moves_data(std::string_view syscall_name) noexcept {
  for (const auto& call : kWriteFamily) {
    if (call.name == syscall_name) return call.moves_data;
  }
  return false;
}

std::vector<std::string_view> write_family_names() {
  std::vector<std::string_view> names;
  names.reserve(std::size(kWriteFamily));
  for (const auto& call : kWriteFamily) names.push_back(call.name);
  return names;
}

namespace tracing {

namespace {

// x86_64 tops out below 500; 1024 leaves room for other architectures' numbering.
constexpr int kMaxSyscall = 1024;

int resolve(std::string_view name) {
  return ::seccomp_syscall_resolve_name(std::string(name).c_str());
}

}  // namespace

SyscallTable::SyscallTable() : by_nr_(kMaxSyscall) {
  for (int nr = 0; nr < kMaxSyscall; ++nr) {
    char* name = ::seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    by_nr_[nr].name = name != nullptr ? name : "syscall_" + std::to_string(nr);
    std::free(name);
  }
  for (const auto& call : kWriteFamily) {
    const int nr = resolve(call.name);
    if (nr < 0 || nr >= kMaxSyscall) continue;  // not on this architecture
    by_nr_[nr].write_family = true;
    by_nr_[nr].moves_data = call.moves_data;
    by_nr_[nr].fd_arg = call.fd_arg;
    stop_set_.push_back(nr);
  }
  const std::pair<std::string_view, FdEffect> bookkeeping[] = {
      {"close", FdEffect::kClose},
      {"close_range", FdEffect::kCloseRange},
      {"dup2", FdEffect::kDupOnto},
      {"dup3", FdEffect::kDupOnto},
      {"unshare", FdEffect::kUnshare},
      {"io_uring_enter", FdEffect::kRingEnter},
      {"io_uring_setup", FdEffect::kRingSetup},
  };
  for (const auto& [name, effect] : bookkeeping) {
    const int nr = resolve(name);
    if (nr < 0 || nr >= kMaxSyscall) continue;  // e.g. no dup2 on arm64
    by_nr_[nr].fd_effect = effect;
    if (!by_nr_[nr].write_family) stop_set_.push_back(nr);
  }
  // Not in the stop set: the filter stops clone only when CLONE_UNTRACED is set
  // (seccomp_filter.cc), and clone3 always (its flags are in memory, out of BPF's reach).
  for (const auto& [name, where] :
       {std::pair{"clone", CloneFlagsAt::kRegister}, std::pair{"clone3", CloneFlagsAt::kMemory}}) {
    const int nr = resolve(name);
    if (nr >= 0 && nr < kMaxSyscall) by_nr_[nr].clone_flags = where;
  }
  unknown_.name = "syscall_unknown";
  native_arch_ = ::seccomp_arch_native();  // SCMP_ARCH_* tokens are the AUDIT_ARCH_* values
}

const SyscallInfo& SyscallTable::info(long nr) const {
  if (nr < 0 || nr >= kMaxSyscall) return unknown_;
  return by_nr_[static_cast<std::size_t>(nr)];
}

}  // namespace tracing
}  // namespace iobench
