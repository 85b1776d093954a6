#include "base/program_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "base/error.h"

namespace iobench {
namespace {

bool executable(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return executable(name) ? name : "";
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = dirs.find(':', start);
    const std::string dir =
        dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (executable(candidate)) return candidate;
    if (colon == std::string::npos) return "";
    start = colon + 1;
  }
}

std::string resolve_command(const std::string& command, const std::string& name) {
  errno = 0;
  std::string program = find_program(name);
  if (!program.empty()) return program;
  // stat's or access's errno; a directory or other non-regular file fails neither.
  if (name.find('/') != std::string::npos)
    throw_errno(command + ": cannot run '" + name + "'", errno ? errno : EACCES);
  throw Error(command + ": command not found: '" + name + "'");
}

}  // namespace iobench
