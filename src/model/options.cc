#include "model/options.h"

#include <cstdlib>

namespace iobench {

std::string default_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

}  // namespace iobench
