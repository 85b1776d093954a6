// The kernel clock's program as objects: the bpftool skeleton of tracer/bpf/syscall_clock.bpf.c
// behind RAII (unloaded in the destructor), its config and its maps read as plain values.
// In a build without libbpf (IOBENCH_HAVE_BPF 0), load() throws with the reason.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tracer/bpf/clock_abi.h"
#include "tracer/bpf_clock.h"
#include "tracer/fd_kind.h"
#include "tracer/latency_histogram.h"

namespace iobench::tracing {

/// The program's const volatile config, copied into its .rodata before load.
struct BpfRodata {
  std::uint8_t flags[CLOCK_KEYS] = {};
  std::int8_t fd_arg[CLOCK_KEYS] = {};
  std::uint8_t hist_slot[CLOCK_KEYS] = {};
  bool direct_reads = true;  // BpfClockConfig::direct_reads, where the kernel can
};

/// Why this build has no kernel clock; empty when it has one.
std::string bpf_build_gap();
/// Why the kernel clock cannot run here, from a trivial raw_tp program loaded and attached to
/// sys_enter for an instant (about a millisecond, where the real program's load reads the
/// kernel's BTF for tens): privileges, the program type, the tracepoint, the BTF CO-RE needs.
/// Empty when it can.
std::string bpf_probe_gap();

class BpfLoader {
 public:
  BpfLoader();
  ~BpfLoader();
  BpfLoader(const BpfLoader&) = delete;
  BpfLoader& operator=(const BpfLoader&) = delete;

  BpfRodata& rodata() noexcept { return rodata_; }
  /// Opens, verifies and JITs the program with rodata(). Throws Error with the reason.
  void load();
  /// Follows the process `tgid` (and, from now on, every process it forks).
  void track(pid_t tgid);
  /// Stops following process `tgid` and what it forked, and forgets their threads (with any
  /// sums they had not yet added to the tables).
  void untrack(pid_t tgid);
  /// Attaches the raw tracepoints; detach() removes them (the maps stay readable).
  void attach();
  void detach() noexcept;
  /// The traced program's standard streams (fd_kind.h), for the rings' writes
  /// (syscall_clock.bpf.c).
  void set_streams(const std::vector<FileId>& streams);
  /// Empties every map (counts, histograms, files, the tree, the slots) for the next run.
  void reset();

  /// One syscall key's totals, summed over CPUs.
  clock_stat stat(int key) const;
  LatencyHistogram histogram(int slot) const;
  void for_each_file(
      const std::function<void(const clock_file_key&, const clock_file_stat&)>& f) const;
  /// What the kernel named each file (clock_file_stat::name is the key).
  void for_each_name(
      const std::function<void(const clock_name_key&, const clock_file_name&)>& f) const;
  /// What the maps had no room for in this run (clock_abi.h).
  clock_lost lost() const;
  /// The programs whose exec left the tree (other credentials, on borrowed capabilities).
  std::vector<std::string> privileged_programs() const;
  /// Each program's runs and time in them so far (bpf_clock.h, BpfProgramCost).
  std::vector<BpfProgramCost> program_costs() const;
  void for_each_process(
      const std::function<void(const clock_proc_key&, const clock_proc_stat&)>& f) const;
  /// The comm of process `tgid` when it ended; empty if it was not seen ending.
  std::string comm(pid_t tgid) const;
  /// How long process `tgid`'s leader thread was runnable but off a CPU (preempted, in a
  /// call or in user space) from its first traced call to the end of its last; -1 if it was
  /// not seen exiting.
  std::int64_t waited_ns(pid_t tgid) const;
  /// The last SIGINT sent to process `tgid` while it was followed, and how many it had
  /// (count 0: none).
  clock_sigint last_sigint(pid_t tgid) const;

 private:
  struct Impl;
  BpfRodata rodata_;
  std::unique_ptr<Impl> impl_;
};

/// The null syscall the bias is measured on (getppid): every BpfClock's program times it.
inline constexpr int kBiasCall = 110;  // x86-64's getppid; bpf_bias.cc checks it
/// measure_bpf_bias on an already loaded program whose config times kBiasCall.
/// `null_call` false: no getppid stretches (half the time, ~100 ms beside each run where a
/// call is ~1 us); the write's figures then stand for other calls' too.
BpfBias measure_bias_with(BpfLoader& loader, int stretches, int calls_per_stretch, bool null_call);

}  // namespace iobench::tracing
