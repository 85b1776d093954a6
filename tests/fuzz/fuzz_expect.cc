// libFuzzer: --expect expressions. Any input either parses or throws iobench::Error; nothing
// else (no crash, no other exception, no UB).
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "check/expect.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    iobench::Expectation e = iobench::parse_expectation(text);
    (void)iobench::compare(1.0, e.op, e.value);
  } catch (const iobench::Error&) {
  }
  return 0;
}
