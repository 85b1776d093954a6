#include "cli/command_docs.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

#include "cli/cli.h"
#include "cli/cli_values.h"
#include "cli/help_format.h"
#include "strategies/knobs.h"

namespace iobench {
namespace {

/// The list a flag's parser checks its value against. A choice flag's metavariable is built
/// from its list (choices()), so the metavariable --help shows finds it; --strategy's
/// NAME[,NAME…] and the sync policy's every:N are no such list and are found by name.
void set_values(const CLI::Option& opt, FlagDoc& flag) {
  const std::string& metavar = flag.metavar;
  const std::string name = opt.get_name();
  if (name == "--strategy") {
    flag.kind = ValueKind::kList, flag.values = strategy_words();
    return;
  }
  for (const Knob& k : all_knobs())
    if (k.kind == KnobKind::kPolicy && name == k.flag) {
      flag.kind = ValueKind::kChoice, flag.values = sync_words();
      return;
    }
  for (std::vector<std::string> words :
       {format_words(false), format_words(true), color_words(), sort_words(), tracer_words()})
    if (metavar == choices(words)) {
      flag.kind = ValueKind::kChoice, flag.values = std::move(words);
      return;
    }
  if (metavar == metavar::kFile)
    flag.kind = ValueKind::kFile;
  else if (metavar == metavar::kDirs)
    flag.kind = ValueKind::kDirs;
  else if (metavar == metavar::kCommand)
    flag.kind = ValueKind::kCommand;
  else
    flag.kind = ValueKind::kWord;
}

FlagDoc flag_of(const CLI::Option& opt, const HelpFormatter& format) {
  FlagDoc flag;
  const std::string names = opt.get_name(false, true);  // "-n,--lines"
  for (std::size_t start = 0; start <= names.size();) {
    const std::size_t comma = std::min(names.find(',', start), names.size());
    flag.names.push_back(names.substr(start, comma - start));
    start = comma + 1;
  }
  flag.help = format.make_option_desc(&opt);
  if (opt.get_items_expected_max() == 0) return flag;  // a switch
  flag.metavar = opt.get_type_name();
  set_values(opt, flag);
  return flag;
}

/// Strips "Usage: " and the line break CLI11's usage line comes with.
std::string usage_line(const CLI::App& app, const HelpFormatter& format) {
  if (!format.usage().empty()) return format.usage();
  std::string usage = format.make_usage(&app, app.get_name());
  if (usage.starts_with("\n")) usage.erase(0, 1);
  if (usage.starts_with("Usage: ")) usage.erase(0, 7);
  while (!usage.empty() && usage.back() == '\n') usage.pop_back();
  return usage;
}

CommandDoc doc_of(const CLI::App& app) {
  const auto format = std::dynamic_pointer_cast<HelpFormatter>(app.get_formatter());
  if (!format) throw std::logic_error("command_docs: " + app.get_name() + " has no HelpFormatter");
  CommandDoc doc;
  doc.description = app.get_description();
  doc.footer = app.get_footer();
  doc.usage = usage_line(app, *format);
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_positional()) {
      doc.positional = opt->get_type_name();
      doc.positional_help = opt->get_description();
    } else {
      doc.flags.push_back(flag_of(*opt, *format));
    }
  }
  return doc;
}

}  // namespace

std::vector<CommandDoc> command_docs() {
  std::vector<CommandDoc> apps;
  std::vector<std::pair<std::string, std::string>> subcommands;  // name, summary
  visit_command_apps([&](const CLI::App& app) {
    apps.push_back(doc_of(app));
    apps.back().name = app.get_name();
    if (apps.size() > 1) return;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      subcommands.emplace_back(sub->get_name(), sub->get_description());
  });
  std::vector<CommandDoc> out;
  out.push_back(std::move(apps.front()));
  out.front().name.clear();
  out.front().footer = numbers_help();  // its exit statuses are exit_statuses()
  for (const auto& [name, summary] : subcommands) {
    CommandDoc doc;
    // trace's App is "trace", compare's is "iobench compare"; sweep has none of its own.
    for (const CommandDoc& app : apps)
      if (app.name == name || app.name.ends_with(" " + name)) doc = app;
    doc.name = name;
    doc.summary = summary;
    if (doc.usage.empty()) {
      doc.usage = sweep_usage();
      doc.takes_run_flags = true;
      std::string flags;
      for (const std::string& f : sweep_flags()) flags += (flags.empty() ? "" : ", ") + f;
      doc.description = fmt::format(
          "{}.\n\nFLAG is one of {}; every other option of a run applies to every value. "
          "--format json writes the iobench-sweep/1 document; --plot FILE draws write calls "
          "and time against the value.",
          summary, flags);
    }
    out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace iobench
