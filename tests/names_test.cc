// Any bytes in a name (issue 25, items 3 and 11): an argument, a file name the traced program
// writes, a --dir, a compare -n name that is not UTF-8 or carries ESC and a newline. JSON
// still parses (nlohmann and jq) and keeps the exact bytes in `_raw`; the table, CSV and
// Markdown show them escaped, one row each; nothing reaches the terminal raw.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_surface_test.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD
// A name that moves the cursor home, erases the screen and starts a new line.
constexpr const char* kHostile = "\xff\x1b[H\x1b[2J\nnext";
constexpr const char* kHostileEscaped = "\\xff\\x1b[H\\x1b[2J\\nnext";

/// The document, parsed as strictly as nlohmann does (it refuses invalid UTF-8), or a
/// failure naming the text.
nlohmann::json parse(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << e.what() << "\n" << text;
    return nullptr;
  }
}

/// jq reads the file and prints `filter`'s value (raw), or "" when jq is missing.
std::string jq(const std::string& filter, const std::string& file) {
  if (::access("/usr/bin/jq", X_OK) != 0) return "";
  ProcessOutput r = run_process({"/usr/bin/jq", "-r", filter, file});
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

TEST(Names, AnArgumentThatIsNotUtf8KeepsTheTraceAndItsJson) {
  ScratchDir dir;
  const std::string json = dir.path() + "/t.json";
  ProcessOutput r = iobench(
      {"trace", "--format", "json", "-o", json, "--", ARGV_PRINTER_BIN, "\xff", "caf\xc3\xa9"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "argc=3\n[\xff]\n[caf\xc3\xa9]\n");  // the command got its bytes
  const nlohmann::json doc = parse(slurp(json));
  EXPECT_EQ(doc["command"][1], kReplacement);
  EXPECT_EQ(doc["command"][2], "caf\xc3\xa9");  // valid UTF-8 as it is
  const nlohmann::json expected_raw = {ARGV_PRINTER_BIN, "\\xff", "caf\xc3\xa9"};
  EXPECT_EQ(doc["command_raw"], expected_raw);
  EXPECT_EQ(doc["exit_status"], 0);
  if (::access("/usr/bin/jq", X_OK) != 0) GTEST_SKIP() << "jq is not installed";
  EXPECT_EQ(jq(".command_raw[1]", json), "\\xff\n");
}

TEST(Names, TheSameArgumentOnStdoutIsValidJsonToo) {
  // /bin/true prints nothing, so stdout is the document alone.
  ProcessOutput r = iobench({"trace", "--format", "json", "--", "/bin/true", "\xff"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse(r.out)["command_raw"][1], "\\xff");
}

/// `trace` of the argv printer writing its report into `name` in `dir`.
std::vector<std::string> writing_to(const std::string& path, std::vector<std::string> options) {
  options.insert(options.end(),
                 {"--", "/usr/bin/env", "ARGV_PRINTER_OUT=" + path, ARGV_PRINTER_BIN, "x"});
  return options;
}

TEST(Names, AFileNameWithAnyBytesIsInTheJsonExactly) {
  ScratchDir dir;
  const std::string json = dir.path() + "/t.json";
  const std::string file = dir.path() + "/" + kHostile;
  ProcessOutput r = iobench(writing_to(file, {"trace", "--format", "json", "-o", json}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(file), "argc=2\n[x]\n");
  const nlohmann::json doc = parse(slurp(json));
  const auto& files = doc["files"];
  const auto it = std::find_if(files.begin(), files.end(),
                               [](const nlohmann::json& f) { return f.contains("path_raw"); });
  ASSERT_NE(it, files.end()) << doc.dump(2);
  EXPECT_EQ((*it)["path"], dir.path() + "/" + kReplacement + "\x1b[H\x1b[2J\nnext");
  EXPECT_EQ((*it)["path_raw"], dir.path() + "/" + kHostileEscaped);
  EXPECT_EQ((*it)["calls"], 1);
  EXPECT_EQ(doc["write_calls"], 1);
}

TEST(Names, AFileNameWithEscAndNewlineIsEscapedInTheTable) {
  ScratchDir dir;
  const std::string file = dir.path() + "/" + kHostile;
  ProcessOutput r = iobench(writing_to(file, {"trace"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;  // no escape sequence at all
  EXPECT_EQ(r.err.find('\xff'), std::string::npos) << r.err;
  // The file's row is one line: its name escaped, then its calls and bytes.
  std::istringstream lines(r.err);
  std::string line, row;
  while (std::getline(lines, line))
    if (line.find(kHostileEscaped) != std::string::npos) row = line;
  EXPECT_EQ(row.rfind(dir.path() + "/" + kHostileEscaped, 0), 0u) << r.err;
  EXPECT_NE(row.find(" 1 "), std::string::npos) << row;  // 1 call on the same line
}

// A right-to-left override in a file name would show the rest of its row reversed, a
// zero-width space would hide in it; CJK characters take two cells each. The file table
// shows the first two as escapes and pads the third by the cells it takes: every row aligned.
TEST(Names, BidiAndZeroWidthAreEscapedAndWideNamesAligned) {
  ScratchDir dir;
  const std::string& d = dir.path();
  ProcessOutput r = iobench({"trace", "--count-only", "--", "/bin/sh", "-c",
                             "echo 1 > '" + d + "/\u6570\u636e.txt'; echo 2 > '" + d +
                                 "/ab\u202ecd.txt'; echo 3 > '" + d + "/zero\u200b'"});
  EXPECT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.err);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(d + "/", 0) == 0) rows.push_back(line);
  const std::vector<std::string> expected = {
      d + "/ab\\u202ecd.txt      1      —", d + "/zero\\u200b          1      —",
      d + "/\u6570\u636e.txt            1      —",  // 8 cells: padded by 6 to 14
  };
  EXPECT_EQ(rows, expected) << r.err;
}

TEST(Names, ADirThatIsNotUtf8KeepsTheRunTheJsonAndTheCsv) {
  ScratchDir scratch;
  const std::string dir = scratch.path() + "/d\xff";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  const std::string csv = scratch.path() + "/r.csv", json = scratch.path() + "/r.json";
  ProcessOutput r =
      iobench({"--strategy", "buffered", "--lines", "1000", "--runs", "1", "--warmup", "0", "--dir",
               dir, "--format", "json", "--export-csv", csv, "--export-json", json});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const std::string& text : {r.out, slurp(json)}) {
    const nlohmann::json doc = parse(text);
    EXPECT_EQ(doc["config"]["dir"], scratch.path() + "/d" + kReplacement);
    EXPECT_EQ(doc["config"]["dir_raw"], scratch.path() + "/d\\xff");
    EXPECT_EQ(doc["results"][0]["dir_raw"], scratch.path() + "/d\\xff");
    EXPECT_EQ(doc["results"][0]["status"], "ok");
  }
  const std::string rows = slurp(csv);
  EXPECT_NE(rows.find("buffered,ok,"), std::string::npos) << rows;
  EXPECT_NE(rows.find("," + scratch.path() + "/d\\xff,"), std::string::npos) << rows;
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 2) << rows;
  // The table names the directory in its heading: escaped.
  ProcessOutput table = iobench(
      {"--strategy", "buffered", "--lines", "1000", "--runs", "1", "--warmup", "0", "--dir", dir});
  EXPECT_EQ(table.status, 0) << table.err;
  EXPECT_EQ(table.out.find('\xff'), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(scratch.path() + "/d\\xff on "), std::string::npos) << table.out;
}

/// The lines of a Markdown document that are table rows.
std::vector<std::string> table_rows(const std::string& md) {
  std::vector<std::string> rows;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);)
    if (line.rfind('|', 0) == 0) rows.push_back(line);
  return rows;
}

/// The `|` that delimit cells: those not escaped as `\|`.
int cell_bars(const std::string& row) {
  int n = 0;
  for (std::size_t i = 0; i < row.size(); ++i)
    if (row[i] == '|' && (i == 0 || row[i - 1] != '\\')) ++n;
  return n;
}

TEST(Names, CompareNamesWithAnyBytesKeepEveryFormatValid) {
  ScratchDir dir;
  const std::string json = dir.path() + "/c.json", md = dir.path() + "/c.md",
                    csv = dir.path() + "/c.csv";
  ProcessOutput r = iobench({"compare", "--runs", "2", "--warmup", "0", "--format", "json",
                             "--export-markdown", md, "--export-csv", csv, "--export-json", json,
                             "-n", "\xff", "/bin/true", "-n", "a|b\nc\x1b[2J", "/bin/true"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const std::string& text : {r.out, slurp(json)}) {
    const nlohmann::json doc = parse(text);
    EXPECT_EQ(doc["results"][0]["strategy"], kReplacement);
    EXPECT_EQ(doc["results"][0]["strategy_raw"], "\\xff");
    EXPECT_EQ(doc["config"]["commands"][0]["name_raw"], "\\xff");
    EXPECT_EQ(doc["results"][1]["strategy"], "a|b\nc\x1b[2J");  // valid UTF-8: no _raw
    EXPECT_FALSE(doc["results"][1].contains("strategy_raw"));
  }
  if (::access("/usr/bin/jq", X_OK) == 0) {
    EXPECT_EQ(jq(".results[0].strategy_raw", json), "\\xff\n");
  }
  // Markdown: a heading true for compare, and one row per command, each with as many cells.
  const std::string text = slurp(md);
  EXPECT_EQ(text.rfind("2 commands, median of 2 untraced runs; counts from one traced run · ", 0),
            0u)
      << text;
  const std::vector<std::string> rows = table_rows(text);
  ASSERT_EQ(rows.size(), 4u) << text;  // header, rule, two commands
  for (const std::string& row : rows) EXPECT_EQ(cell_bars(row), 11) << row;  // 10 columns
  EXPECT_EQ(rows[0].rfind("| command |", 0), 0u) << rows[0];
  EXPECT_EQ(rows[2].rfind("| `\\xff` | 0 |", 0), 0u) << rows[2];
  EXPECT_EQ(rows[3].rfind("| `a\\|b\\nc\\x1b[2J` | 0 |", 0), 0u) << rows[3];
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  // CSV: one row per command, the names escaped.
  const std::string rows_csv = slurp(csv);
  EXPECT_EQ(std::count(rows_csv.begin(), rows_csv.end(), '\n'), 3) << rows_csv;
  EXPECT_EQ(rows_csv.find('\x1b'), std::string::npos) << rows_csv;
  EXPECT_NE(rows_csv.find("\n\\xff,ok,"), std::string::npos) << rows_csv;
  EXPECT_NE(rows_csv.find("\na|b\\nc\\x1b[2J,ok,"), std::string::npos) << rows_csv;
  // The table on stdout shows the names escaped in their rows and in the summary.
  ProcessOutput table = iobench({"compare", "--runs", "2", "--warmup", "0", "-n", "\xff",
                                 "/bin/true", "-n", "a\nb\x1b[2J", "/bin/true"});
  EXPECT_EQ(table.status, 0) << table.err;
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find('\xff'), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("a\\nb\\x1b[2J"), std::string::npos) << table.out;
}

// A -n name's backquote ended the Markdown code span `name`, and the rest of the name was
// read as Markdown. The fence is longer than any run of backquotes in the name.
TEST(Names, ABackquoteInANameStaysInsideItsMarkdownCodeSpan) {
  ScratchDir dir;
  const std::string md = dir.path() + "/c.md";
  ProcessOutput r =
      iobench({"compare", "--runs", "2", "--warmup", "0", "--export-markdown", md, "-n", "a`b",
               "/bin/true", "-n", "``*x*`", "/bin/true", "-n", "plain", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> rows = table_rows(slurp(md));
  ASSERT_EQ(rows.size(), 5u) << slurp(md);
  EXPECT_EQ(rows[2].rfind("| `` a`b `` | ", 0), 0u) << rows[2];
  EXPECT_EQ(rows[3].rfind("| ``` ``*x*` ``` | ", 0), 0u) << rows[3];
  EXPECT_EQ(rows[4].rfind("| `plain` | ", 0), 0u) << rows[4];
}

TEST(Names, AnErrorLineNamingAnOddPathIsEscaped) {
  ScratchDir dir;
  const std::string missing = dir.path() + "/" + kHostile;
  ProcessOutput r = iobench({"--dir", missing});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --dir " + dir.path() + "/" + kHostileEscaped +
                       ": No such file or directory\n");
  ProcessOutput t = iobench({"trace", "--", missing});
  EXPECT_EQ(t.status, 127);
  EXPECT_EQ(t.err, "iobench: error: trace: cannot run '" + dir.path() + "/" + kHostileEscaped +
                       "': No such file or directory\n");
}

}  // namespace
}  // namespace iobench
