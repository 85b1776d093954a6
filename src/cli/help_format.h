// --help laid out for the terminal: every flag's metavariable from one table, descriptions
// wrapped in their column at word boundaries, one Usage line per command.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace iobench {

/// A flag's value words, one table for every command: what --help shows after the flag.
namespace metavar {
inline constexpr const char* kCount = "N";
inline constexpr const char* kSize = "SIZE";
inline constexpr const char* kDuration = "DURATION";
inline constexpr const char* kFile = "FILE";
inline constexpr const char* kDirs = "DIR[,DIR…]";
inline constexpr const char* kExpr = "EXPR";
inline constexpr const char* kName = "NAME";
inline constexpr const char* kNames = "NAME[,NAME…]";
inline constexpr const char* kFraction = "FRACTION";
inline constexpr const char* kCommand = "COMMAND";
}  // namespace metavar

/// What a flag with metavariable `word` takes, in words ("a count such as 1000 or 10K"), for
/// "needs a value"; a choice list "table|json" reads "table or json". Empty: `word` is no
/// metavariable of the table (a flag declared without one shows CLI11's TEXT).
std::string value_description(std::string_view word);

/// The width help is laid out for: $COLUMNS, else the terminal's on stdout, else 80; at
/// least 40 (below that no flag and its description fit side by side), at most 100.
std::size_t help_width();

/// CLI11's layout with iobench's: "-n, --lines N", the description wrapped in its column
/// (on the next line when the flag is wider), Excludes as words in it, and `usage` (when
/// given) as the one Usage line.
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(std::size_t width, std::string usage = "");

  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_opts(const CLI::Option* opt) const override;
  std::string make_option_desc(const CLI::Option* opt) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_footer(const CLI::App* app) const override;
  /// The one Usage line given (without "Usage: "), or empty for CLI11's.
  const std::string& usage() const { return usage_; }

 private:
  std::size_t width_;
  std::string usage_;
};

/// Installs a HelpFormatter of help_width() on `app` (its subcommands made later inherit it).
void use_help_format(CLI::App& app, std::string usage = "");

/// `left` in the first `column` columns and `right` wrapped beside it within `width`, as one
/// help row (on the next line when left is too wide); what sweep's hand-written help uses too.
std::string help_row(const std::string& left, const std::string& right, std::size_t column,
                     std::size_t width);
/// Each block of `text` (blank-line separated) as it is when it fits `width`, else its lines
/// joined and filled: hand-made breaks survive on a wide terminal, prose reflows on a narrow.
std::string reflow_blocks(const std::string& text, std::size_t width);
/// The column descriptions start in at `width`.
std::size_t help_column(std::size_t width);

}  // namespace iobench
