// File capabilities: `setcap cap_bpf,cap_perfmon+ep iobench` lets a non-root user get kernel
// times (README "Kernel times without root"). iobench holds them permitted, effective only
// while a backend loads or attaches (RaisedCapabilities), and every child it forks drops
// them (fork_tree calls drop_file_capabilities): a strategy's code and a traced command see
// what they would see untraced. Root's capabilities are its own and left alone.
#pragma once

namespace iobench {

/// At start-up: nothing effective until a backend asks. No-op for root or without any.
void lower_capabilities() noexcept;

/// In a child before anything of its own runs: permitted and effective cut to the ambient
/// set (what an exec would pass on anyway), and dumpable again, so that its non-root parent
/// can trace it and read its /proc. No-op (no syscall) for root or without any.
void drop_file_capabilities() noexcept;

/// Whether `capability` (CAP_PERFMON, ...) is permitted: root's, or the binary's own.
bool holds_capability(int capability) noexcept;

/// Effective = permitted for its lifetime (a backend's load, attach and reads).
class RaisedCapabilities {
 public:
  RaisedCapabilities() noexcept;
  ~RaisedCapabilities();
  RaisedCapabilities(const RaisedCapabilities&) = delete;
  RaisedCapabilities& operator=(const RaisedCapabilities&) = delete;

 private:
  bool raised_ = false;
};

}  // namespace iobench
