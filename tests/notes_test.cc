// Roles and footnotes are the strategy's (strategies/note.h): the reporters ask, and never
// name a strategy, so renaming one or adding a note is a change to its own file only.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "report/reporter.h"
#include "strategies/registry.h"

namespace iobench {
namespace {

bool token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

/// The code of a file, comment lines and trailing comments left out.
std::string code_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line, out;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, 2, "//") == 0) continue;
    if (const auto c = line.find("  // "); c != std::string::npos) line.resize(c);
    out += line + "\n";
  }
  return out;
}

TEST(StrategyNotes, NoReporterFileNamesAStrategy) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(REPORT_SRC_DIR)) {
    if (entry.path().extension() != ".cc") continue;
    ++files;
    const std::string code = code_of(entry.path());
    for (const Strategy* s : all_strategies()) {
      const std::string name(s->name);
      // A comparison with its name ("unbuffered") decides a role by name.
      EXPECT_EQ(code.find('"' + name + '"'), std::string::npos)
          << entry.path().filename() << " compares with \"" << name << '"';
      // "mmap: ..." is a footnote written in the reporter.
      for (auto at = code.find(name + ":"); at != std::string::npos;
           at = code.find(name + ":", at + 1))
        EXPECT_TRUE(at > 0 && token_char(code[at - 1]))
            << entry.path().filename() << " writes a note for " << name;
    }
  }
  EXPECT_GT(files, 5u);  // the directory really was read
}

TEST(StrategyNotes, OneReferenceAndOneFloor) {
  int reference = 0, floor = 0;
  for (const Strategy* s : all_strategies()) {
    reference += s->role == StrategyRole::kReference;
    floor += s->role == StrategyRole::kFloor;
  }
  EXPECT_EQ(reference, 1);
  EXPECT_EQ(floor, 1);
}

TEST(StrategyNotes, EveryFootnoteIsItsOwnStrategys) {
  NoteFigures f{.row = {.write_calls = 3, .page_faults = 300, .time_ns = 1e6, .cpu_ns = 2e6},
                .floor = NoteRow{.page_faults = 50, .time_ns = 5e5, .cpu_ns = 6e5},
                .floor_name = "the floor",
                .bytes = 1 << 20,
                .block_size = 4096,
                .count = format_count,
                .duration = format_duration,
                .size = format_bytes};
  int notes = 0;
  for (const Strategy* s : all_strategies()) {
    if (!s->footnote) continue;
    const std::string note = s->footnote(f);
    ASSERT_FALSE(note.empty()) << s->name;
    EXPECT_EQ(note.rfind(std::string(s->name) + ": ", 0), 0u) << note;
    ++notes;
  }
  EXPECT_GE(notes, 5);
}

}  // namespace
}  // namespace iobench
