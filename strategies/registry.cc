#include "registry.h"

#include <array>

namespace iobench {

// Each defined in its own file under strategies/. Add a new one here (see template.cc).
extern const Strategy kUnbuffered;
extern const Strategy kUnbufferedPieces;
extern const Strategy kStdio;
extern const Strategy kBuffered;
extern const Strategy kWritev;
extern const Strategy kIoUring;
extern const Strategy kMmap;
extern const Strategy kSingleWrite;
extern const Strategy kFormatOnly;

namespace {
// Pointers, not copies: the strategies are constant-initialised, so there is no
// static-initialisation-order problem in taking their addresses here.
const std::array<const Strategy*, 9> kAll = {
    &kUnbuffered, &kUnbufferedPieces, &kStdio,       &kBuffered,   &kWritev,
    &kIoUring,    &kMmap,             &kSingleWrite, &kFormatOnly,
};
}  // namespace

std::span<const Strategy* const> all_strategies() noexcept { return kAll; }

const Strategy* find_strategy(std::string_view name) noexcept {
  for (const Strategy* s : kAll)
    if (s->name == name) return s;
  return nullptr;
}

}  // namespace iobench
