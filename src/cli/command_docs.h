// Every command and flag of iobench's as plain values, read from the same CLI::App objects
// that parse the command line and print --help: what the man page and the shell completions
// are generated from (tools/gen_docs.cc), so that neither retypes a flag or a value.
#pragma once

#include <string>
#include <vector>

namespace iobench {

/// What a flag's value is, for a shell completing it.
enum class ValueKind {
  kNone,     // a switch: no value
  kWord,     // a value with no list (a count, a size, an expression)
  kChoice,   // one of `values`
  kList,     // a comma list of `values` (--strategy buffered,mmap)
  kFile,     // a file name
  kDirs,     // a directory, or a comma list of them
  kCommand,  // a command line
};

/// One flag as --help shows it, and the words its value may take.
struct FlagDoc {
  std::vector<std::string> names;  // "-n", "--lines": the short first
  std::string metavar;             // "N", "table|json"; empty for a switch
  std::string help;                // --help's description, "(not with ...)" included
  ValueKind kind = ValueKind::kNone;
  std::vector<std::string> values;  // from the lists the flag's parser checks
};

/// One command: the run (name empty), trace, sweep or compare.
struct CommandDoc {
  std::string name;         // "", "trace", "sweep", "compare"
  std::string summary;      // one line: the subcommand's description in the run's --help
  std::string description;  // the paragraphs above --help's options
  std::string usage;        // "iobench trace [options] -- COMMAND [ARGS...]"
  std::string footer;       // the paragraphs below them
  std::vector<FlagDoc> flags;
  std::string positional;        // "COMMAND" when it takes words that are no flag, else empty
  std::string positional_help;   // its description in --help
  bool takes_run_flags = false;  // sweep: every flag of the run
};

/// The run first, then each subcommand in the order the run's --help lists them.
std::vector<CommandDoc> command_docs();

}  // namespace iobench
