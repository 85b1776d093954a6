// The expectations' verdicts as a person reads them, shared by bench and trace.
#pragma once

#include <vector>

#include "check/expect.h"

namespace iobench {

/// Prints the verdicts (after the table; on stderr when stdout carries a data format).
/// Returns whether every expectation passed.
bool report_expectations(const std::vector<ExpectationOutcome>& outcomes, bool to_stdout);

}  // namespace iobench
