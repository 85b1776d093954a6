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

/// What a PATH search saw: the program, or the first file of that name exec would refuse.
struct Search {
  std::string program;
  std::string refused;
};

Search search_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  Search out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = dirs.find(':', start);
    const std::string dir =
        dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (executable(candidate)) {
      out.program = std::move(candidate);
      return out;
    }
    // execvp goes on past a file it may not run, and reports EACCES if nothing else runs.
    if (out.refused.empty() && ::access(candidate.c_str(), F_OK) == 0)
      out.refused = std::move(candidate);
    if (colon == std::string::npos) return out;
    start = colon + 1;
  }
}

/// The status a shell gives a path that cannot run: 127 when nothing is there, else 126.
int status_of(int err) { return err == ENOENT || err == ENOTDIR ? kExitNotFound : kExitCannotRun; }

}  // namespace

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return executable(name) ? name : "";
  return search_path(name).program;
}

std::string resolve_command(const std::string& command, const std::string& name) {
  const std::string what = command.empty() ? "" : command + ": ";
  if (name.find('/') != std::string::npos) {
    errno = 0;
    if (executable(name)) return name;
    // stat's or access's errno; a directory or other non-regular file fails neither.
    const int err = errno ? errno : EACCES;
    throw_errno(what + "cannot run '" + name + "'", err, status_of(err));
  }
  Search found = search_path(name);
  if (!found.program.empty()) return found.program;
  if (!found.refused.empty())
    throw_errno(what + "cannot run '" + name + "' (" + found.refused + ")", EACCES, kExitCannotRun);
  throw Error(what + "command not found: '" + name + "'", kExitNotFound);
}

}  // namespace iobench
