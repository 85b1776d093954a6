// The man page's and the completions' source (cli/command_docs.h): the words a flag's value
// may take are the lists its parser checks, every EXAMPLES line parses, and the generated
// files name every flag (issue 24, items 4 and 5).
#include "cli/command_docs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/completions.h"
#include "cli/man_page.h"
#include "report/reporter.h"
#include "strategies/registry.h"
#include "tracer/counting_backend.h"

namespace iobench {
namespace {

const FlagDoc* find_flag(const CommandDoc& c, const std::string& name) {
  for (const FlagDoc& f : c.flags)
    for (const std::string& n : f.names)
      if (n == name) return &f;
  return nullptr;
}

TEST(CommandDocs, ValuesAreTheListsTheParsersCheck) {
  const std::vector<CommandDoc> docs = command_docs();
  ASSERT_EQ(docs.size(), 4u);  // the run, trace, sweep, compare
  const FlagDoc* strategy = find_flag(docs.front(), "--strategy");
  ASSERT_NE(strategy, nullptr);
  EXPECT_EQ(strategy->kind, ValueKind::kList);
  std::vector<std::string> names = {"all"};
  for (const Strategy* s : all_strategies()) names.emplace_back(s->name);
  EXPECT_EQ(strategy->values, names);

  std::vector<std::string> formats, trace_formats, tracers;
  for (const FormatInfo& f : output_formats()) {
    formats.emplace_back(f.name);
    if (f.trace) trace_formats.emplace_back(f.name);
  }
  for (const Backend& b : backends()) tracers.emplace_back(b.traits->name);
  tracers.emplace_back("auto");
  EXPECT_EQ(find_flag(docs.front(), "--format")->values, formats);
  EXPECT_EQ(find_flag(docs[1], "--format")->values, trace_formats);
  EXPECT_EQ(find_flag(docs[3], "--tracer")->values, tracers);
  EXPECT_EQ(find_flag(docs.front(), "--sync")->kind, ValueKind::kChoice);
  EXPECT_EQ(find_flag(docs.front(), "--export-json")->kind, ValueKind::kFile);
  EXPECT_TRUE(docs[2].takes_run_flags);  // sweep
  EXPECT_EQ(docs[3].positional, "COMMAND");
}

TEST(CommandDocs, EveryGeneratedFileNamesEveryFlag) {
  const std::vector<CommandDoc> docs = command_docs();
  const std::string man = man_page(docs, "0"), bash = bash_completion(docs),
                    zsh = zsh_completion(docs), fish = fish_completion(docs);
  for (const CommandDoc& c : docs)
    for (const FlagDoc& f : c.flags)
      for (const std::string& n : f.names) {
        std::string roff;  // the man page writes each '-' as "\-"
        for (char ch : n) roff += ch == '-' ? std::string("\\-") : std::string(1, ch);
        EXPECT_NE(man.find("\\fB" + roff + "\\fR"), std::string::npos) << n;
        EXPECT_NE(bash.find(n), std::string::npos) << n;
        EXPECT_NE(zsh.find(n), std::string::npos) << n;
        const std::string fish_name =
            n.starts_with("--") ? "-l " + n.substr(2) : "-s " + n.substr(1);
        EXPECT_NE(fish.find(fish_name), std::string::npos) << n;
      }
}

TEST(CommandDocs, EveryExampleOfTheManPageParses) {
  for (const ManExample& e : man_examples()) {
    const std::vector<std::string> words = split_words(e.command);
    ASSERT_EQ(words.front(), "iobench") << e.command;
    std::vector<const char*> argv;
    for (const std::string& w : words) argv.push_back(w.c_str());
    EXPECT_NO_THROW(parse_command_line(static_cast<int>(argv.size()), argv.data())) << e.command;
  }
}

}  // namespace
}  // namespace iobench
