#include "tracer/syscalls.h"

#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/prctl.h>

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

// The same calls under the names only a 32-bit ABI has (x86-64's sendfile and ftruncate
// take 64-bit offsets already). Kept apart from kWriteFamily: perf opens a tracepoint per
// entry there, and these have none of their own on x86-64.
constexpr std::array<WriteCall, 2> kCompatAliases{{
    {"sendfile64", true, 0},
    {"ftruncate64", false, 0},
}};

// How a row of a non-native ABI is named: "write (i386)". strace -c gives those calls a
// table of their own; a suffix keeps them apart in every table, file and JSON object alike.
constexpr std::string_view kAbiOpen = " (";

template <typename F>
void for_each_write_call(F&& f) {
  for (const auto& call : kWriteFamily) f(call);
  for (const auto& call : kCompatAliases) f(call);
}

const WriteCall* find_write_call(std::string_view syscall_name) noexcept {
  const std::string_view base = syscall_base_name(syscall_name);
  const WriteCall* found = nullptr;
  for_each_write_call([&](const WriteCall& call) {
    if (call.name == base) found = &call;
  });
  return found;
}

}  // namespace

std::string_view syscall_base_name(std::string_view syscall_name) noexcept {
  return syscall_name.substr(0, syscall_name.find(kAbiOpen));
}

std::string_view syscall_abi(std::string_view syscall_name) noexcept {
  const std::size_t open = syscall_name.find(kAbiOpen);
  if (open == std::string_view::npos || !syscall_name.ends_with(')')) return {};
  const std::size_t begin = open + kAbiOpen.size();
  return syscall_name.substr(begin, syscall_name.size() - 1 - begin);
}

bool is_write_family(std::string_view syscall_name) noexcept {
  return find_write_call(syscall_name) != nullptr;
}

bool moves_data(std::string_view syscall_name) noexcept {
  const WriteCall* call = find_write_call(syscall_name);
  return call != nullptr && call->moves_data;
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
constexpr long kMaxSyscall = 1024;

/// The ABI's name for `nr` (libseccomp's), suffixed when the ABI is not the native one.
std::string name_of(const SyscallAbi& abi, int nr) {
  char* raw = ::seccomp_syscall_resolve_num_arch(abi.arch, nr);
  std::string name = raw != nullptr ? raw : "syscall_" + std::to_string(nr);
  std::free(raw);
  if (!abi.label.empty()) name += std::string(kAbiOpen) + std::string(abi.label) + ")";
  return name;
}

/// libseccomp's native number for `name`, or its negative pseudo-number for a call only
/// another ABI has; __NR_SCMP_ERROR for a name no ABI knows.
int filter_number(std::string_view name) {
  return ::seccomp_syscall_resolve_name(std::string(name).c_str());
}

}  // namespace

const std::vector<SyscallAbi>& syscall_abis() {
  static const std::vector<SyscallAbi> abis = [] {
    std::vector<SyscallAbi> list{{::seccomp_arch_native(), ""}};
    // int $0x80 and 32-bit binaries, when the kernel has IA32 emulation; without it no call
    // of this ABI ever arrives and nothing else changes.
    if (list.front().arch == SCMP_ARCH_X86_64) list.push_back({SCMP_ARCH_X86, "i386"});
    return list;
  }();
  return abis;
}

std::vector<ForeignWriteCall> foreign_write_calls() {
  std::vector<ForeignWriteCall> calls;
  const std::vector<SyscallAbi>& abis = syscall_abis();
  for (std::size_t a = 1; a < abis.size(); ++a) {
    for_each_write_call([&](const WriteCall& call) {
      const int nr =
          ::seccomp_syscall_resolve_name_arch(abis[a].arch, std::string(call.name).c_str());
      if (nr < 0) return;  // not in this ABI
      char* native = ::seccomp_syscall_resolve_num_arch(abis[0].arch, nr);
      calls.push_back({name_of(abis[a], nr), nr, native != nullptr ? native : ""});
      std::free(native);
    });
  }
  return calls;
}

SyscallTable::SyscallTable() {
  const std::vector<SyscallAbi>& abis = syscall_abis();
  by_key_.resize(abis.size() * kMaxSyscall);
  for (std::size_t a = 0; a < abis.size(); ++a) {
    for (int nr = 0; nr < kMaxSyscall; ++nr) {
      SyscallInfo& info = by_key_[a * kMaxSyscall + static_cast<std::size_t>(nr)];
      info.name = name_of(abis[a], nr);
      info.native = a == 0;
    }
    add_roles(a);
  }
  // One entry per name: the filter translates it to each ABI that has the call.
  for_each_write_call([&](const WriteCall& call) {
    const int nr = filter_number(call.name);
    if (nr != __NR_SCMP_ERROR) stop_set_.push_back(nr);
  });
  // Not io_uring_enter: it is in the family already.
  for (const char* name : {"close", "close_range", "dup2", "dup3", "unshare", "io_uring_setup"}) {
    const int nr = filter_number(name);
    if (nr != __NR_SCMP_ERROR) stop_set_.push_back(nr);
  }
  unknown_.name = "syscall_unknown";
}

void SyscallTable::add_roles(std::size_t abi) {
  const std::uint32_t arch = syscall_abis()[abi].arch;
  auto at = [&](std::string_view name) -> SyscallInfo* {
    const int nr = ::seccomp_syscall_resolve_name_arch(arch, std::string(name).c_str());
    if (nr < 0 || nr >= kMaxSyscall) return nullptr;  // not in this ABI (no dup2 on arm64)
    return &by_key_[abi * kMaxSyscall + static_cast<std::size_t>(nr)];
  };
  for_each_write_call([&](const WriteCall& call) {
    SyscallInfo* info = at(call.name);
    if (info == nullptr) return;
    info->write_family = true;
    info->moves_data = call.moves_data;
    // PTRACE_GET_SYSCALL_INFO lists every ABI's arguments in call order (i386's ebx, ecx...).
    info->fd_arg = call.fd_arg;
  });
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
    if (SyscallInfo* info = at(name)) info->fd_effect = effect;
  }
  // Not in the stop set: the filter stops clone only when CLONE_UNTRACED is set
  // (seccomp_filter.cc), and clone3 always (its flags are in memory, out of BPF's reach).
  if (SyscallInfo* info = at("clone"))
    info->clone_flags = abi == 0 ? CloneFlagsAt::kRegister : CloneFlagsAt::kRegisterI386;
  if (SyscallInfo* info = at("clone3")) info->clone_flags = CloneFlagsAt::kMemory;
  if (SyscallInfo* info = at("seccomp")) info->loads_filter_a0 = SECCOMP_SET_MODE_FILTER;
  if (SyscallInfo* info = at("prctl")) info->loads_filter_a0 = PR_SET_SECCOMP;
}

long SyscallTable::key(std::uint32_t arch, long nr) const noexcept {
  const std::vector<SyscallAbi>& abis = syscall_abis();
  for (std::size_t a = 0; a < abis.size(); ++a) {
    if (abis[a].arch != arch) continue;
    // Out of range (x32's numbers, with bit 30 set, come as x86-64's arch): info() says unknown.
    if (nr < 0 || nr >= kMaxSyscall) return static_cast<long>(by_key_.size());
    return static_cast<long>(a) * kMaxSyscall + nr;
  }
  return -1;
}

const SyscallInfo& SyscallTable::info(long key) const {
  if (key < 0 || static_cast<std::size_t>(key) >= by_key_.size()) return unknown_;
  return by_key_[static_cast<std::size_t>(key)];
}

}  // namespace tracing
}  // namespace iobench
