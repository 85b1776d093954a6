#include "cli.h"

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

#include "error.h"
#include "gnuplot.h"
#include "line_format.h"
#include "registry.h"
#include "tracer/perf_counter.h"

namespace iobench {
namespace {

constexpr const char* kExitStatusHelp =
    "Exit status: 0 all measured (unsupported rows are fine); 1 an expectation or baseline\n"
    "failed; 2 bad usage or unusable environment, found before anything ran; 3 some\n"
    "strategies failed while running; 128+N killed by signal N. `iobench trace` exits with\n"
    "the traced command's status.";

std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t min,
                          std::uint64_t max) {
  if (!text.empty() && text[0] == '-') throw Error(flag + ": '" + text + "' is negative");
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) throw Error(flag + ": '" + text + "' does not fit in 64 bits");
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
    throw Error(flag + ": '" + text + "' is not a whole number");
  if (v < min || v > max)
    throw Error(fmt::format("{}: {} is out of range ({} to {})", flag, v, min, max));
  return v;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<const Strategy*> parse_strategies(const std::string& text) {
  std::vector<const Strategy*> out;
  auto all = all_strategies();
  if (text == "all") return {all.begin(), all.end()};
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (name.empty()) throw Error("--strategy: empty name in '" + text + "'");
    const Strategy* s = find_strategy(name);
    if (!s) {
      std::string valid, nearest;
      std::size_t best = SIZE_MAX;
      for (const Strategy* c : all) {
        valid += (valid.empty() ? "" : ", ") + std::string(c->name);
        std::size_t d = edit_distance(name, c->name);
        if (d < best) best = d, nearest = c->name;
      }
      std::string hint = best <= 3 ? fmt::format(" (did you mean '{}'?)", nearest) : "";
      throw Error(fmt::format("--strategy: unknown strategy '{}'{}; valid: all, {}", name, hint, valid));
    }
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

void check_dir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) throw_errno("--dir " + dir, errno);
  if (!S_ISDIR(st.st_mode)) throw Error("--dir " + dir + ": not a directory");
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
    throw Error("--dir " + dir + ": read-only filesystem");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw_errno("--dir " + dir, errno);
}

/// --sync none | end | every:N (N >= 1 write units; what a unit is, each strategy says).
SyncPolicy parse_sync(const std::string& text) {
  if (text == "none") return {SyncMode::kNone, 0};
  if (text == "end") return {SyncMode::kEnd, 0};
  if (text.starts_with("every:")) {
    return {SyncMode::kEvery, parse_count("--sync every:N", text.substr(6), 1, UINT64_MAX)};
  }
  throw Error("--sync: unknown policy '" + text + "' (none, end, every:N)");
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

}  // namespace

std::chrono::nanoseconds parse_timeout(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  double s = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !(s > 0) || s > 1e6)
    throw Error("--timeout: '" + text + "' is not a number of seconds above 0");
  return std::chrono::nanoseconds(static_cast<std::int64_t>(s * 1e9));
}

OutputFormat parse_format(const std::string& text) {
  if (text == "table") return OutputFormat::kTable;
  if (text == "json") return OutputFormat::kJson;
  if (text == "csv") return OutputFormat::kCsv;
  if (text == "markdown" || text == "md") return OutputFormat::kMarkdown;
  throw Error("--format: unknown format '" + text + "' (table, json, csv, markdown)");
}

namespace {

double parse_fraction(const std::string& flag, const std::string& text) {
  std::string t = text;
  bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || errno != 0 || !(v >= 0) || !std::isfinite(v))
    throw Error(flag + ": '" + text + "' is not a tolerance (e.g. 25% or 0.25)");
  return percent ? v / 100 : v;
}

