#include "base/error.h"

#include <cstring>

#include <fmt/format.h>

namespace iobench {

void throw_errno(const std::string& what, int err, int exit_status) {
  throw Error(fmt::format("{}: {}", what, std::strerror(err)), exit_status);
}

}  // namespace iobench
