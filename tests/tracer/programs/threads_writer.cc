// threads_writer PATH N: 4 threads, each N write(2) calls of one line to one O_APPEND fd.
#include <thread>
#include <vector>

#include "program_util.h"

using namespace iobench::programs;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int fd = open_out(argv[1], O_APPEND);
  const long n = arg_long(argv[2]);
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int i = 0; i < 4; ++i) threads.emplace_back([fd, n] { write_lines(fd, n); });
  for (auto& t : threads) t.join();
  return 0;
}
