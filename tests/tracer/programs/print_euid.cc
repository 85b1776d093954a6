// print_euid: prints its effective uid, to show whether an exec honoured the setuid bit.
// Its one write(2) goes to stdout.
#include <unistd.h>

#include <cstdio>

int main() {
  std::printf("%u\n", static_cast<unsigned>(::geteuid()));
  return 0;
}
