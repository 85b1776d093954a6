// `iobench compare`'s command line: its flags, --help, and the shell-like word splitter.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string_view>

#include "base/error.h"
#include "base/program_path.h"
#include "check/program_baseline.h"
#include "cli/cli.h"
#include "cli/flag_groups.h"
#include "cli/help_format.h"
#include "cli/tracer_flags.h"

namespace iobench {
namespace {

constexpr const char* kAbout =
    "iobench compare: real programs side by side. Each command runs --warmup times, then --runs\n"
    "timed times (wall time of the whole process, CPU from wait4), untraced, then once under the\n"
    "tracer for its exact write calls. Commands run in the current directory with stdin, stdout\n"
    "and stderr on /dev/null; the files they create are theirs (iobench neither checks nor\n"
    "removes them). No shell unless --shell: the command is split into words like a shell\n"
    "would (quotes, backslashes), with no expansion.\n\n"
    "write calls: data writes (write, writev, pwrite*, sendfile, splice, vmsplice,\n"
    "copy_file_range) to any file but stdout, stderr, terminals, pipes and sockets;\n"
    "io_uring_enter on rings (README \"What counts as a write\").\n\n"
    "Example: iobench compare -n c './writer_c out.txt' -n go './writer_go out.txt'";

}  // namespace

std::vector<std::string> split_words(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word)), word.clear(), in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      std::size_t end = command.find('\'', i + 1);
      if (end == std::string::npos) throw Error("compare: unterminated ' in: " + command);
      word.append(command, i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      for (++i;; ++i) {
        if (i >= command.size()) throw Error("compare: unterminated \" in: " + command);
        if (command[i] == '"') break;
        if (command[i] == '\\' && i + 1 < command.size() &&
            std::string_view("\"\\$`").find(command[i + 1]) != std::string_view::npos)
          ++i;
        word += command[i];
      }
    } else if (c == '\\') {
      if (i + 1 < command.size()) word += command[++i];
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

namespace {

/// compare's flags as parsed text, defined once for parsing and for --help: its own (-n,
/// the commands, --shell, --show-output) and the groups it shares with the bench run.
struct CompareFlags {
  std::vector<std::string> names, commands;
  bool shell = false, show_output = false;
  RunFlags run{"command", "5"};
  OutputFlags output;
  TracerFlags tracer;  // the same group as a run's and trace's: --tracer included
  CheckFlags check{CheckFlags::For::kCompare};  // --export-junit and the baselines

  void add(CLI::App& app) {
    use_last_value(app);
    use_help_format(app, "iobench compare [options] [-n NAME] COMMAND [[-n NAME] COMMAND...]");
    app.add_option("-n,--name", names, "Name the next command's row (in order)")
        ->allow_extra_args(false)
        ->type_name(metavar::kName);
    app.add_option("commands", commands, "Commands to compare, one word each (quote them)")
        ->type_name(metavar::kCommand);
    run.add(app);
    app.add_flag("--shell", shell, "Run each command with /bin/sh -c");
    app.add_flag("--show-output", show_output, "Let the commands write to this terminal");
    output.add(app);
    check.add(app);
    tracer.add(app);
    app.footer(
        "Exit status: 0 all measured; 1 a baseline comparison failed;\n"
        "2 bad usage (found before anything ran);\n"
        "3 a command failed (exited non-zero, killed, timed out);\n"
        "4 an output could not be written (stdout, an export, a plot);\n"
        "126 a command cannot be executed (no execute bit, no #! interpreter);\n"
        "127 a command is not found; "
        "128+N killed by signal N.");
  }
};

void check_command_count(const CompareFlags& f) {
  if (f.commands.empty())
    throw Error("compare: no commands given (iobench compare -n NAME 'COMMAND ARGS' ...)");
  if (f.names.size() > f.commands.size())
    throw Error(
        fmt::format("compare: {} names (-n) for {} commands", f.names.size(), f.commands.size()));
}

/// The commands as given, named, split into words (or handed to sh -c) and found in PATH.
std::vector<CompareCommand> parse_commands(const CompareFlags& f) {
  std::vector<CompareCommand> out;
  for (std::size_t i = 0; i < f.commands.size(); ++i) {
    CompareCommand c;
    c.command = f.commands[i];
    c.name = i < f.names.size() ? f.names[i] : f.commands[i];
    c.argv =
        f.shell ? std::vector<std::string>{"/bin/sh", "-c", c.command} : split_words(c.command);
    if (c.argv.empty()) throw Error(fmt::format("compare: command {} is empty", i + 1));
    c.program = resolve_command("compare", c.argv.front());
    // A baseline's row: -n NAME, else the program as written (sh -c's own first word).
    const std::string first = c.command.substr(0, c.command.find_first_of(" \t\n"));
    c.baseline_name =
        program_name(i < f.names.size() ? f.names[i] : "", f.shell ? first : c.argv.front());
    out.push_back(std::move(c));
  }
  return out;
}

/// A baseline's rows are keyed by name: two commands of one program need their own -n.
void check_distinct_names(const CompareOptions& o) {
  for (std::size_t i = 0; i < o.commands.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (o.commands[i].baseline_name == o.commands[j].baseline_name)
        throw Error(fmt::format(
            "compare: commands {} and {} are both '{}' in a baseline; name each with -n NAME",
            j + 1, i + 1, o.commands[i].baseline_name));
}

}  // namespace

CompareOptions parse_compare(const std::vector<std::string>& args) {
  CLI::App app{kAbout, "iobench compare"};
  CompareFlags f;
  f.add(app);
  check_option_values(app, args, "compare: ");
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw usage_error(e, "compare: ");
  }
  check_command_count(f);
  CompareOptions o;
  f.run.apply(o.run);
  f.output.apply(o);
  o.shell = f.shell;
  o.show_output = f.show_output;
  o.run.tracer = f.tracer.options(o.run.trace, false, /*program=*/true);
  o.commands = parse_commands(f);
  o.export_junit = f.check.export_junit();
  o.baseline = f.check.baseline(f.output.files());
  if (!o.baseline.save.empty() || !o.baseline.compare_with.empty()) check_distinct_names(o);
  f.output.check_files();
  f.check.check_files();
  std::vector<OutputPath> files = f.output.files();
  for (OutputPath& file : f.check.files()) files.push_back(std::move(file));
  check_distinct_outputs(files);
  return o;
}

void visit_compare_app(const std::function<void(const CLI::App&)>& visit) {
  CLI::App app{kAbout, "iobench compare"};
  CompareFlags f;
  f.add(app);
  visit(app);
}

std::string compare_help() {
  CLI::App app{kAbout, "iobench compare"};
  CompareFlags f;
  f.add(app);
  return app.help();
}

}  // namespace iobench
