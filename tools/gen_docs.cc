// iobench-gen-docs: writes the man page or a shell's completion file, generated from the
// CLI11 App objects that parse iobench's command line (src/cli/command_docs.h). CMake runs
// it at build time; nothing here is typed twice.
// Usage: iobench-gen-docs man|bash|zsh|fish VERSION OUTPUT
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "cli/command_docs.h"
#include "cli/completions.h"
#include "cli/man_page.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: iobench-gen-docs man|bash|zsh|fish VERSION OUTPUT\n");
    return 2;
  }
  // The help's layout reads the terminal's width; the descriptions here must not depend on it.
  ::setenv("COLUMNS", "80", 1);
  const std::string_view kind = argv[1];
  const auto commands = iobench::command_docs();
  std::string text;
  if (kind == "man")
    text = iobench::man_page(commands, argv[2]);
  else if (kind == "bash")
    text = iobench::bash_completion(commands);
  else if (kind == "zsh")
    text = iobench::zsh_completion(commands);
  else if (kind == "fish")
    text = iobench::fish_completion(commands);
  else {
    std::fprintf(stderr, "iobench-gen-docs: unknown kind '%s'\n", argv[1]);
    return 2;
  }
  std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "iobench-gen-docs: cannot write %s\n", argv[3]);
    return 1;
  }
  return 0;
}
