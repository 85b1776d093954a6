#include "cli/flag_groups.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>
#include <utility>

#include "base/error.h"
#include "check/expect.h"
#include "cli/baseline_flags.h"
#include "cli/cli_values.h"
#include "cli/help_format.h"
#include "report/gnuplot.h"
#include "report/output_file.h"

namespace iobench {
namespace {

/// Parses one --expect; `trace` limits it to what `iobench trace` measures.
Expectation parse_checked_expectation(const std::string& text, bool trace,
                                      const std::vector<const Strategy*>& strategies,
                                      bool trace_all) {
  Expectation e = parse_expectation(text);
  static const char* const kMetrics[] = {"write_calls", "bytes", "time_ns", "cpu_ns",
                                         "page_faults"};
  const bool builtin = std::find_if(std::begin(kMetrics), std::end(kMetrics), [&](const char* m) {
                         return e.metric == m;
                       }) != std::end(kMetrics);
  if (!builtin && !is_syscall_name(e.metric))
    throw Error(
        fmt::format("--expect '{}': unknown metric '{}' (write_calls, bytes, time_ns, "
                    "cpu_ns, page_faults, or a syscall name such as write)",
                    text, e.metric));
  if (!builtin) require_traced(e, trace_all);
  if (trace) {
    if (!e.strategy.empty())
      throw Error(fmt::format("--expect '{}': iobench trace has no strategies; drop '{}.'", text,
                              e.strategy));
    if (e.metric == "cpu_ns" || e.metric == "page_faults")
      throw Error(fmt::format("--expect '{}': iobench trace does not measure {}", text, e.metric));
  } else if (!e.strategy.empty() &&
             std::none_of(strategies.begin(), strategies.end(),
                          [&](const Strategy* s) { return s->name == e.strategy; })) {
    throw Error(fmt::format("--expect '{}': strategy '{}' is not being run", text, e.strategy));
  }
  return e;
}

}  // namespace

void check_output_files(std::initializer_list<std::pair<const char*, const std::string*>> files) {
  for (const auto& [flag, path] : files)
    if (!path->empty()) check_output_file(flag, *path);
}

void check_distinct_outputs(const std::vector<OutputPath>& files) {
  struct Seen {
    std::string label;  // "--export-json r.json", or "stdout"
    OutputIdentity identity;
  };
  std::vector<Seen> seen;
  // stdout and stderr count when the shell opened them on a regular file: an output renamed
  // over it (`--export-json r.json > r.json`) would leave the report in a deleted file.
  for (const char* stream : {"stdout", "stderr"}) {
    OutputIdentity id = output_identity(std::string("/dev/") + stream);
    if (!id.id.empty()) seen.push_back({stream, std::move(id)});
  }
  for (const OutputPath& file : files) {
    if (file.second.empty()) continue;
    const OutputIdentity id = output_identity(file.second);
    if (id.id.empty()) continue;  // a device, a FIFO, a pipe: several outputs may go there
    const std::string label = std::string(file.first) + " " + file.second;
    for (const Seen& other : seen)
      // Two descriptors each add at their own offset (`--export-csv /dev/stdout`): fine.
      if (other.identity.id == id.id && !(other.identity.stream && id.stream))
        throw Error(fmt::format("{} and {} would write the same file; give each its own",
                                other.label, label));
    seen.push_back({label, id});
  }
}

namespace {

/// The option `word` names in app ("--lines", "--lines=5", "-n5"), or null.
const CLI::Option* named_option(const CLI::App& app, const std::string& word) {
  if (word.size() < 2 || word[0] != '-' || word == "--") return nullptr;
  const bool long_form = word[1] == '-';
  return app.get_option_no_throw(long_form ? word.substr(0, word.find('=')) : word.substr(0, 2));
}

}  // namespace

void check_option_values(const CLI::App& app, const std::vector<std::string>& words,
                         const std::string& prefix) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const auto names_it = [&w](const CLI::App* sub) { return sub->check_name(w); };
    if (w == "--" || !app.get_subcommands(names_it).empty()) return;
    const CLI::Option* option = named_option(app, w);
    if (option == nullptr || option->get_items_expected_max() == 0) continue;
    const bool long_form = w[1] == '-';
    if (long_form ? w.find('=') != std::string::npos : w.size() > 2) continue;  // --x=V, -nV
    const bool last = i + 1 == words.size();
    if (!last && words[i + 1] != "--" && named_option(app, words[i + 1]) == nullptr) {
      ++i;  // its value
      continue;
    }
    const std::string flag = option->get_name();
    const std::string needs = fmt::format("{}{} needs a value ({})", prefix, flag,
                                          value_description(option->get_type_name()));
    if (last) throw Error(needs);
    if (words[i + 1] == "--") throw Error(needs + " before --");
    throw Error(fmt::format("{}, not the option {}", needs, words[i + 1]));
  }
}

