// Facts about the machine and the directory a run measures, gathered before anything is
// rendered (the commands put them in the run record: model/run_record.h).
#pragma once

#include <cstdint>
#include <string>

#include "model/run_record.h"  // HostInfo

namespace iobench {

HostInfo host_info();

/// Filesystem type of path ("ext4", "tmpfs", ...; ext2/3/4 share one magic and all read
/// "ext4"), or "0x<magic>" when unknown.
std::string filesystem_type(const std::string& path);

/// st_blksize of a file in dir: the buffer glibc gives a FILE* there. 0 when unknown.
std::uint64_t io_block_size(const std::string& dir);

}  // namespace iobench
