#include "report/verdicts.h"

#include <cstdio>
#include <string>

#include "report/presentation.h"

namespace iobench {

bool report_expectations(const std::vector<ExpectationOutcome>& outcomes, bool to_stdout) {
  bool all_passed = true;
  std::string text;
  for (const auto& e : outcomes) {
    text += e.line + "\n";
    all_passed = all_passed && e.passed;
  }
  if (text.empty()) return true;
  if (to_stdout)
    write_stdout("\n" + text);
  else
    std::fputs(text.c_str(), stderr);
  return all_passed;
}

}  // namespace iobench
