#include "base/capabilities.h"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>

namespace iobench {
namespace {

using CapData = std::array<__user_cap_data_struct, _LINUX_CAPABILITY_U32S_3>;

bool get_caps(CapData& data) noexcept {
  __user_cap_header_struct header{.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  return ::syscall(SYS_capget, &header, data.data()) == 0;
}

bool set_caps(CapData& data) noexcept {
  __user_cap_header_struct header{.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  return ::syscall(SYS_capset, &header, data.data()) == 0;
}

/// Capabilities that came with the binary, not with the user: a non-root process holding any.
/// Asked once, in the parent, before any fork: a child then decides with no syscall.
bool holds_file_capabilities() noexcept {
  static const bool held = [] {
    if (::geteuid() == 0) return false;
    CapData data{};
    if (!get_caps(data)) return false;
    for (const auto& d : data)
      if (d.permitted != 0) return true;
    return false;
  }();
  return held;
}

}  // namespace

void lower_capabilities() noexcept {
  if (!holds_file_capabilities()) return;
  CapData data{};
  if (!get_caps(data)) return;
  for (auto& d : data) d.effective = 0;
  (void)set_caps(data);
}

void drop_file_capabilities() noexcept {
  if (!holds_file_capabilities()) return;
  CapData data{};
  if (!get_caps(data)) return;
  for (auto& d : data) d.permitted = d.effective = 0;
  // The ambient set stays: an exec would have passed it on. It must stay permitted.
  for (int cap = 0; cap <= CAP_LAST_CAP; ++cap) {
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1) {
      auto& d = data[static_cast<std::size_t>(cap / 32)];
      d.permitted |= 1u << (cap % 32);
      d.effective |= 1u << (cap % 32);
    }
  }
  (void)set_caps(data);
  // A binary with file capabilities runs non-dumpable, and so would its forks: a non-root
  // parent could then neither ptrace them nor read their /proc/PID/fd.
  (void)::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

bool holds_capability(int capability) noexcept {
  CapData data{};
  if (capability < 0 || capability > CAP_LAST_CAP || !get_caps(data)) return false;
  return (data[static_cast<std::size_t>(capability / 32)].permitted & (1u << (capability % 32))) !=
         0;
}

RaisedCapabilities::RaisedCapabilities() noexcept {
  if (!holds_file_capabilities()) return;
  CapData data{};
  if (!get_caps(data)) return;
  for (auto& d : data) d.effective = d.permitted;
  raised_ = set_caps(data);
}

RaisedCapabilities::~RaisedCapabilities() {
  if (raised_) lower_capabilities();
}

}  // namespace iobench
