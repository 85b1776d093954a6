// log_lines FILE N: N lines through a LineLog, as the application does; its counts are an
// iobench_add_test (CMakeLists.txt).
#include <cstdlib>
#include <string>

#include "line_log.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  LineLog log(argv[1]);
  const long n = std::strtol(argv[2], nullptr, 10);
  for (long i = 0; i < n; ++i) log.add("event " + std::to_string(i));
  return 0;
}
