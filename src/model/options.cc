#include "model/options.h"

#include "base/environment.h"

namespace iobench {

std::string default_dir() {
  const char* tmp = user_getenv("TMPDIR");  // the user's, also where secure mode cut it
  return tmp && *tmp ? tmp : "/tmp";
}

}  // namespace iobench
