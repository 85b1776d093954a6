#!/usr/bin/env bash
# What a write(2) costs the program's own code around it, beside the call itself: the
# difference between (format a line + write it) and (format only) per line, against a loop
# of the write alone. The first is what the demo's untraced reference ((unbuffered -
# format-only) / N) measures, the second what a tracer timing the call's own interval can
# see; the ratio above 1 is the code after each call running on caches and predictors the
# kernel left cold. Medians of 15 rounds of 100,000 lines each, to a file in DIR.
# Usage: tools/indirect_cost.sh [DIR]   (needs cc)
set -euo pipefail
dir=${1:-/tmp}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/indirect.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
enum { kLines = 100000, kRounds = 15 };
static char line[64];
static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}
static long format_and_write(int fd) {
  long t0 = now_ns();
  for (int i = 0; i < kLines; i++) {
    int n = snprintf(line, sizeof line, "Line %d\n", i);
    if (write(fd, line, n) != n) exit(1);
  }
  return now_ns() - t0;
}
static long format_only(void) {
  long t0 = now_ns();
  for (int i = 0; i < kLines; i++) {
    int n = snprintf(line, sizeof line, "Line %d\n", i);
    __asm__ volatile("" : : "r"(line), "r"(n) : "memory");
  }
  return now_ns() - t0;
}
static long write_only(int fd) {
  long t0 = now_ns();
  for (int i = 0; i < kLines; i++)
    if (write(fd, "Line 12345\n", 11) != 11) exit(1);
  return now_ns() - t0;
}
static int cmp(const void* a, const void* b) {
  long x = *(const long*)a, y = *(const long*)b;
  return x < y ? -1 : x > y;
}
int main(int argc, char** argv) {
  long both[kRounds], fmt[kRounds], wr[kRounds];
  for (int r = 0; r < kRounds; r++) {
    int fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0) return 1;
    both[r] = format_and_write(fd);
    close(fd);
    fmt[r] = format_only();
    fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0) return 1;
    wr[r] = write_only(fd);
    close(fd);
  }
  qsort(both, kRounds, sizeof(long), cmp);
  qsort(fmt, kRounds, sizeof(long), cmp);
  qsort(wr, kRounds, sizeof(long), cmp);
  long m = kRounds / 2;
  double diff = (double)(both[m] - fmt[m]) / kLines, alone = (double)wr[m] / kLines;
  printf("per line: format+write %.1f ns, format %.1f ns, difference %.1f ns; write alone %.1f ns; "
         "ratio %.3f\n", (double)both[m] / kLines, (double)fmt[m] / kLines, diff, alone,
         diff / alone);
  unlink(argv[1]);
  return 0;
}
C
cc -O2 -o "$tmp/indirect" "$tmp/indirect.c"
"$tmp/indirect" "$dir/iobench-indirect-$$"
