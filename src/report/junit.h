// --export-junit: every --expect check and every baseline comparison as a JUnit <testcase>,
// the XML that GitLab, Jenkins and GitHub test reporters read. Like the other exporters, a
// pure function from results to bytes; the caller writes them (write_output).
#pragma once

#include <string>
#include <vector>

#include "check/baseline.h"
#include "check/expect.h"

namespace iobench {

/// One test case: `classname` groups them (iobench.expect, iobench.baseline), `name` is the
/// check as it reads; a failed one carries `message` (measured, expected, why) and `detail`.
struct JUnitCase {
  std::string classname;
  std::string name;
  bool failed = false;
  std::string message;
  std::string detail;
};

/// One case per verdict, named by the check ("buffered.write_calls <= 20").
std::vector<JUnitCase> junit_cases(const std::vector<ExpectationOutcome>& outcomes);
/// One case per compared value ("buffered.write_calls"), failed where it regressed.
std::vector<JUnitCase> junit_cases(const BaselineComparison& comparison);

/// <testsuites><testsuite name=suite tests= failures=><testcase .../>...</testsuite></testsuites>
std::string render_junit(const std::string& suite, const std::vector<JUnitCase>& cases);

/// Text made safe for an XML attribute or element: & < > " ' escaped, and the control
/// characters XML 1.0 cannot carry at all replaced by '?'.
std::string xml_escape(const std::string& text);

}  // namespace iobench
