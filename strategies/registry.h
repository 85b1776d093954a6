// The one list of strategies. Explicit on purpose: constructor self-registration is
// silently dropped when a static library's object is not referenced.
#pragma once

#include <span>
#include <string_view>

#include "strategies/strategy.h"

namespace iobench {

/// Every strategy, in the order the table shows them.
std::span<const Strategy* const> all_strategies() noexcept;

/// nullptr when no strategy has that name.
const Strategy* find_strategy(std::string_view name) noexcept;

}  // namespace iobench
