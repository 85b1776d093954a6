#pragma once

#include <string>

namespace iobench {

/// Where a result was measured: printed with every table and stored in every export.
struct HostInfo {
  std::string kernel;    // uname -r
  std::string cpu;       // model name from /proc/cpuinfo
  int cpus = 0;          // online CPUs
  std::string compiler;  // what built iobench
};

HostInfo host_info();

/// Filesystem type of path ("ext4", "tmpfs", ...; ext2/3/4 share one magic and all read
/// "ext4"), or "0x<magic>" when unknown.
std::string filesystem_type(const std::string& path);

}  // namespace iobench
