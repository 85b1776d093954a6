// `iobench trace`'s words: where iobench's options end and the traced command begins.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "error.h"

namespace iobench {

TraceWords split_trace_words(const CLI::App& trace, const std::vector<std::string>& words) {
  TraceWords out;
  std::size_t i = 0;
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") {  // the documented form: everything after the first -- is the command's
      ++i;
      break;
    }
    if (w.size() < 2 || w[0] != '-') break;  // the first word that is no option starts it
    const bool long_form = w[1] == '-';
    const std::size_t eq = long_form ? w.find('=') : std::string::npos;
    const std::string name = long_form ? w.substr(0, eq) : w.substr(0, 2);
    const CLI::Option* option = trace.get_option_no_throw(name);
    if (option == nullptr)
      throw Error(
          fmt::format("trace: unknown option '{}' (the command's own options go after it: "
                      "iobench trace [options] -- COMMAND [ARGS...])",
                      name));
    out.options.push_back(w);
    // --format json, -o FILE: the value is the next word, unless it came with = or -oFILE.
    const bool value_inline = long_form ? eq != std::string::npos : w.size() > 2;
    if (option->get_items_expected_max() > 0 && !value_inline && i + 1 < words.size())
      out.options.push_back(words[++i]);
  }
  out.command.assign(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
  return out;
}

}  // namespace iobench
