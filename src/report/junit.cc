#include "report/junit.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/baseline_table.h"
#include "report/escape.h"

namespace iobench {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence_length(text, i);
    const std::string seq = text.substr(i, n == 0 ? 1 : n);
    i += seq.size();
    const auto u = static_cast<unsigned char>(seq[0]);
    switch (u) {
      case '&':
        out += "&amp;";
        continue;
      case '<':
        out += "&lt;";
        continue;
      case '>':
        out += "&gt;";
        continue;
      case '"':
        out += "&quot;";
        continue;
      case '\'':
        out += "&apos;";
        continue;
      case '\t':
      case '\n':
      case '\r':
        out += seq;
        continue;
      default:
        break;
    }
    // XML 1.0 has no way to write other controls, not even as &#N;, and the file says it is
    // UTF-8: a parser refuses either. Both show as the table shows them (\x01, \xff).
    // U+FFFE and U+FFFF are valid UTF-8 but not XML 1.0 characters either: their bytes too.
    if (seq == "\xEF\xBF\xBE" || seq == "\xEF\xBF\xBF") {
      for (const char c : seq) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
      continue;
    }
    out += n == 1 && u >= 0x20 && u != 0x7F ? seq : escape_text(seq);
  }
  return out;
}

std::vector<JUnitCase> junit_cases(const std::vector<ExpectationOutcome>& outcomes,
                                   const std::string& program) {
  std::vector<JUnitCase> out;
  for (const auto& o : outcomes) {
    const std::string name = program.empty() ? o.check : program + "." + o.check;
    JUnitCase c{"iobench.expect", name, !o.passed, "", o.line, "expectation"};
    if (c.failed)
      c.message = fmt::format("{}, expected {}: {}", o.measured_text, o.expected, o.line);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<JUnitCase> junit_cases(const BaselineComparison& comparison) {
  std::vector<JUnitCase> out;
  for (const auto& d : comparison.diffs) {
    const std::string line = baseline_diff_line(d);
    JUnitCase c{"iobench.baseline",
                d.strategy + "." + d.metric,
                d.failed,
                "",
                d.improvement ? line + ": improved" : line,
                d.regression ? "regression" : "changed"};
    const BaselineCells cells = baseline_cells(d);
    if (d.regression)
      c.message = fmt::format("measured {}, expected {} within the tolerance: regression ({})",
                              cells.after, cells.before, cells.change);
    else if (d.failed)
      c.message = fmt::format(
          "measured {}, expected exactly {}: improved ({}), and the counts "
          "are exact (save the baseline again to accept it)",
          cells.after, cells.before, cells.change);
    out.push_back(std::move(c));
  }
  return out;
}

std::string render_junit(const std::string& suite, const std::vector<JUnitCase>& cases) {
  const auto failures =
      std::count_if(cases.begin(), cases.end(), [](const JUnitCase& c) { return c.failed; });
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string counts =
      fmt::format("tests=\"{}\" failures=\"{}\" errors=\"0\"", cases.size(), failures);
  out += fmt::format("<testsuites name=\"iobench\" {}>\n", counts);
  out += fmt::format("  <testsuite name=\"{}\" {} skipped=\"0\">\n", xml_escape(suite), counts);
  for (const auto& c : cases) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape(c.classname),
                       xml_escape(c.name));
    if (!c.failed) {
      out += fmt::format(">\n      <system-out>{}</system-out>\n    </testcase>\n",
                         xml_escape(c.detail));
      continue;
    }
    out +=
        fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                    xml_escape(c.message), xml_escape(c.type), xml_escape(c.detail));
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace iobench
