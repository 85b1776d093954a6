// The command line's entry: the bench run's own flags, the subcommands, and the dispatch.
// The flags several commands share are groups (flag_groups.h, tracer_flags.h, knob_flags.h).
#include "cli/cli.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <iterator>
#include <optional>
#include <string_view>

#include "base/error.h"
#include "cli/baseline_flags.h"
#include "cli/cli_values.h"
#include "cli/flag_groups.h"
#include "cli/help_format.h"
#include "cli/knob_flags.h"
#include "cli/trace_cli.h"
#include "cli/tracer_flags.h"
#include "report/dirs.h"
#include "strategies/support/line_format.h"

namespace iobench {
namespace {

// The run's exit statuses, as --help and the man page list them (README "Exit status").
constexpr ExitStatusDoc kExitStatuses[] = {
    {"0", "all measured (unsupported rows are fine)"},
    {"1", "an expectation or baseline failed"},
    {"2", "bad usage or unusable environment, found before anything ran"},
    {"3", "some strategies failed while running"},
    {"4", "an output could not be written (stdout, an export, a baseline, a plot)"},
    {"128+N", "killed by signal N"},
};

constexpr const char* kTraceStatusNote =
    "`iobench trace` exits with the traced command's status (124 on --timeout; see iobench "
    "trace --help).";

constexpr const char* kNumbersHelp =
    "Numbers: K, M and G are powers of 1024 for counts and sizes alike (--lines 10K\n"
    "writes 10240 lines); an exponent is a power of ten (--lines 1e6). Durations take\n"
    "ns, us, ms, s, m or h (--timeout 500ms); a bare number is seconds.";

std::string exit_status_help() {
  std::string out = "Exit status:";
  for (const ExitStatusDoc& e : kExitStatuses)
    out +=
        fmt::format(" {} {}{}", e.status, e.meaning, &e == std::end(kExitStatuses) - 1 ? "." : ";");
  return out + " " + kTraceStatusNote + "\n\n" + kNumbersHelp;
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
    throw Error(fmt::format("--lines: needs {} in {} but only {} are free",
                            format_bytes_plain(need), dir, format_bytes_plain(free_bytes)));
}

/// The bench run's flags: its own (the workload, --dir, --keep, --no-interleave, --latency,
/// --list, --version) and the groups it shares with compare and trace.
class BenchFlags {
 public:
  bool list = false, version = false;

  void add(CLI::App& app);
  BenchOptions options() const;

 private:
  std::string lines_ = "100000", strategy_ = "all", dir_ = default_dir();
  bool keep_ = false, no_interleave_ = false, latency_ = false;
  RunFlags run_{"strategy", "auto"};
  KnobFlags knobs_;
  OutputFlags output_;
  CheckFlags check_{CheckFlags::For::kRun};
  TracerFlags tracer_;
  GivenOptions given_;
};

void BenchFlags::add(CLI::App& app) {
  app.add_option("-n,--lines", lines_, "Lines to write (default 100000)")
      ->type_name(metavar::kCount);
  app.add_option("-s,--strategy", strategy_, "'all' or a comma list (see --list)")
      ->type_name(metavar::kNames);
  run_.add(app);
  app.add_option("--dir", dir_,
                 "Where the private directory is made (default $TMPDIR or /tmp); a comma list "
                 "runs in each, e.g. /tmp,/dev/shm")
      ->type_name(metavar::kDirs);
  app.add_flag("--no-interleave", no_interleave_,
               "Time each strategy's runs together, not in one random order with the others");
  app.add_flag("--keep", keep_, "Keep one verified <strategy>.out per strategy");
  knobs_.add(app);  // --buffer-size ... --direct: the table in strategies/knobs.cc
  given_.skip_added(app, [&] { output_.add(app); });
  app.add_flag("--latency", latency_,
               "Add the write calls' p50/p99/max latency columns (traced run, timing mode); "
               "with --plot, draw their latency CDFs instead");
  given_.skip_added(app, [&] { check_.add(app); });
  tracer_.add(app);
  app.add_flag("--list", list, "List the strategies and exit");
  app.add_flag("-V,--version", version, "Print the version and exit");
  given_.read_defaults(app);
}

BenchOptions BenchFlags::options() const {
  BenchOptions o;
  o.params.lines = parse_count("--lines", lines_, 0, UINT64_MAX);
  // Beyond ~1e17 lines the byte count itself overflows 64 bits.
  if (o.params.lines > 100'000'000'000'000'000ull)
    throw Error(fmt::format("--lines: {} lines would not fit in 64 bits of bytes", o.params.lines));
  o.strategies = parse_strategies(strategy_);
  run_.apply(o.run);
  o.run.interleave = !no_interleave_;
  knobs_.apply(o.params);
  output_.apply(o);
  o.latency = latency_;
  o.run.tracer = tracer_.options(o.run.trace);
  o.run.keep = keep_;
  o.dirs = parse_dirs(dir_);
  o.dir = o.dirs.front();
  o.given = given_.given();
  check_.apply(o);
  output_.check_files();
  std::vector<OutputPath> files = output_.files();
  for (OutputPath& f : check_.files()) files.push_back(std::move(f));
  check_distinct_outputs(files);
  for (const std::string& d : o.dirs) {
    check_dir(d);
    check_space(d, expected_bytes(o.params), keep_ ? o.strategies.size() : 1);
  }
  return o;
}

/// sweep and compare parse their own words (sweep_cli.cc, compare_cli.cc): CLI11 only
/// hands them on.
CLI::App* add_words_subcommand(CLI::App& app, const char* name, const char* about) {
  CLI::App* sub = app.add_subcommand(name, about);
  sub->prefix_command();
  sub->set_help_flag();
  sub->allow_extras();
  return sub;
}

Command words_command(const CLI::App& sub, bool sweep) {
  const std::vector<std::string> args = sub.remaining();
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end())
    return HelpCommand{sweep ? sweep_help() : compare_help()};
  if (sweep) return parse_sweep(args);
  return parse_compare(args);
}

constexpr const char* kTraceFirst =
    "trace: must be the first word (iobench trace [options] -- COMMAND [ARGS...])";

/// Parses args into the flags registered on app; a request for help becomes its text.
std::optional<HelpCommand> parse_or_help(CLI::App& app, std::vector<const char*>& args,
                                         const CLI::App& trace, bool trace_first) {
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp&) {
    return HelpCommand{app.help()};
  } catch (const CLI::CallForAllHelp&) {
    return HelpCommand{app.help("", CLI::AppFormatMode::All)};
  } catch (const CLI::ParseError& e) {
    if (trace && !trace_first) throw Error(kTraceFirst);  // its words were parsed as ours
    throw usage_error(e);
  }
  return std::nullopt;
}

/// iobench's words: the bench run's flags, trace's and the two word-parsing subcommands,
/// bound to the fields they fill. One definition for parsing and for the help walker.
struct CommandLine {
  CLI::App app{
      "iobench: what a program's writes really cost. Every strategy writes the same N\n"
      "lines to a file in a fresh child; times come from untraced runs, syscall counts\n"
      "and syscall time from one traced run (ptrace + seccomp-BPF).",
      "iobench"};
  BenchFlags bench;
  TraceFlags trace_flags;
  CLI::App *trace = nullptr, *sweep = nullptr, *compare = nullptr;

