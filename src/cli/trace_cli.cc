// `iobench trace`'s flags, and its words: where iobench's options end and the traced
// command begins.
#include "cli/trace_cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <utility>

#include "base/error.h"
#include "check/expect.h"
#include "check/program_baseline.h"
#include "cli/cli.h"
#include "cli/cli_values.h"
#include "cli/help_format.h"
#include "report/reporter.h"
#include "tracer/counting_backend.h"

namespace iobench {

CLI::App* TraceFlags::add(CLI::App& app) {
  CLI::App* trace = app.add_subcommand(
      "trace", "Run COMMAND under the tracer: its write-family syscalls, like strace -c");
  // Its own Usage line: CLI11's would lack COMMAND.
  trace->formatter(std::make_shared<HelpFormatter>(help_width(),
                                                   "iobench trace [options] -- COMMAND [ARGS...]"));
  trace->footer(
      "COMMAND gets every word after the first -- (or from the first word that is not\n"
      "an option) unchanged. The table goes to stderr and JSON to stdout; -o FILE puts\n"
      "either in FILE instead. When every check asks for counts (each --expect, and a\n"
      "--baseline, which compares counts), the run counts only (as --count-only: no\n"
      "calibration, one stop per call); --latency or --time-all times it. Exits with\n"
      "COMMAND's status (128+N if signal N killed it), 124 when --timeout fired, 126\n"
      "when COMMAND cannot be executed (no execute bit, no #! interpreter), 127 when it\n"
      "is not found. When it exited 0: 1 an --expect or the --baseline failed (a count\n"
      "above it; below it too with --exact-counts), 4 an output could not be written\n"
      "(the report, an export, a baseline).");
  trace->add_option("--format", format_, "The report as a table or JSON (default table)")
      ->type_name(choices(format_words(true)));
  trace->add_flag("--per-process", o_.per_process, "Also a table per process");
  timeout_.add(*trace, "Kill COMMAND after DURATION");
  trace
      ->add_option("-o,--output", o_.output,
                   "Write the report (table or JSON) to FILE, not to stderr/stdout")
      ->type_name(metavar::kFile);
  trace
      ->add_option("--export-json", o_.export_json,
                   "Also write the iobench-trace/1 JSON document to FILE")
      ->type_name(metavar::kFile);
  check_.add(*trace);
  trace
      ->add_option("--name", name_,
                   "The program's name in a baseline (default: COMMAND's last path component)")
      ->type_name("NAME");
  tracer_.add(*trace);
  trace->add_flag("--latency", latency_, "Time the calls even when every check is a count");
  return trace;
}

TracerFlags TraceFlags::tracer_options(const std::vector<Expectation>& checks) const {
  TracerFlags flags = tracer_;
  if (flags.count_only || flags.time_all || latency_) return flags;
  if (checks.empty() && !check_.compares()) return flags;  // no check: the table times the calls
  // Count mode sees no call's return and times nothing, on every backend (measures()).
  const TraceMeasures counted = measures(*fallback_backend().traits, TraceMode::kCount);
  flags.count_only = std::all_of(checks.begin(), checks.end(),
                                 [&](const Expectation& e) { return judged_by(e, counted); });
  return flags;
}

TraceCommandOptions TraceFlags::options(std::vector<std::string> command) const {
  if (command.empty())
    throw Error("trace: no command given (iobench trace [options] -- COMMAND [ARGS...])");
  TraceCommandOptions o = o_;
  o.command = std::move(command);
  o.expectations = check_.expectations({}, tracer_.trace_all);
  o.tracer = tracer_options(o.expectations)
                 .options(true, o.per_process, /*program=*/true,
                          /*first_interrupt=*/true);
  // trace renders a table or its iobench-trace/1 JSON; CSV and Markdown are bench rows.
  const FormatInfo* format = find_format(format_);
  if (!format || !format->trace)
    throw Error("trace --format: unknown format '" + format_ + "' (" + format_names(true) + ")");
  o.format = format->format;
  o.timeout = timeout_.value();
  o.export_junit = check_.export_junit();
  check_output_files({{"--output", &o.output}, {"--export-json", &o.export_json}});
  check_.check_files();
  std::vector<OutputPath> files = {{"--output", o.output}, {"--export-json", o.export_json}};
  o.baseline = check_.baseline(files);
  o.name = program_name(name_, o.command.front());
  for (OutputPath& f : check_.files()) files.push_back(std::move(f));
  check_distinct_outputs(files);
  return o;
}

TraceWords split_trace_words(const CLI::App& trace, const std::vector<std::string>& words) {
  TraceWords out;
  std::size_t i = 0;
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") {  // the documented form: everything after the first -- is the command's
      ++i;
      break;
    }
    if (w.size() < 2 || w[0] != '-') break;  // the first word that is no option starts it
    const bool long_form = w[1] == '-';
    const std::size_t eq = long_form ? w.find('=') : std::string::npos;
    const std::string name = long_form ? w.substr(0, eq) : w.substr(0, 2);
    const CLI::Option* option = trace.get_option_no_throw(name);
    if (option == nullptr)
      throw Error(
          fmt::format("trace: unknown option '{}' (the command's own options go after it: "
                      "iobench trace [options] -- COMMAND [ARGS...])",
                      name));
    out.options.push_back(w);
    // --format json, -o FILE: the value is the next word, unless it came with = or -oFILE.
    const bool value_inline = long_form ? eq != std::string::npos : w.size() > 2;
    if (option->get_items_expected_max() > 0 && !value_inline && i + 1 < words.size())
      out.options.push_back(words[++i]);
  }
  out.command.assign(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
  return out;
}

}  // namespace iobench
