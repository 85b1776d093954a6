#include "strategies/registry.h"

#include <cstdlib>

namespace iobench {

// Each defined in its own file under strategies/. Add a new one here (see template.cc).
extern const Strategy kUnbuffered;
extern const Strategy kUnbufferedPieces;
extern const Strategy kStdio;
extern const Strategy kBuffered;
extern const Strategy kWritev;
extern const Strategy kIoUring;
extern const Strategy kIoUringSqpoll;
extern const Strategy kMmap;
extern const Strategy kSingleWrite;
extern const Strategy kFormatOnly;
// Faulty strategies for iobench's own tests (testing.cc).
extern const Strategy kTestCrash;
extern const Strategy kTestHang;
extern const Strategy kTestWrongBytes;
extern const Strategy kTestShort;
extern const Strategy kTestTree;

namespace {
// Pointers, not copies: the strategies are constant-initialised, so there is no
// static-initialisation-order problem in taking their addresses here. A plain array: the
// compiler counts it, so adding a strategy is one line.
const Strategy* const kAll[] = {
    &kUnbuffered, &kUnbufferedPieces, &kStdio, &kBuffered,    &kWritev,
    &kIoUring,    &kIoUringSqpoll,    &kMmap,  &kSingleWrite, &kFormatOnly,
};
const Strategy* const kTesting[] = {&kTestCrash, &kTestHang, &kTestWrongBytes, &kTestShort,
                                    &kTestTree};
}  // namespace

std::span<const Strategy* const> all_strategies() noexcept { return kAll; }

const Strategy* find_strategy(std::string_view name) noexcept {
  for (const Strategy* s : kAll)
    if (s->name == name) return s;
  // The faulty ones exist only for the test suite, which opts in through the environment.
  static const char* testing = std::getenv("IOBENCH_TEST_STRATEGIES");
  if (testing && std::string_view(testing) == "1") {
    for (const Strategy* s : kTesting)
      if (s->name == name) return s;
  }
  return nullptr;
}

}  // namespace iobench