  CommandLine() {
    app.footer(exit_status_help());
    app.set_help_flag("-h,--help", "Print this help and exit");
    use_help_format(app);  // before the subcommands: trace inherits it
    use_last_value(app);   // before any flag: the subcommands inherit it too
    bench.add(app);
    trace = trace_flags.add(app);
    sweep = add_words_subcommand(
        app, "sweep",
        "Run one strategy at each value of one flag, e.g. --buffer-size 1,16,256,4K,64K,1M");
    compare = add_words_subcommand(
        app, "compare",
        "Run real programs side by side: compare -n c './writer_c out.txt' -n go ...");
  }
};

}  // namespace

std::span<const ExitStatusDoc> exit_statuses() { return kExitStatuses; }
std::string trace_status_note() { return kTraceStatusNote; }
std::string numbers_help() { return kNumbersHelp; }

void visit_command_apps(const std::function<void(const CLI::App&)>& visit) {
  const CommandLine line;
  visit(line.app);
  visit(*line.trace);
  visit_compare_app(visit);
}

Command parse_command_line(int argc, const char* const* argv) {
  CommandLine line;
  CLI::App& app = line.app;
  BenchFlags& bench = line.bench;
  TraceFlags& trace_flags = line.trace_flags;
  CLI::App *trace = line.trace, *sweep = line.sweep, *compare = line.compare;

  // trace's command must reach it exactly as typed: CLI11 sees only the words before it.
  const bool trace_first = argc > 1 && std::string_view(argv[1]) == "trace";
  std::vector<const char*> args(argv, argv + argc);
  TraceWords trace_words;  // outlives the parse: args points into it
  if (trace_first) {
    trace_words = split_trace_words(*trace, {argv + 2, argv + argc});
    args.resize(2);
    for (const auto& w : trace_words.options) args.push_back(w.c_str());
    check_option_values(*trace, trace_words.options);
  } else {
    check_option_values(app, {argv + 1, argv + argc});
  }
  if (auto help = parse_or_help(app, args, *trace, trace_first)) return *help;

  if (bench.version) return VersionCommand{};
  if (bench.list) return ListCommand{};
  if (*sweep) return words_command(*sweep, true);
  if (*compare) {
    Command command = words_command(*compare, false);
    std::vector<std::string> words = {argv[0], "compare"};
    for (const std::string& w : compare->remaining()) words.push_back(w);
    if (auto* o = std::get_if<CompareOptions>(&command))
      o->baseline.update_command = baseline_update_command(words, 2);
    return command;
  }
  if (*trace) {
    if (!trace_first) throw Error(kTraceFirst);
    TraceCommandOptions o = trace_flags.options(trace_words.command);
    std::vector<std::string> words = {argv[0], "trace"};
    words.insert(words.end(), trace_words.options.begin(), trace_words.options.end());
    o.baseline.update_command = baseline_update_command(words, 2, trace_words.command);
    return o;
  }
  BenchOptions options = bench.options();
  options.bare = argc <= 1;
  options.baseline.update_command = baseline_update_command({argv, argv + argc}, 1);
  return options;
}

}  // namespace iobench
