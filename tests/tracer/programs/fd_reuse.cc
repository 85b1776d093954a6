// fd_reuse DIR N WRITER: one fd number, six files, every way a number is freed and taken
// again. DIR/a gets N lines, b N+1, c N+2, d N+3, f N+4, and after exec e N+5 (written by
// "WRITER DIR/e N+5"). Exit 10+ when the kernel did not reuse the number as planned.
#include <linux/close_range.h>

#include <string>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const std::string dir = argv[1];
  const long n = arg_long(argv[2]);
  auto path = [&](const char* name) { return dir + "/" + name; };

  const int k = open_out(path("a").c_str());
  write_lines(k, n);
  ::close(k);  // freed by close

  if (open_out(path("b").c_str()) != k) return 10;
  write_lines(k, n + 1);

  const int c = open_out(path("c").c_str());
  if (::dup2(c, k) != k) return 11;  // b freed by dup2 onto it
  ::close(c);
  write_lines(k, n + 2);

  if (::close_range(k, k, 0) != 0) return 12;  // freed by close_range
  if (open_out(path("d").c_str()) != k) return 13;
  write_lines(k, n + 3);

  const int f = open_out(path("f").c_str());
  if (::dup3(f, k, O_CLOEXEC) != k) return 14;  // d freed by dup3 onto it
  ::close(f);
  write_lines(k, n + 4);

  // k is O_CLOEXEC: exec frees it, and the writer's first open takes it again.
  const std::string e = path("e");
  const std::string count = std::to_string(n + 5);
  char* args[] = {argv[3], const_cast<char*>(e.c_str()), const_cast<char*>(count.c_str()), nullptr};
  ::execv(args[0], args);
  return 15;
}
