// The one table of strategy knobs (as fio's engines own their options): a row per member of
// StrategyParams that a flag sets. The table drives the bench flags and their validation
// (cli/knob_flags.cc), the flags a sweep may vary (sweep_cli.cc), every JSON config block
// (json.cc) and the options a baseline compares (baseline.cc). Defaults live once, in
// StrategyParams. Words become numbers in cli/; the rows judge and store the numbers.
// Adding a knob: a member in StrategyParams, a row in knobs.cc, and its name in the `knobs`
// of each strategy that reads it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "strategies/strategy.h"

namespace iobench {

/// How a knob's value is typed: a size (4K works), a whole number, a policy word, a switch.
enum class KnobKind { kSize, kCount, kPolicy, kSwitch };

/// A knob's value as every config block records it: null (the default, not a number), a
/// number, a switch, or a policy word.
using KnobValue = std::variant<std::monostate, std::uint64_t, bool, std::string>;

/// A knob's value once cli/ parsed the words: a number (kSize, kCount), a policy, a switch.
using KnobSetting = std::variant<std::uint64_t, SyncPolicy, bool>;

struct Knob {
  std::string_view name;  // the JSON config key and the name strategies declare
  std::string_view flag;  // "--buffer-size"
  KnobKind kind;
  bool sweepable = false;          // `iobench sweep` may vary it
  bool every_strategy = false;     // read by every strategy (through line_format), not declared
  bool empty_is_default = false;   // an empty value keeps the default (--line-length "")
  std::uint64_t min = 0, max = 0;  // limits for kSize and kCount (set may check more)
  std::string_view help;           // the flag's help line, its default included
  /// Judges an already-parsed value (`words`: as written, for the messages) and stores it in
  /// p; returns the error naming the flag, empty when it is stored. Runs after p.lines is
  /// set, in table order.
  std::string (*set)(const Knob& self, const KnobSetting& v, std::string_view words,
                     StrategyParams& p);
  KnobValue (*value)(const StrategyParams& p);
};

/// Every knob, in the order `iobench --help` lists them.
std::span<const Knob> all_knobs() noexcept;
/// nullptr when no knob has that name.
const Knob* find_knob(std::string_view name) noexcept;
/// The registered strategies that read `knob`, in the registry's order (empty for
/// every_strategy knobs: all of them).
std::vector<std::string> strategies_using(const Knob& knob);
/// The value as a baseline shows it: "default" for null, else the JSON text.
std::string knob_text(const KnobValue& v);

}  // namespace iobench
