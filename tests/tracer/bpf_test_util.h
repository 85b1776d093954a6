// What the kernel clock's tests share: the skip where bpf cannot load, one run of a real
// program, and look-ups into its result.
#pragma once

#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <string>
#include <vector>

#include "tracer/bpf_clock.h"
#include "tracer/syscalls.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {

/// Skips the test, saying why, where the kernel clock cannot load (no root, no libbpf).
#define SKIP_WITHOUT_BPF()                                                             \
  do {                                                                                 \
    if (const std::string why = tracing::bpf_clock_unavailable_reason(); !why.empty()) \
      GTEST_SKIP() << "kernel clock unavailable: " << why;                             \
  } while (0)

inline tracing::BpfClockConfig write_family(bool trace_all = false) {
  static const tracing::SyscallTable table;
  return tracing::write_family_config(table, trace_all);
}

/// `args` exec'd under `clock`.
inline tracing::BpfClockRun run_under(tracing::BpfClock& clock,
                                      const std::vector<std::string>& args) {
  const Command command(args);
  return clock.run(command.fn());
}

/// `args` exec'd under a clock of its own (loaded for it).
inline tracing::BpfClockRun run_under_bpf(const std::vector<std::string>& args,
                                          tracing::BpfClockConfig config = write_family()) {
  tracing::BpfClock clock(std::move(config));
  return run_under(clock, args);
}

inline const tracing::BpfSyscallStats* find_call(const tracing::BpfClockRun& r, int nr,
                                                 bool compat = false) {
  for (const auto& s : r.syscalls)
    if (s.nr == nr && s.compat == compat) return &s;
  return nullptr;
}

inline std::uint64_t bpf_calls(const tracing::BpfClockRun& r, int nr, bool compat = false) {
  const auto* s = find_call(r, nr, compat);
  return s == nullptr ? 0 : s->calls;
}

/// Per-file totals of `path` (by its inode now: the file still exists).
inline std::vector<tracing::BpfFileStats> files_of(const tracing::BpfClockRun& r,
                                                   const std::string& path) {
  struct stat st {};
  std::vector<tracing::BpfFileStats> out;
  if (::stat(path.c_str(), &st) != 0) return out;
  for (const auto& f : r.files)
    if (f.ino == st.st_ino && f.dev == st.st_dev) out.push_back(f);
  return out;
}

}  // namespace iobench::tracer_test