Error usage_error(const CLI::ParseError& e, const std::string& prefix) {
  const std::string what = e.what();
  return Error(prefix + (what.empty() ? "bad command line" : what));
}

std::size_t GivenOptions::option_count(const CLI::App& app) { return app.get_options().size(); }

void GivenOptions::skip_from(const CLI::App& app, std::size_t first) {
  const auto all = app.get_options();
  skip_.insert(skip_.end(), all.begin() + static_cast<std::ptrdiff_t>(first), all.end());
}

void GivenOptions::read_defaults(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (std::find(skip_.begin(), skip_.end(), opt) != skip_.end()) continue;
    opt->capture_default_str();
    defaults_.emplace_back(opt, opt->get_default_str());
    opt->default_str("");  // --help would print "=VALUE" after every flag
  }
}

namespace {
/// A word as a shell reads it back: quoted when it holds anything but plain characters.
std::string shell_word(const std::string& w) {
  const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) {
    return std::isalnum(c) ||
           std::string_view("_-+=.,:/@%^").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (plain) return w;
  std::string out = "'";
  for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

std::vector<std::string> GivenOptions::given() const {
  std::vector<std::string> out;
  for (const auto& [opt, def] : defaults_) {
    if (opt->count() == 0) continue;
    const std::string name = opt->get_name();
    if (opt->get_expected_min() == 0) {  // a flag: given is not the default
      out.push_back(name);
      continue;
    }
    const auto words = opt->reduced_results();  // the last value (use_last_value)
    if (words.empty()) continue;
    std::string value;
    for (const std::string& w : words) value += (value.empty() ? "" : ",") + w;
    if (value != def) out.push_back(name + " " + shell_word(value));
  }
  return out;
}

void use_last_value(CLI::App& app) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

void TimeoutFlag::add(CLI::App& app, const char* help) {
  app.add_option("--timeout", text, help)->type_name(metavar::kDuration);
}

std::optional<std::chrono::nanoseconds> TimeoutFlag::value() const {
  if (text.empty()) return std::nullopt;
  return parse_timeout(text);
}

void RunFlags::add(CLI::App& app) {
  const std::string runs_default = runs_ == "auto"
                                       ? "default: at least 5 and 0.2 s each, at most 100"
                                       : "at least 5 and 0.2 s each, at most 100; default " + runs_;
  app.add_option("-r,--runs", runs_,
                 fmt::format("Timed runs per {}, or auto ({})", workload_, runs_default))
      ->type_name("N|auto");
  app.add_option("-w,--warmup", warmup_, "Untimed runs before them (default 1)")
      ->type_name(metavar::kCount);
  timeout_.add(app, "Kill a run after DURATION (its row fails with status timeout)");
  app.add_flag("--no-trace", no_trace_, "Skip the traced run (no counts)");
}

void RunFlags::apply(RunSettings& s) const {
  s.runs =
      runs_ == "auto" ? std::nullopt : std::optional<int>(parse_count("--runs", runs_, 1, 100000));
  s.warmup = static_cast<int>(parse_count("--warmup", warmup_, 0, 100000));
  s.timeout = timeout_.value();
  s.trace = !no_trace_;
}

void OutputFlags::add(CLI::App& app) {
  app.add_option("--format", format,
                 "The results as a table, JSON, CSV or Markdown (default table)")
      ->type_name(choices(format_words(false)));
  app.add_option("--color", color,
                 "Table colour: auto (on a terminal, unless NO_COLOR is set), always, never")
      ->type_name(choices(color_words()));
  app.add_option("--sort", sort, "Table rows by name, time or syscalls (default: as given)")
      ->type_name(choices(sort_words()));
  app.add_option("--columns", columns,
                 "Fit the table to N columns (default: the terminal's width; no limit when piped)")
      ->type_name(metavar::kCount);
  auto* brief_flag =
      app.add_flag("--brief", brief, "Print the heading, the table and the summary only");
  app.add_flag("--notes", notes,
               "Print every note in full, even on a terminal shorter than the output")
      ->excludes(brief_flag);
  app.add_option("--plot", plot,
                 "Also draw the results as a chart to FILE: .svg, .png or .pdf (needs gnuplot)")
      ->type_name(metavar::kFile);
  app.add_option("--export-json", export_json, "Also write the iobench/1 JSON document to FILE")
      ->type_name(metavar::kFile);
  app.add_option("--export-csv", export_csv, "Also write CSV to FILE")->type_name(metavar::kFile);
  app.add_option("--export-markdown", export_markdown, "Also write a Markdown table to FILE")
      ->type_name(metavar::kFile);
}

void OutputFlags::check_files() const {
  check_output_files({{"--export-json", &export_json},
                      {"--export-csv", &export_csv},
                      {"--export-markdown", &export_markdown}});
  if (!plot.empty()) check_plot_option(plot);
}

std::vector<OutputPath> OutputFlags::files() const {
  return {{"--export-json", export_json},
          {"--export-csv", export_csv},
          {"--export-markdown", export_markdown},
          {"--plot", plot}};
}

CheckFlags::CheckFlags(For command)
    : for_(command),
      trace_(command == For::kTrace),
      baseline_(std::make_unique<BaselineFlags>(/*times=*/command != For::kTrace)) {}

CheckFlags::~CheckFlags() = default;

void CheckFlags::add(CLI::App& app) {
  const char* expect_help = trace_ ? "METRIC OP VALUE, e.g. 'write_calls==1000'; a syscall name "
                                     "(write) counts every call of it, stdout included; exit 1 "
                                     "on FAIL"
                                   : "[STRATEGY.]METRIC OP VALUE, e.g. "
                                     "'buffered.write_calls<=20'; exit 1 on FAIL";
  if (for_ != For::kCompare)
    app.add_option("--expect", expects_, expect_help)
        ->take_all()
        ->allow_extra_args(false)
        ->type_name(metavar::kExpr);
  app.add_option("--export-junit", export_junit_,
                 for_ == For::kCompare
                     ? "Also write every baseline comparison as JUnit XML to FILE"
                     : "Also write every --expect and baseline comparison as JUnit XML to FILE")
      ->type_name(metavar::kFile);
  baseline_->add(app);
}

void CheckFlags::check_files() const {
  check_output_files({{"--export-junit", &export_junit_}, {"--save-baseline", &baseline_->save()}});
}

std::vector<OutputPath> CheckFlags::files() const {
  return {{"--export-junit", export_junit_}, {"--save-baseline", baseline_->save()}};
}

bool CheckFlags::compares() const { return !baseline_->compare_with().empty(); }

BaselineOptions CheckFlags::baseline(std::vector<OutputPath> outputs) const {
  // --save-baseline first, as a run always named it.
  outputs.insert(outputs.begin(), {"--save-baseline", baseline_->save()});
  outputs.emplace_back("--export-junit", export_junit_);
  return baseline_->options(outputs);
}

std::vector<Expectation> CheckFlags::expectations(const std::vector<const Strategy*>& strategies,
                                                  bool trace_all) const {
  std::vector<Expectation> out;
  for (const std::string& text : expects_)
    out.push_back(parse_checked_expectation(text, trace_, strategies, trace_all));
  return out;
}

void CheckFlags::apply(BenchOptions& o) const {
  // A baseline's rows are keyed by strategy: two directories would give each name twice.
  if (o.dirs.size() > 1 && (!baseline_->compare_with().empty() || !baseline_->save().empty()))
    throw Error("--baseline and --save-baseline take one --dir");
  o.expectations = expectations(o.strategies, o.run.tracer.trace_all);
  o.export_junit = export_junit_;
  o.baseline = baseline({{"--export-json", o.export_json},
                         {"--export-csv", o.export_csv},
                         {"--export-markdown", o.export_markdown},
                         {"--plot", o.plot}});
  check_files();
}

}  // namespace iobench
