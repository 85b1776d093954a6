// libFuzzer: baseline documents (--baseline FILE), parsed and compared with a fixed report.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "check/baseline.h"
#include "report/baseline_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    iobench::Baseline b = iobench::parse_baseline(text, "fuzz");
    iobench::RunRecord rep;
    rep.lines = b.lines;
    for (const auto& name : b.order) {
      iobench::StrategyResult r;
      r.strategy = name;
      r.time_ns = iobench::summarize({1, 2, 3});
      r.write_calls = 17;
      rep.results.push_back(r);
    }
    (void)iobench::render_comparison(iobench::compare_with_baseline(b, rep, {}));
  } catch (const iobench::Error&) {
  }
  return 0;
}
