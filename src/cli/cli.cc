#include "cli/cli.h"
#include "cli/cli_values.h"
#include "cli/knobs.h"
#include "report/dirs.h"

#include <sys/statvfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "base/error.h"
#include "cli/tracer_flags.h"
#include "report/gnuplot.h"
#include "report/output_file.h"
#include "run/run_plan.h"
#include "strategies/registry.h"
#include "strategies/support/line_format.h"
#include "tracer/perf_counter.h"

namespace iobench {
namespace {

constexpr const char* kExitStatusHelp =
    "Exit status: 0 all measured (unsupported rows are fine); 1 an expectation or baseline\n"
    "failed; 2 bad usage or unusable environment, found before anything ran; 3 some\n"
    "strategies failed while running; 128+N killed by signal N. `iobench trace` exits with\n"
    "the traced command's status (124 on --timeout; see iobench trace --help).";

void check_dir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) throw_errno("--dir " + dir, errno);
  if (!S_ISDIR(st.st_mode)) throw Error("--dir " + dir + ": not a directory");
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
    throw Error("--dir " + dir + ": read-only filesystem");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw_errno("--dir " + dir, errno);
}

std::string format_bytes_plain(std::uint64_t n) {
  return n == UINT64_MAX ? "more than 16 EiB" : fmt::format("{} bytes", n);
}

/// One output file exists at a time (one per strategy with --keep); refuse up front rather
/// than fail every row with ENOSPC.
void check_space(const std::string& dir, std::uint64_t bytes, std::size_t files) {
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) != 0) return;
  std::uint64_t free_bytes = 0, need = 0;
  if (__builtin_mul_overflow(vfs.f_bavail, vfs.f_frsize, &free_bytes)) free_bytes = UINT64_MAX;
  if (__builtin_mul_overflow(bytes, files, &need)) need = UINT64_MAX;
  if (need > free_bytes)
    throw Error(fmt::format("--lines: needs {} in {} but only {} are free", format_bytes_plain(need),
                            dir, format_bytes_plain(free_bytes)));
}

/// Parses every --expect; `trace` limits them to what `iobench trace` measures.
std::vector<Expectation> parse_expectations(const std::vector<std::string>& texts, bool trace,
                                            const std::vector<const Strategy*>& strategies,
                                            bool trace_all) {
  std::vector<Expectation> out;
  for (const auto& text : texts) {
    Expectation e = parse_expectation(text);
    static const char* const kMetrics[] = {"write_calls", "bytes", "time_ns", "cpu_ns", "page_faults"};
    bool builtin = std::find_if(std::begin(kMetrics), std::end(kMetrics),
                                [&](const char* m) { return e.metric == m; }) != std::end(kMetrics);
    if (!builtin && !is_syscall_name(e.metric))
      throw Error(fmt::format("--expect '{}': unknown metric '{}' (write_calls, bytes, time_ns, "
                              "cpu_ns, page_faults, or a syscall name such as write)", text, e.metric));
    if (!builtin) require_traced(e, trace_all);
    if (trace) {
      if (!e.strategy.empty())
        throw Error(fmt::format("--expect '{}': iobench trace has no strategies; drop '{}.'", text, e.strategy));
      if (e.metric == "cpu_ns" || e.metric == "page_faults")
        throw Error(fmt::format("--expect '{}': iobench trace does not measure {}", text, e.metric));
    } else if (!e.strategy.empty() &&
               std::none_of(strategies.begin(), strategies.end(),
                            [&](const Strategy* s) { return s->name == e.strategy; })) {
      throw Error(fmt::format("--expect '{}': strategy '{}' is not being run", text, e.strategy));
    }
    out.push_back(e);
  }
  return out;
}

/// Every file the run will write, checked now: a bad path is a usage error before minutes
/// of measuring, not a failure after them.
void check_output_files(const BenchOptions& o) {
  const std::pair<const char*, const std::string*> files[] = {
      {"--export-json", &o.export_json},
      {"--export-csv", &o.export_csv},
      {"--export-markdown", &o.export_markdown},
      {"--export-junit", &o.export_junit},
      {"--save-baseline", &o.save_baseline}};
  for (const auto& [flag, path] : files)
    if (!path->empty()) check_output_file(flag, *path);
  if (!o.plot.empty()) check_plot_option(o.plot);
}

}  // namespace

