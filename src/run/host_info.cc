#include "run/host_info.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>

namespace iobench {

HostInfo host_info() {
  HostInfo h;
  utsname u{};
  if (::uname(&u) == 0) h.kernel = u.release;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) h.cpu = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  }
  h.cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
#if defined(__clang__)
  h.compiler = fmt::format("clang {}", __clang_version__);
#elif defined(__GNUC__)
  h.compiler = fmt::format("gcc {}", __VERSION__);
#endif
  return h;
}

std::string filesystem_type(const std::string& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return "unknown";
  // The magic numbers of linux/magic.h for the filesystems a benchmark is likely to meet.
  switch (static_cast<unsigned long>(fs.f_type)) {
    case 0xEF53:
      return "ext4";
    case 0x01021994:
      return "tmpfs";
    case 0x58465342:
      return "xfs";
    case 0x9123683E:
      return "btrfs";
    case 0x794C7630:
      return "overlayfs";
    case 0x2FC12FC1:
      return "zfs";
    case 0xF2F52010:
      return "f2fs";
    case 0x6969:
      return "nfs";
    case 0x65735546:
      return "fuse";
    case 0x858458F6:
      return "ramfs";
    case 0x01021997:
      return "9p";
    case 0x5346544E:
      return "ntfs";
    case 0x4d44:
      return "vfat";
    default:
      return fmt::format("0x{:x}", static_cast<unsigned long>(fs.f_type));
  }
}

std::uint64_t io_block_size(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || st.st_blksize <= 0) return 0;
  return static_cast<std::uint64_t>(st.st_blksize);
}

}  // namespace iobench