/// Parses every --expect; `trace` limits them to what `iobench trace` measures.
std::vector<Expectation> parse_expectations(const std::vector<std::string>& texts, bool trace,
                                            const std::vector<const Strategy*>& strategies) {
  std::vector<Expectation> out;
  for (const auto& text : texts) {
    Expectation e = parse_expectation(text);
    static const char* const kMetrics[] = {"write_calls", "bytes", "time_ns", "cpu_ns", "page_faults"};
    bool builtin = std::find_if(std::begin(kMetrics), std::end(kMetrics),
                                [&](const char* m) { return e.metric == m; }) != std::end(kMetrics);
    if (!builtin && !is_syscall_name(e.metric))
      throw Error(fmt::format("--expect '{}': unknown metric '{}' (write_calls, bytes, time_ns, "
                              "cpu_ns, page_faults, or a syscall name such as write)", text, e.metric));
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

/// --tracer: perf only counts (no times, bytes, files or other syscalls), so auto takes it
/// for --count-only runs alone, when the kernel lets us, and ptrace/seccomp otherwise.
/// `needs_ptrace` names what only ptrace can give (--trace-all, --per-process), or is null.
TracerBackend resolve_backend(const std::string& name, bool count_only, bool traced,
                              const char* needs_ptrace) {
  if (name != "auto" && name != "ptrace" && name != "perf")
    throw Error("--tracer: unknown backend '" + name + "' (ptrace, perf, auto)");
  if (name == "ptrace") return TracerBackend::kPtrace;
  if (name == "perf") {
    if (!count_only) throw Error("--tracer perf counts only; add --count-only");
    if (needs_ptrace != nullptr)
      throw Error(fmt::format("--tracer perf counts the write family only; drop {}", needs_ptrace));
    if (!traced) return TracerBackend::kPtrace;  // --no-trace: nothing to count
    // Checked now, so an unusable backend stops us before anything has run.
    if (std::string why = perf_counting_unavailable(); !why.empty())
      throw Error("--tracer perf: " + why);
    return TracerBackend::kPerf;
  }
  if (!count_only || !traced || needs_ptrace != nullptr) return TracerBackend::kPtrace;
  if (std::string why = perf_counting_unavailable(); !why.empty()) {
    fmt::print(stderr, "iobench: note: perf counters unavailable ({}); counting with ptrace\n", why);
    return TracerBackend::kPtrace;
  }
  return TracerBackend::kPerf;
}

struct TracerFlags {
  bool count_only = false, trace_all = false, no_pin = false, time_all = false;
  std::string backend = "auto";
  void add(CLI::App& app) {
    app.add_flag("--count-only", count_only, "Count calls with one stop each; no times, no bytes");
    app.add_flag("--trace-all", trace_all, "Trace every syscall, not just the write family");
    app.add_flag("--no-pin", no_pin, "Do not pin tracer and tracee to one CPU");
    app.add_flag("--time-all", time_all,
                 "Time every call (two stops each), not a sample spread over the run "
                 "(the first 3,000 of each syscall, then 1 in k)")
        ->excludes("--count-only");
    app.add_option("--tracer", backend,
                   "Who counts: ptrace (ptrace + seccomp), perf (kernel tracepoint counters: "
                   "--count-only, root, tracefs) or auto (default: perf for --count-only when "
                   "available, else ptrace)");
  }
  /// `traced`: false with --no-trace. `per_process`: iobench trace --per-process.
  TracerOptions options(bool traced = true, bool per_process = false) const {
    TracerOptions t;
    t.mode = count_only ? TraceMode::kCount : TraceMode::kTiming;
    t.trace_all = trace_all;
    t.time_all = time_all;
    t.pin = !no_pin;
    const char* needs_ptrace = trace_all ? "--trace-all" : per_process ? "--per-process" : nullptr;
    t.backend = resolve_backend(backend, count_only, traced, needs_ptrace);
    return t;
  }
};

}  // namespace

ColorMode parse_color(const std::string& text) {
  if (text == "auto") return ColorMode::kAuto;
  if (text == "always") return ColorMode::kAlways;
  if (text == "never") return ColorMode::kNever;
  throw Error("--color: unknown mode '" + text + "' (auto, always, never)");
}

SortOrder parse_sort(const std::string& text) {
  if (text == "name") return SortOrder::kName;
  if (text == "time") return SortOrder::kTime;
  if (text == "syscalls") return SortOrder::kSyscalls;
  throw Error("--sort: unknown order '" + text + "' (name, time, syscalls)");
}

Command parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"iobench: what a program's writes really cost. Every strategy writes the same N\n"
               "lines to a file in a fresh child; times come from untraced runs, syscall counts\n"
               "and syscall time from one traced run (ptrace + seccomp-BPF).",
               "iobench"};
  app.footer(kExitStatusHelp);
  app.set_help_flag("-h,--help", "Print this help and exit");
  // A flag given twice takes its last value, as in most tools (scripts append overrides).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  std::string lines = "100000", strategy = "all", runs = "5", warmup = "1", dir = default_dir();
  std::string buffer_size = "64KiB", stdio_buffer = "0", batch = std::to_string(IOV_MAX);
  std::string queue_depth = "64", map_window = "16MiB", format = "table", timeout;
  std::string sync = "none";
  bool direct = false;
  std::vector<std::string> expects, trace_expects;
  std::string count_tolerance, time_tolerance = "25%";
  BenchOptions o;
  bool keep = false, list = false, version = false, no_trace = false;
  TracerFlags tracer_flags;

  app.add_option("-n,--lines", lines, "Lines to write (default 100000)");
  app.add_option("-s,--strategy", strategy, "'all' or a comma list (see --list)");
  app.add_option("-r,--runs", runs, "Timed runs per strategy (default 5)");
  app.add_option("-w,--warmup", warmup, "Untimed runs before them (default 1)");
  app.add_option("--dir", dir, "Where the private directory is made (default $TMPDIR or /tmp)");
  app.add_flag("--keep", keep, "Keep one verified <strategy>.out per strategy");
  app.add_option("--buffer-size", buffer_size, "buffered / io_uring chunk size (default 64KiB)");
  app.add_option("--stdio-buffer", stdio_buffer, "stdio: setvbuf size (default: glibc's)");
  app.add_option("--batch", batch, "writev: lines per call (default IOV_MAX = 1024)");
  app.add_option("--queue-depth", queue_depth, "io_uring: writes in flight (default 64)");
  app.add_option("--map-window", map_window, "mmap: bytes mapped at once, a page multiple (default 16MiB)");
  app.add_option("--sync", sync, "fdatasync policy: none, end (once before close) or every:N (after every N writes; default none)");
  app.add_flag("--direct", direct, "O_DIRECT with aligned buffers where a strategy can honour it; the rest report unsupported");
  app.add_option("--format", format, "table, json, csv or markdown (default table)");
  app.add_option("--expect", expects, "[STRATEGY.]METRIC OP VALUE, e.g. 'buffered.write_calls<=20'; exit 1 on FAIL")
      ->take_all()->allow_extra_args(false);
  app.add_option("--export-json", o.export_json, "Also write the JSON document to FILE");
  app.add_option("--export-csv", o.export_csv, "Also write CSV to FILE");
  app.add_option("--export-markdown", o.export_markdown, "Also write a Markdown table to FILE");
  app.add_option("--save-baseline", o.save_baseline, "Write the JSON result to FILE as a baseline");
  app.add_option("--baseline", o.baseline, "Compare with a saved baseline; exit 1 on a regression");
  app.add_option("--count-tolerance", count_tolerance, "Calls a count may differ from the baseline by (default 0)");
  app.add_option("--time-tolerance", time_tolerance, "How much slower a median may be (default 25%)");
  app.add_option("--timeout", timeout, "Kill a run after SECONDS (status timeout)");
  app.add_flag("--no-trace", no_trace, "Skip the traced run (no counts)");
  tracer_flags.add(app);
  std::string color = "auto", sort;
  app.add_option("--color", color, "Table colour: auto (on a terminal, unless NO_COLOR is set), always, never");
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
  std::vector<std::string> command;
  CLI::App* trace = app.add_subcommand(
      "trace", "Run COMMAND under the tracer and print its write-family syscalls (like strace -c)");
  trace->footer("Usage: iobench trace [options] -- COMMAND [ARGS...]\n"
                "Exits with COMMAND's status (128+N if signal N killed it).");
  trace->add_option("--format", trace_format, "table or json (default table)");
  trace->add_flag("--per-process", trace_opts.per_process, "Also a table per process");
  trace->add_option("--timeout", trace_timeout, "Kill COMMAND after SECONDS");
  trace->add_option("--expect", trace_expects, "METRIC OP VALUE, e.g. 'write<=300'; exit 1 on FAIL")
      ->take_all()->allow_extra_args(false);
  trace_flags.add(*trace);
  trace->add_option("command", command, "The command and its arguments")->required();
  trace->prefix_command();

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return HelpCommand{app.help()};
  } catch (const CLI::CallForAllHelp&) {
    return HelpCommand{app.help("", CLI::AppFormatMode::All)};
  } catch (const CLI::ParseError& e) {
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
    for (const auto& extra : trace->remaining()) command.push_back(extra);
    if (!command.empty() && command.front() == "--") command.erase(command.begin());
    if (command.empty()) throw Error("trace: no command given (iobench trace -- COMMAND [ARGS...])");
    trace_opts.command = command;
    trace_opts.tracer = trace_flags.options(true, trace_opts.per_process);
    trace_opts.format = parse_format(trace_format);
    if (!trace_timeout.empty()) trace_opts.timeout = parse_timeout(trace_timeout);
    trace_opts.expectations = parse_expectations(trace_expects, true, {});
    return trace_opts;
  }

  o.params.lines = parse_count("--lines", lines, 0, UINT64_MAX);
  // Beyond ~1e17 lines the byte count itself overflows 64 bits.
  if (o.params.lines > 100'000'000'000'000'000ull)
    throw Error(fmt::format("--lines: {} lines would not fit in 64 bits of bytes", o.params.lines));
  o.strategies = parse_strategies(strategy);
  o.runs = static_cast<int>(parse_count("--runs", runs, 1, 100000));
  o.warmup = static_cast<int>(parse_count("--warmup", warmup, 0, 100000));
  o.params.buffer_size = parse_size("--buffer-size", buffer_size);
  if (o.params.buffer_size == 0) throw Error("--buffer-size: must be at least 1 byte");
  if (o.params.buffer_size > (1ull << 30)) throw Error("--buffer-size: at most 1GiB");
  o.params.stdio_buffer = parse_size("--stdio-buffer", stdio_buffer);
  if (o.params.stdio_buffer > (1ull << 30)) throw Error("--stdio-buffer: at most 1GiB");
  o.params.batch = parse_count("--batch", batch, 1, IOV_MAX);
  o.params.queue_depth = static_cast<unsigned>(parse_count("--queue-depth", queue_depth, 1, 32768));
  o.params.map_window = parse_size("--map-window", map_window);
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  if (o.params.map_window == 0 || o.params.map_window % page != 0)
    throw Error(fmt::format("--map-window: {} is not a multiple of the page size ({})",
                            o.params.map_window, page));
  o.params.sync = parse_sync(sync);
  o.params.direct = direct;
  o.format = parse_format(format);
  if (!timeout.empty()) o.timeout = parse_timeout(timeout);
  o.trace = !no_trace;
  o.tracer = tracer_flags.options(o.trace);
  o.keep = keep;
  o.dir = dir;
  o.expectations = parse_expectations(expects, false, o.strategies);
  o.color = parse_color(color);
  if (!sort.empty()) o.sort = parse_sort(sort);
  if (!o.plot.empty()) check_plot_option(o.plot);
  if (!count_tolerance.empty()) o.count_tolerance = parse_count("--count-tolerance", count_tolerance, 0, UINT64_MAX);
  o.time_tolerance = parse_fraction("--time-tolerance", time_tolerance);
  check_dir(dir);
  check_space(dir, expected_bytes(o.params.lines), keep ? o.strategies.size() : 1);
  return o;
}

}  // namespace iobench