Command parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"iobench: what a program's writes really cost. Every strategy writes the same N\n"
               "lines to a file in a fresh child; times come from untraced runs, syscall counts\n"
               "and syscall time from one traced run (ptrace + seccomp-BPF).",
               "iobench"};
  app.footer(kExitStatusHelp);
  app.set_help_flag("-h,--help", "Print this help and exit");
  // A flag given twice takes its last value, as in most tools (scripts append overrides).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  std::string lines = "100000", strategy = "all", runs = "auto", warmup = "1", dir = default_dir();
  std::string format = "table", timeout;
  KnobFlags knobs;
  std::vector<std::string> expects, trace_expects;
  std::string count_tolerance, time_tolerance = "25%";
  BenchOptions o;
  bool keep = false, list = false, version = false, no_trace = false, no_interleave = false;
  TracerFlags tracer_flags;

  app.add_option("-n,--lines", lines, "Lines to write (default 100000)");
  app.add_option("-s,--strategy", strategy, "'all' or a comma list (see --list)");
  app.add_option("-r,--runs", runs,
                 "Timed runs per strategy, or auto (default: at least 5 and 0.2 s each, at most 100)");
  app.add_option("-w,--warmup", warmup, "Untimed runs before them (default 1)");
  app.add_option("--dir", dir,
                 "Where the private directory is made (default $TMPDIR or /tmp); a comma list "
                 "runs in each, e.g. /tmp,/dev/shm");
  app.add_flag("--no-interleave", no_interleave,
               "Time each strategy's runs together, not in one random order with the others");
  app.add_flag("--keep", keep, "Keep one verified <strategy>.out per strategy");
  knobs.add(app);  // --buffer-size ... --direct: the table in knobs.cc
  app.add_option("--format", format, "table, json, csv or markdown (default table)");
  app.add_option("--expect", expects, "[STRATEGY.]METRIC OP VALUE, e.g. 'buffered.write_calls<=20'; exit 1 on FAIL")
      ->take_all()->allow_extra_args(false);
  app.add_option("--export-json", o.export_json, "Also write the JSON document to FILE");
  app.add_option("--export-csv", o.export_csv, "Also write CSV to FILE");
  app.add_option("--export-markdown", o.export_markdown, "Also write a Markdown table to FILE");
  app.add_option("--export-junit", o.export_junit, "Also write every --expect and baseline comparison as JUnit XML to FILE");
  app.add_option("--save-baseline", o.save_baseline, "Write the JSON result to FILE as a baseline");
  app.add_option("--baseline", o.baseline, "Compare with a saved baseline; exit 1 on a regression");
  app.add_option("--count-tolerance", count_tolerance, "Calls a count may differ from the baseline by (default 0)");
  app.add_option("--time-tolerance", time_tolerance, "How much slower a median may be (default 25%)");
  app.add_option("--timeout", timeout, "Kill a run after SECONDS (status timeout)");
  app.add_flag("--no-trace", no_trace, "Skip the traced run (no counts)");
  tracer_flags.add(app);
  std::string color = "auto", sort, columns;
  app.add_option("--color", color, "Table colour: auto (on a terminal, unless NO_COLOR is set), always, never");
  app.add_option("--columns", columns, "Fit the table to N columns (default: the terminal's width; no limit when piped)");
  app.add_option("--sort", sort, "Table rows by name, time or syscalls (default: the strategies' order)");
  app.add_option("--plot", o.plot, "Also draw the results as an SVG chart to FILE (needs gnuplot)");
  app.add_flag("--latency", o.latency,
               "Add the write calls' p50/p99/max latency columns (traced run, timing mode); "
               "with --plot, draw their latency CDFs instead");
  app.add_flag("--list", list, "List the strategies and exit");
  app.add_flag("-V,--version", version, "Print the version and exit");

  TraceCommandOptions trace_opts;
  std::string trace_format = "table", trace_timeout;
  TracerFlags trace_flags;
  CLI::App* trace = app.add_subcommand(
      "trace", "Run COMMAND under the tracer and print its write-family syscalls (like strace -c)");
  trace->footer(
      "Usage: iobench trace [options] -- COMMAND [ARGS...]\n"
      "COMMAND gets every word after the first -- (or from the first word that is not an\n"
      "option) unchanged. The table goes to stderr and JSON to stdout; -o FILE puts either\n"
      "in FILE instead. Exits with COMMAND's status (128+N if signal N killed it), 124 when\n"
      "--timeout fired, 126 or 127 when COMMAND could not be executed.");
  trace->add_option("--format", trace_format, "table or json (default table)");
  trace->add_flag("--per-process", trace_opts.per_process, "Also a table per process");
  trace->add_option("--timeout", trace_timeout, "Kill COMMAND after SECONDS");
  trace->add_option("--expect", trace_expects, "METRIC OP VALUE, e.g. 'write<=300'; exit 1 on FAIL")
      ->take_all()->allow_extra_args(false);
  trace->add_option("-o,--output", trace_opts.output,
                    "Write the report (table or JSON) to FILE, not to stderr/stdout");
  trace->add_option("--export-json", trace_opts.export_json,
                    "Also write the iobench-trace/1 JSON document to FILE");
  trace->add_option("--export-junit", trace_opts.export_junit,
                    "Also write every --expect as JUnit XML to FILE");
  trace_flags.add(*trace);

  // sweep and compare parse their own words (sweep.cc, compare.cc).
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run one strategy at each value of one flag, e.g. --buffer-size 1,16,256,4K,64K,1M");
  CLI::App* compare = app.add_subcommand(
      "compare", "Run real programs side by side: compare -n c './writer_c out.txt' -n go ...");
  for (CLI::App* sub : {sweep, compare}) {
    sub->prefix_command();
    sub->set_help_flag();
    sub->allow_extras();
  }

  // trace's command must reach it exactly as typed: CLI11 sees only the words before it.
  constexpr const char* kTraceFirst =
      "trace: must be the first word (iobench trace [options] -- COMMAND [ARGS...])";
  const bool trace_first = argc > 1 && std::string_view(argv[1]) == "trace";
  std::vector<const char*> args(argv, argv + argc);
  TraceWords trace_words;  // outlives the parse: args points into it
  if (trace_first) {
    trace_words = split_trace_words(*trace, {argv + 2, argv + argc});
    args.resize(2);
    for (const auto& w : trace_words.options) args.push_back(w.c_str());
  }
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp&) {
    return HelpCommand{app.help()};
  } catch (const CLI::CallForAllHelp&) {
    return HelpCommand{app.help("", CLI::AppFormatMode::All)};
  } catch (const CLI::ParseError& e) {
    if (*trace && !trace_first) throw Error(kTraceFirst);  // its words were parsed as ours
    std::string what = e.what();
    throw Error(what.empty() ? "bad command line" : what);
  }

  if (version) return VersionCommand{};
  if (list) return ListCommand{};
  for (CLI::App* sub : {sweep, compare}) {
    if (!*sub) continue;
    std::vector<std::string> args = sub->remaining();
    if (std::find(args.begin(), args.end(), "--help") != args.end() ||
        std::find(args.begin(), args.end(), "-h") != args.end())
      return HelpCommand{sub == sweep ? sweep_help() : compare_help()};
    if (sub == sweep) return parse_sweep(args);
    return parse_compare(args);
  }

  if (*trace) {
    if (!trace_first) throw Error(kTraceFirst);
    if (trace_words.command.empty())
      throw Error("trace: no command given (iobench trace [options] -- COMMAND [ARGS...])");
    trace_opts.command = trace_words.command;
    trace_opts.tracer = trace_flags.options(true, trace_opts.per_process, /*program=*/true);
    // trace renders a table or its iobench-trace/1 JSON; CSV and Markdown are bench rows.
    if (trace_format != "table" && trace_format != "json")
      throw Error("trace --format: unknown format '" + trace_format + "' (table, json)");
    trace_opts.format = parse_format(trace_format);
    if (!trace_timeout.empty()) trace_opts.timeout = parse_timeout(trace_timeout);
    trace_opts.expectations =
        parse_expectations(trace_expects, true, {}, trace_opts.tracer.trace_all);
    if (!trace_opts.output.empty()) check_output_file("--output", trace_opts.output);
    if (!trace_opts.export_json.empty()) check_output_file("--export-json", trace_opts.export_json);
    if (!trace_opts.export_junit.empty())
      check_output_file("--export-junit", trace_opts.export_junit);
    return trace_opts;
  }

  o.params.lines = parse_count("--lines", lines, 0, UINT64_MAX);
  // Beyond ~1e17 lines the byte count itself overflows 64 bits.
  if (o.params.lines > 100'000'000'000'000'000ull)
    throw Error(fmt::format("--lines: {} lines would not fit in 64 bits of bytes", o.params.lines));
  o.strategies = parse_strategies(strategy);
  o.runs = runs == "auto" ? kRunsAuto : static_cast<int>(parse_count("--runs", runs, 1, 100000));
  o.interleave = !no_interleave;
  o.warmup = static_cast<int>(parse_count("--warmup", warmup, 0, 100000));
  knobs.apply(o.params);
  o.format = parse_format(format);
  if (!timeout.empty()) o.timeout = parse_timeout(timeout);
  o.trace = !no_trace;
  o.tracer = tracer_flags.options(o.trace);
  o.keep = keep;
  o.dirs = parse_dirs(dir);
  o.dir = o.dirs.front();
  // A baseline's rows are keyed by strategy: two directories would give each name twice.
  if (o.dirs.size() > 1 && (!o.baseline.empty() || !o.save_baseline.empty()))
    throw Error("--baseline and --save-baseline take one --dir");
  o.expectations = parse_expectations(expects, false, o.strategies, o.tracer.trace_all);
  o.color = parse_color(color);
  if (!sort.empty()) o.sort = parse_sort(sort);
  if (!columns.empty()) o.columns = parse_columns(columns);
  check_output_files(o);
  if (!count_tolerance.empty()) o.count_tolerance = parse_count("--count-tolerance", count_tolerance, 0, UINT64_MAX);
  o.time_tolerance = parse_fraction("--time-tolerance", time_tolerance);
  for (const std::string& d : o.dirs) {
    check_dir(d);
    check_space(d, expected_bytes(o.params), keep ? o.strategies.size() : 1);
  }
  return o;
}

}  // namespace iobench
