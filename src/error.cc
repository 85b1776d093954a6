#include "error.h"

#include <cstring>

namespace iobench {

void throw_errno(const std::string& what, int err, int exit_status) {
  throw Error(what + ": " + std::strerror(err), exit_status);
}

}  // namespace iobench
