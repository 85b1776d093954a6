// libFuzzer: byte sizes as flags take them (--buffer-size 64KiB).
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "cli/cli_values.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)iobench::parse_size("--buffer-size", text);
  } catch (const iobench::Error&) {
  }
  return 0;
}
