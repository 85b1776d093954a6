// `iobench compare`'s command line: its flags, --help, and the shell-like word splitter.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "base/error.h"
#include "base/program_path.h"
#include "cli/cli.h"
#include "cli/tracer_flags.h"
#include "commands/compare.h"
#include "report/gnuplot.h"
#include "report/output_file.h"

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
    "Example: iobench compare -n c './writer_c out.txt' -n rust './writer_rust out.txt'";

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

/// compare's flags as parsed text, defined once for parsing and for --help.
struct CompareFlags {
  std::vector<std::string> names, commands;
  std::string runs = "5", warmup = "1", format = "table", timeout, color = "auto", sort, plot,
      columns;
  std::string export_json, export_csv, export_markdown;
  bool shell = false, show_output = false, no_trace = false;
  TracerFlags tracer;  // the same group as a run's and trace's: --tracer included

  void add(CLI::App& app) {
    app.add_option("-n,--name", names, "Name the next command's row (in order)")
        ->allow_extra_args(false);
    app.add_option("commands", commands, "Commands to compare, one word each (quote them)");
    app.add_option("-r,--runs", runs, "Timed runs per command (default 5)");
    app.add_option("-w,--warmup", warmup, "Untimed runs before them (default 1)");
    app.add_flag("--shell", shell, "Run each command with /bin/sh -c");
    app.add_flag("--show-output", show_output, "Let the commands write to this terminal");
    app.add_option("--timeout", timeout, "Kill a run after SECONDS (the row fails)");
    app.add_option("--format", format, "table, json, csv or markdown (default table)");
    app.add_option("--color", color,
                   "auto, always or never (default auto: on a terminal, unless NO_COLOR)");
    app.add_option("--sort", sort, "Table rows by name, time or syscalls (default: as given)");
    app.add_option("--columns", columns,
                   "Fit the table to N columns (default: the terminal's width; none when piped)");
    app.add_option("--plot", plot, "Also draw the results as an SVG chart to FILE (needs gnuplot)");
    app.add_option("--export-json", export_json, "Also write the iobench/1 JSON document to FILE");
    app.add_option("--export-csv", export_csv, "Also write CSV to FILE");
    app.add_option("--export-markdown", export_markdown, "Also write a Markdown table to FILE");
    app.add_flag("--no-trace", no_trace, "Skip the traced run (no counts)");
    tracer.add(app);
    app.footer(
        "Exit status: 0 all measured; 2 bad usage (found before anything ran);\n"
        "3 a command failed (exited non-zero, killed, timed out); 128+N killed by signal N.");
  }
};

int parse_int(const char* flag, const std::string& text, int min) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || v < min || v > 100000)
    throw Error(fmt::format("{}: '{}' is not a whole number from {} to 100000", flag, text, min));
  return static_cast<int>(v);
}

}  // namespace

CompareOptions parse_compare(const std::vector<std::string>& args) {
  CLI::App app{kAbout, "iobench compare"};
  CompareFlags f;
  f.add(app);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    throw Error("compare: " + (what.empty() ? std::string("bad command line") : what));
  }
  if (f.commands.empty())
    throw Error("compare: no commands given (iobench compare -n NAME 'COMMAND ARGS' ...)");
  if (f.names.size() > f.commands.size())
    throw Error(
        fmt::format("compare: {} names (-n) for {} commands", f.names.size(), f.commands.size()));
  CompareOptions o;
  o.runs = parse_int("--runs", f.runs, 1);
  o.warmup = parse_int("--warmup", f.warmup, 0);
  o.format = parse_format(f.format);
  o.color = parse_color(f.color);
  if (!f.sort.empty()) o.sort = parse_sort(f.sort);
  if (!f.columns.empty()) o.columns = parse_columns(f.columns);
  if (!f.timeout.empty()) o.timeout = parse_timeout(f.timeout);
  o.shell = f.shell;
  o.show_output = f.show_output;
  o.trace = !f.no_trace;
  o.tracer = f.tracer.options(o.trace, false, /*program=*/true);
  o.plot = f.plot;
  for (std::size_t i = 0; i < f.commands.size(); ++i) {
    CompareCommand c;
    c.command = f.commands[i];
    c.name = i < f.names.size() ? f.names[i] : f.commands[i];
    c.argv =
        o.shell ? std::vector<std::string>{"/bin/sh", "-c", c.command} : split_words(c.command);
    if (c.argv.empty()) throw Error(fmt::format("compare: command {} is empty", i + 1));
    c.program = resolve_command("compare", c.argv.front());
    o.commands.push_back(std::move(c));
  }
  // Checked now, so a bad path is a usage error before any command has run.
  if (!o.plot.empty()) check_plot_option(o.plot);
  o.export_json = f.export_json;
  o.export_csv = f.export_csv;
  o.export_markdown = f.export_markdown;
  const std::pair<const char*, const std::string*> exports[] = {
      {"--export-json", &o.export_json},
      {"--export-csv", &o.export_csv},
      {"--export-markdown", &o.export_markdown}};
  for (const auto& [flag, path] : exports)
    if (!path->empty()) check_output_file(flag, *path);
  return o;
}

std::string compare_help() {
  CLI::App app{kAbout, "iobench compare"};
  CompareFlags f;
  f.add(app);
  return app.help();
}

}  // namespace iobench
