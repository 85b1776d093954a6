#include "cli/help_format.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "report/grid.h"
#include "report/terminal.h"

namespace iobench {
namespace {

struct Described {
  std::string_view word, takes;
};

// One row per metavariable: what --help shows and what "needs a value" says it is.
constexpr Described kMetavars[] = {
    {metavar::kCount, "a count such as 1000 or 10K"},
    {metavar::kSize, "a size such as 4096, 64K or 1MiB"},
    {metavar::kDuration, "a duration such as 30s, 500ms or 2m"},
    {metavar::kFile, "a file name"},
    {metavar::kDirs, "a directory, or a comma list of them"},
    {metavar::kExpr, "an expression such as 'write_calls<=20'"},
    {metavar::kName, "a name"},
    {metavar::kNames, "'all' or a comma list of names"},
    {metavar::kFraction, "a fraction such as 25% or 0.25"},
    {metavar::kCommand, "a command line, quoted as one word"},
};

/// A choice of a "table|json" list: a literal lower-case word (every:N included).
bool is_choice_word(std::string_view w) {
  if (w.empty()) return false;
  return std::all_of(w.begin(), w.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == ':' ||
           c == 'N';
  });
}

std::string_view table_takes(std::string_view word) {
  for (const Described& d : kMetavars)
    if (d.word == word) return d.takes;
  return {};
}

/// `text`'s words filled into lines of at most `width` columns; a longer word stands alone.
std::vector<std::string> fill(const std::string& text, std::size_t width) {
  std::vector<std::string> lines(1);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    std::string& line = lines.back();
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width)
      lines.push_back(word);
    else
      line += (line.empty() ? "" : " ") + word;
  }
  return lines;
}

}  // namespace

std::string reflow_blocks(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find("\n\n", start);
    if (end == std::string::npos) end = text.size();
    std::string block = text.substr(start, end - start);
    if (!fits(block, width)) {
      std::replace(block.begin(), block.end(), '\n', ' ');
      std::string filled;
      for (const std::string& line : fill(block, width)) filled += line + "\n";
      block = filled.substr(0, filled.size() - 1);
    }
    out += block;
    if (end == text.size()) break;
    out += "\n\n";
    start = end + 2;
  }
  return out;
}

std::string value_description(std::string_view word) {
  if (std::string_view takes = table_takes(word); !takes.empty()) return std::string(takes);
  if (word.find('|') == std::string_view::npos) return "";
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= word.size()) {
    std::size_t bar = word.find('|', start);
    if (bar == std::string_view::npos) bar = word.size();
    const std::string_view part = word.substr(start, bar - start);
    start = bar + 1;
    if (std::string_view takes = table_takes(part); !takes.empty())
      parts.emplace_back(takes);
    else if (is_choice_word(part))
      parts.emplace_back(part);
    else
      return "";
  }
  std::string out;
  // "a count such as 1000 or 10K, or auto": a comma where a part has its own "or".
  const bool comma = std::any_of(parts.begin(), parts.end(), [](const std::string& p) {
    return p.find(' ') != std::string::npos;
  });
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? (comma ? ", or " : " or ") : ", ") + parts[i];
  return out;
}

std::size_t help_width() {
  const char* env = std::getenv("COLUMNS");
  const long columns = env ? std::strtol(env, nullptr, 10) : 0;
  const std::size_t width =
      columns > 0 ? static_cast<std::size_t>(columns) : terminal_width(STDOUT_FILENO, 80);
  return std::clamp<std::size_t>(width, 40, 100);
}

std::size_t help_column(std::size_t width) {
  return std::clamp<std::size_t>(width * 3 / 8, 16, 30);
}

std::string help_row(const std::string& left, const std::string& right, std::size_t column,
                     std::size_t width) {
  std::string out = left;
  const std::vector<std::string> lines = fill(right, width - column);
  // A flag too wide for its column puts its description on the next line.
  const bool below = display_width(left) + 2 > column;
  if (below && !right.empty())
    out += "\n" + std::string(column, ' ');
  else
    out += std::string(column - display_width(left), ' ');
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += (i == 0 ? "" : "\n" + std::string(column, ' ')) + lines[i];
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\n";
}

HelpFormatter::HelpFormatter(std::size_t width, std::string usage)
    : width_(width), usage_(std::move(usage)) {
  column_width(help_column(width));
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  return help_row("  " + make_option_name(opt, is_positional) + make_option_opts(opt),
                  make_option_desc(opt), column_width_, width_);
}

std::string HelpFormatter::make_option_name(const CLI::Option* opt, bool is_positional) const {
  if (is_positional) return opt->get_type_name();  // "COMMAND", not the field's name
  // "-n,--lines" reads as one word; a comma and a space make it two names, as in man pages.
  std::string names;
  for (char c : opt->get_name(false, true))
    names += c == ',' ? std::string(", ") : std::string(1, c);
  return names;
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  if (opt->get_type_size() == 0 || opt->get_positional()) return "";
  return " " + opt->get_type_name();
}

std::string HelpFormatter::make_option_desc(const CLI::Option* opt) const {
  std::string desc = opt->get_description();
  // Excludes in words, in the description: beside the flag it broke the column layout.
  // By name: CLI11 keeps them in a set ordered by address, which differs from run to run
  // (and would make the generated man page and completions differ from build to build).
  std::vector<std::string> names;
  for (const CLI::Option* other : opt->get_excludes()) names.push_back(other->get_name());
  std::sort(names.begin(), names.end());
  std::string excluded;
  for (const std::string& name : names) excluded += (excluded.empty() ? "" : ", ") + name;
  if (!excluded.empty()) desc += " (not with " + excluded + ")";
  return desc;
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  return help_row("  " + sub->get_display_name(true), sub->get_description(), column_width_,
                  width_);
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  const std::string desc = app->get_description();
  return desc.empty() ? "" : reflow_blocks(desc, width_) + "\n";
}

std::string HelpFormatter::make_usage(const CLI::App* app, std::string name) const {
  const std::string usage =
      usage_.empty() ? CLI::Formatter::make_usage(app, std::move(name)) : "Usage: " + usage_ + "\n";
  return wrap_lines(usage, width_);
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  const std::string footer = app->get_footer();
  return footer.empty() ? "" : reflow_blocks(footer, width_) + "\n";
}

void use_help_format(CLI::App& app, std::string usage) {
  app.formatter(std::make_shared<HelpFormatter>(help_width(), std::move(usage)));
}

}  // namespace iobench
