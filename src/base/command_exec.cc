#include "base/command_exec.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "base/environment.h"
#include "base/error.h"

namespace iobench {

CommandExec::CommandExec(std::string program, std::vector<std::string> args)
    : program_(std::move(program)), args_(std::move(args)) {
  if (!errno_) throw_errno("mmap for the command's exec status", errno, kExitRunFailed);
  for (std::string& a : args_) argv_.push_back(a.data());
  argv_.push_back(nullptr);
}

int CommandExec::exec() const noexcept {
  // The user's environment, also where iobench's own was cut (base/environment.h).
  ::execve(program_.c_str(), argv_.data(), user_environment());
  *errno_.get() = errno;
  return kExitCannotRun;
}

std::string CommandExec::failure() const {
  const int err = failed_errno();
  const std::string& name = args_.front();
  std::string why = fmt::format("cannot execute '{}': {}", name, std::strerror(err));
  std::ifstream in(program_, std::ios::binary);
  std::string first(256, '\0');  // the kernel reads no more of a #! line than this
  in.read(first.data(), static_cast<std::streamsize>(first.size()));
  first.resize(static_cast<std::size_t>(in.gcount()));
  first = first.substr(0, first.find('\n'));
  const bool binary = first.find('\0') != std::string::npos || first.starts_with("\177ELF");
  if (err == ENOENT && first.starts_with("#!")) {
    const std::size_t begin = first.find_first_not_of(" \t", 2);
    const std::string interpreter = begin == std::string::npos ? "" : first.substr(begin);
    why += fmt::format(" (its #! interpreter '{}')", interpreter.substr(0, interpreter.find(' ')));
  } else if (err == ENOEXEC && !binary && !first.starts_with("#!")) {
    why += " (a script needs a #! line)";
  }
  return why;
}

}  // namespace iobench
