// What a counting backend measures, as plain data. The CLI, the runner and every reporter ask
// these (through tracer/counting_backend.h), never a backend's name: a new backend declares
// its traits and nothing outside tracer/ changes (as fio's engines declare their flags).
#pragma once

namespace iobench {

struct BackendTraits {
  const char* name = "";   // --tracer's word; JSON's "backend" and "trace_backend"
  const char* label = "";  // the results' heading: "ptrace + seccomp"
  const char* help = "";   // --tracer's help, after the name: what it is, what it needs
  const char* noun = "";   // in a sentence: "perf counters unavailable (...)"
  // What a counted call costs the traced program, roughly: auto takes the cheapest backend
  // that gives what the run needs.
  unsigned call_cost_ns = 0;
  bool times = false;    // times calls (timing mode); without it the backend counts only
  bool returns = false;  // sees each call's return (timing mode): errors and bytes
  // Splits calls by the file and fd kind they named (TraceResult::files), so a program's
  // write_calls leave out its stdout, terminals, pipes and sockets.
  bool per_file = false;
  bool per_process = false;    // splits them by process (`trace --per-process`)
  bool every_syscall = false;  // can count any syscall, not just the write family (--trace-all)
  // Its times have its own calibrated cost per call taken out (subtracted_cost_ns()).
  bool subtracts_tracer_cost = false;
  // What that per-call figure is, in the footer: "tracer cost"; where it may be negative (a
  // clock whose interval misses part of the call), a negative one is said as added.
  const char* correction = "tracer cost";
  // Measures that cost beside each run, after it (bpf); off: calibrated once, before the
  // first traced run (ptrace), which the runner then asks for first.
  bool costs_measured_beside_runs = false;
  // Pins itself with --pin, and a strategy's traced run beside it (README "Pinning").
  bool pins = false;
  // --tracer auto may choose it (choose_backend); off: only when named.
  bool automatic = true;
  // Passes the first Ctrl-C to the traced command and reports once it is gone, as strace
  // does (`trace`: README "Ctrl-C"); without it an interrupt ends the run.
  bool passes_first_interrupt = false;
  // auto says so on stderr when it cannot run here and another counts instead; off where
  // that is the usual case (no privileges), which the footer's backend name already tells.
  bool note_when_passed_over = true;
};

}  // namespace iobench
