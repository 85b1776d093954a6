#pragma once

#include <fcntl.h>

#include <cstdint>
#include <string>

#include "strategies/support/line_format.h"

namespace iobench {

/// Checks that the file at path (relative to dir_fd, as openat(2) takes it) holds exactly `Line
/// 0\n` .. `Line <lines-1>\n`, each line in `format` (padded with --line-length). Streams both
/// sides in fixed-size chunks, so memory stays bounded at any size. Returns an empty string when it
/// matches, else one line saying where it differs.
std::string verify_file(const std::string& path, std::uint64_t lines, LineFormat format = {},
                        int dir_fd = AT_FDCWD);

}  // namespace iobench
