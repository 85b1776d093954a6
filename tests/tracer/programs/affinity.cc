// affinity: exits with the number of CPUs in its own affinity mask (capped at 120), so a
// test can compare what the program sees traced and untraced. Makes no write-family call.
#include <sched.h>

int main() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return 125;
  const int n = CPU_COUNT(&set);
  return n > 120 ? 120 : n;
}
