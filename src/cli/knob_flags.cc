#include "cli/knob_flags.h"

#include <CLI/CLI.hpp>
#include <cstdint>

#include "base/error.h"
#include "cli/cli_values.h"
#include "cli/help_format.h"

namespace iobench {
namespace {

/// The words of a row's flag as the value its kind takes; Error on words that are none.
KnobSetting parse_words(const Knob& k, const std::string& text) {
  const std::string flag(k.flag);
  switch (k.kind) {
    case KnobKind::kSize:
      return text.empty() && k.empty_is_default ? 0 : parse_size(flag, text);
    case KnobKind::kCount:
      return parse_count(flag, text, 0, UINT64_MAX);  // the row judges its limits
    case KnobKind::kPolicy:
      return parse_sync(text);
    case KnobKind::kSwitch:
      return true;
  }
  return true;
}

/// The row's value word in --help: its kind says what it takes.
const char* metavar_of(KnobKind kind) {
  switch (kind) {
    case KnobKind::kSize:
      return metavar::kSize;
    case KnobKind::kPolicy:
      return "none|end|every:N";  // parse_sync's words
    default:
      return metavar::kCount;
  }
}

}  // namespace

void KnobFlags::add(CLI::App& app) {
  slots_.resize(all_knobs().size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Knob& k = all_knobs()[i];
    const std::string flag(k.flag), help(k.help);
    slots_[i].option = k.kind == KnobKind::kSwitch ? app.add_flag(flag, slots_[i].on, help)
                                                   : app.add_option(flag, slots_[i].text, help);
    if (k.kind != KnobKind::kSwitch) slots_[i].option->type_name(metavar_of(k.kind));
  }
}

void KnobFlags::apply(StrategyParams& params) const {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Knob& k = all_knobs()[i];
    // Not given: StrategyParams' default stands (defaults live there once).
    if (slots_[i].option->count() == 0 || (k.kind == KnobKind::kSwitch && !slots_[i].on)) continue;
    const std::string& text = slots_[i].text;
    if (std::string error = k.set(k, parse_words(k, text), text, params); !error.empty())
      throw Error(error);
  }
}

}  // namespace iobench
