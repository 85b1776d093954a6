// The CLI11 binding of the knob table (strategies/knobs.h): one flag per row, its words
// parsed here into the number or policy the row then judges and stores.
#pragma once

#include <string>
#include <vector>

#include "strategies/knobs.h"
#include "strategies/strategy.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace iobench {

/// The knobs' flag group of a bench run: adds every flag, then validates into params.
class KnobFlags {
 public:
  void add(CLI::App& app);
  /// params.lines must be set already (--line-length checks against it). Throws Error
  /// (exit 2) naming the flag.
  void apply(StrategyParams& params) const;

 private:
  struct Slot {
    std::string text;
    bool on = false;
    CLI::Option* option = nullptr;
  };
  std::vector<Slot> slots_;
};

}  // namespace iobench
