// Flags that read alike (issue 22, item 6): every flag of every command shows a metavariable
// from one table, --help fits 80 columns without a broken word, counts and durations take
// the same words everywhere, and each usage error names the flag, what it takes and what
// was given.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "base/quantity.h"
#include "cli/cli.h"
#include "cli/help_format.h"
#include "report/grid.h"
#include "run_process.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// Whether `part`'s words appear in `whole`'s in order, side by side: a word broken across
/// two lines (or cut) is two other words.
bool has_words(const std::vector<std::string>& whole, const std::string& part) {
  const std::vector<std::string> p = words_of(part);
  if (p.empty()) return true;
  for (std::size_t i = 0; i + p.size() <= whole.size(); ++i)
    if (std::equal(p.begin(), p.end(), whole.begin() + static_cast<std::ptrdiff_t>(i))) return true;
  return false;
}

Command parse(std::vector<std::string> words) {
  words.insert(words.begin(), "iobench");
  std::vector<const char*> argv;
  for (const std::string& w : words) argv.push_back(w.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

std::string help_of(const std::vector<std::string>& words) {
  return std::get<HelpCommand>(parse(words)).text;
}

TEST(FlagHelp, EveryFlagOfEveryCommandHasAMetavariableOfTheTable) {
  int apps = 0, values = 0;
  visit_command_apps([&](const CLI::App& app) {
    ++apps;
    for (const CLI::Option* opt : app.get_options()) {
      if (opt->get_items_expected_max() == 0) continue;  // a switch: no value
      ++values;
      const std::string word = opt->get_type_name();
      EXPECT_NE(word, "TEXT") << app.get_name() << " " << opt->get_name();
      EXPECT_NE(value_description(word), "") << app.get_name() << " " << opt->get_name() << ": '"
                                             << word << "' is no metavariable of cli/help_format.h";
    }
  });
  EXPECT_EQ(apps, 3);     // the bench run (and sweep), trace, compare
  EXPECT_GT(values, 25);  // the walk saw the flags, not an empty app
}

class HelpAtWidth : public ::testing::TestWithParam<const char*> {};

TEST_P(HelpAtWidth, NoTextNoLineTooWideNoWordBroken) {
  const std::size_t width = std::stoul(GetParam());
  ::setenv("COLUMNS", GetParam(), 1);
  int checked = 0;
  const std::vector<std::vector<std::string>> commands = {
      {"--help"}, {"trace", "--help"}, {"compare", "--help"}, {"sweep", "--help"}};
  std::vector<std::string> helps;
  for (const auto& words : commands) {
    const std::string text = help_of(words);
    helps.push_back(text);
    EXPECT_EQ(text.find("TEXT"), std::string::npos) << words.front() << "\n" << text;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      EXPECT_LE(display_width(line), width) << words.front() << ": " << line;
  }
  // Every description, footer and about text of the apps, whole words in order.
  visit_command_apps([&](const CLI::App& app) {
    const std::string& help = app.get_name() == "trace"             ? helps[1]
                              : app.get_name() == "iobench compare" ? helps[2]
                                                                    : helps[0];
    const std::vector<std::string> shown = words_of(help);
    for (const std::string& text : {app.get_description(), app.get_footer()})
      EXPECT_TRUE(has_words(shown, text)) << app.get_name() << ": " << text << "\n" << help;
    for (const CLI::Option* opt : app.get_options()) {
      EXPECT_TRUE(has_words(shown, opt->get_description())) << opt->get_name() << "\n" << help;
      ++checked;
    }
  });
  EXPECT_GT(checked, 40);
  ::unsetenv("COLUMNS");
}

INSTANTIATE_TEST_SUITE_P(Cli, HelpAtWidth, ::testing::Values("80", "60"));

TEST(FlagHelp, OneUsageLinePerCommand) {
  ::setenv("COLUMNS", "80", 1);
  for (const auto& words : std::vector<std::vector<std::string>>{
           {"--help"}, {"trace", "--help"}, {"compare", "--help"}, {"sweep", "--help"}}) {
    const std::string text = help_of(words);
    std::size_t usages = 0;
    for (std::size_t at = text.find("Usage:"); at != std::string::npos;
         at = text.find("Usage:", at + 1))
      ++usages;
    EXPECT_EQ(usages, 1u) << words.front() << "\n" << text;
  }
  EXPECT_NE(help_of({"trace", "--help"}).find("Usage: iobench trace [options] -- COMMAND"),
            std::string::npos);
  ::unsetenv("COLUMNS");
}

TEST(FlagHelp, ExcludesReadsInTheDescriptionNotBesideTheFlag) {
  ::setenv("COLUMNS", "80", 1);
  const std::string text = help_of({"--help"});
  EXPECT_EQ(text.find("Excludes:"), std::string::npos) << text;
  // Both --time-all and --cross-check exclude --count-only: named in order, whatever the heap.
  EXPECT_NE(text.find("(not with --cross-check, --time-all)"), std::string::npos) << text;
  ::unsetenv("COLUMNS");
}

// ---- one parser for counts, one for durations ----

TEST(FlagValues, CountsTakeTheWordsSweepTakes) {
  const auto lines = [](const char* v) {
    return std::get<BenchOptions>(parse({"--lines", v, "--strategy", "buffered"})).params.lines;
  };
  EXPECT_EQ(lines("10K"), 10240u);  // K is 1024, as in sizes and sweep --lines 1K,10K
  EXPECT_EQ(lines("1e6"), 1000000u);
  EXPECT_EQ(lines("1.5K"), 1536u);
  EXPECT_EQ(lines("2e3"), 2000u);
  EXPECT_EQ(std::get<BenchOptions>(parse({"--batch", "1K", "--strategy", "writev"})).params.batch,
            1024u);
  const SweepOptions sweep = parse_sweep({"--strategy", "buffered", "--lines", "1K,1e4"});
  EXPECT_EQ(sweep.values, (std::vector<std::uint64_t>{1024, 10000}));
}

TEST(FlagValues, ExactWholeNumbers) {
  EXPECT_EQ(read_count("18446744073709551615").value, UINT64_MAX);
  EXPECT_EQ(read_count("18446744073709551616").error,
            "'18446744073709551616' does not fit in 64 bits");
  EXPECT_EQ(read_count("16G").value, 16ull << 30);
  EXPECT_EQ(read_count("1e19").value, 10000000000000000000ull);
  EXPECT_EQ(read_count("1e20").error, "'1e20' does not fit in 64 bits");
  EXPECT_EQ(read_count("1e-3").error, "'1e-3' is not a whole number");
  EXPECT_EQ(read_count("0.1K").error, "'0.1K' is not a whole number");
  EXPECT_EQ(read_count("10B").error, "'10B' is not a whole number");  // a byte is no item
  EXPECT_EQ(read_size("1e6").value, 1000000u);
  EXPECT_EQ(read_size("64k").value, 65536u);
}

TEST(FlagValues, TimeoutTakesTheDurationsExpectTakes) {
  using std::chrono::nanoseconds;
  const auto timeout = [](const char* v) {
    return *std::get<BenchOptions>(parse({"--timeout", v, "--strategy", "buffered"})).run.timeout;
  };
  EXPECT_EQ(timeout("1s"), nanoseconds(1'000'000'000));
  EXPECT_EQ(timeout("500ms"), nanoseconds(500'000'000));
  EXPECT_EQ(timeout("2m"), nanoseconds(120'000'000'000));
  EXPECT_EQ(timeout("1.5"), nanoseconds(1'500'000'000));  // a bare number: seconds, as before
  const auto trace =
      std::get<TraceCommandOptions>(parse({"trace", "--timeout", "1s", "--", "true"}));
  EXPECT_EQ(trace.timeout, nanoseconds(1'000'000'000));
  EXPECT_EQ(parse_compare({"--timeout", "250ms", "/bin/true"}).run.timeout,
            nanoseconds(250'000'000));
}

// ---- each message of issue 22, through the real binary: the exact line, exit 2 ----

struct Refusal {
  std::vector<std::string> args;
  std::string line;
};

void PrintTo(const Refusal& r, std::ostream* os) {
  for (const std::string& w : r.args) *os << w << ' ';
}

class FlagRefusals : public ::testing::TestWithParam<Refusal> {};

TEST_P(FlagRefusals, NameTheFlagWhatItTakesAndWhatWasGiven) {
  const ProcessOutput r = iobench(GetParam().args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "iobench: error: " + GetParam().line + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Cli, FlagRefusals,
    ::testing::Values(
        Refusal{{"--lines"}, "--lines needs a value (a count such as 1000 or 10K)"},
        Refusal{{"--lines", "--strategy", "buffered"},
                "--lines needs a value (a count such as 1000 or 10K), not the option --strategy"},
        Refusal{{"trace", "--timeout", "--", "true"},
                "--timeout needs a value (a duration such as 30s, 500ms or 2m) before --"},
        Refusal{{"compare", "/bin/true", "--runs"},
                "compare: --runs needs a value (a count such as 1000 or 10K, or auto)"},
        Refusal{{"--strategy", "all,buffered"},
                "--strategy all,buffered: all cannot be combined with names (give all alone, or "
                "a comma list of names such as buffered,mmap)"},
        Refusal{{"--baseline", "/nonexistent/nope.json", "--strategy", "buffered"},
                "--baseline /nonexistent/nope.json: cannot read it: No such file or directory"},
        Refusal{{"--timeout", "1 fortnight", "--strategy", "buffered"},
                "--timeout: '1 fortnight' is not a duration (e.g. 30s, 500ms, 2m; a bare number "
                "is seconds)"}));

}  // namespace
}  // namespace iobench
