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
/// check as it reads, led by the row it checks; a failed one carries `message` (measured,
/// expected, why), the failure's `type` (expectation, regression, changed) and `detail`.
struct JUnitCase {
  std::string classname;
  std::string name;
  bool failed = false;
  std::string message;
  std::string detail;
  std::string type{};
};

/// One case per verdict, named by the check ("buffered.write_calls <= 20"); `program`, when
/// not empty, leads each name (trace's "writer.write_calls == 1000").
std::vector<JUnitCase> junit_cases(const std::vector<ExpectationOutcome>& outcomes,
                                   const std::string& program = "");
/// One case per compared value ("buffered.write_calls"), failed where it failed the check:
/// the same cases whether it passes or fails.
std::vector<JUnitCase> junit_cases(const BaselineComparison& comparison);

/// <testsuites><testsuite name=suite tests= failures=><testcase .../>...</testsuite></testsuites>
/// `suite` names the command and what it ran ("iobench trace writer"), so that two checks
/// of one CI job are two suites.
std::string render_junit(const std::string& suite, const std::vector<JUnitCase>& cases);

/// Text made safe for an XML attribute or element: & < > " ' escaped, and the control
/// characters XML 1.0 cannot carry at all replaced by '?'.
std::string xml_escape(const std::string& text);

}  // namespace iobench
