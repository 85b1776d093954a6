// A real program for the command-line tests: prints its arguments exactly as it got them,
// one per line in brackets ("[a b]"), after "argc=N". With ARGV_PRINTER_OUT set, it appends
// the same text to that file instead of stdout (for `iobench compare`, whose commands write
// to /dev/null).
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  std::string text = "argc=" + std::to_string(argc) + "\n";
  for (int i = 1; i < argc; ++i) text += std::string("[") + argv[i] + "]\n";
  int fd = STDOUT_FILENO;
  if (const char* path = std::getenv("ARGV_PRINTER_OUT"))
    fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return 1;
  // One write: the output of each run stays whole in the appended file.
  return ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) ? 0 : 1;
}
