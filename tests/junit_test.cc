// --export-junit: every --expect check and every baseline comparison as a JUnit test case,
// through the real binary, read back with xmllint as a CI server would read it.
#include "report/junit.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "run_process.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::ScratchDir;
using testing::slurp;

/// xmllint's answer to an XPath expression on the file ("" when it refuses the file).
std::string xpath(const std::string& file, const std::string& expr) {
  const std::string cmd = "xmllint --xpath '" + expr + "' '" + file + "' 2>/dev/null";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();  // newer xmllint ends with one
  return out;
}

bool valid_xml(const std::string& file) {
  return std::system(("xmllint --noout '" + file + "'").c_str()) == 0;
}

TEST(JUnit, EachCheckIsATestCaseAndOnlyTheFailedOnesFail) {
  ScratchDir dir;
  const std::string xml = dir.path() + "/checks.xml";
  ProcessOutput r =
      iobench({"--lines", "1000", "--strategy", "buffered,unbuffered", "--runs", "1", "--warmup",
               "0", "--count-only", "--tracer", "ptrace", "--expect", "write_calls<=20", "--expect",
               "buffered.bytes>=1K", "--export-junit", xml, "--dir", dir.path()});
  EXPECT_EQ(r.status, 1) << r.err;  // unbuffered makes 1,000 calls
  ASSERT_TRUE(valid_xml(xml)) << slurp(xml);
  // write_calls<=20 applies to both rows: three verdicts, three cases.
  EXPECT_EQ(xpath(xml, "count(/testsuites/testsuite/testcase)"), "3");
  EXPECT_EQ(xpath(xml, "string(/testsuites/@tests)"), "3");
  EXPECT_EQ(xpath(xml, "string(/testsuites/testsuite/@failures)"), "1");
  EXPECT_EQ(xpath(xml, "count(//testcase[@classname=\"iobench.expect\"])"), "3");
  EXPECT_EQ(xpath(xml, "count(//failure)"), "1");
  EXPECT_EQ(xpath(xml, "string(//testcase[failure]/@name)"), "unbuffered.write_calls <= 20");
  EXPECT_EQ(xpath(xml, "string(//failure/@message)"),
            "measured 1000, expected <= 20: FAIL unbuffered.write_calls <= 20 (measured 1000)");
  EXPECT_EQ(xpath(xml, "count(//testcase[@name=\"buffered.write_calls <= 20\"]/failure)"), "0");
  EXPECT_EQ(xpath(xml, "count(//testcase[@name=\"buffered.bytes >= 1024\"]/failure)"), "0");
}

TEST(JUnit, AllPassingIsWrittenAndExitsZero) {
  ScratchDir dir;
  const std::string xml = dir.path() + "/ok.xml";
  ProcessOutput r = iobench({"--lines", "100", "--strategy", "buffered", "--runs", "1", "--warmup",
                             "0", "--count-only", "--tracer", "ptrace", "--expect",
                             "write_calls==1", "--export-junit", xml, "--dir", dir.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(valid_xml(xml));
  EXPECT_EQ(xpath(xml, "count(//testcase)"), "1");
  EXPECT_EQ(xpath(xml, "count(//failure)"), "0");
}

TEST(JUnit, BaselineComparisonsAreTestCasesAndARegressionFails) {
  ScratchDir dir;
  const std::string base = dir.path() + "/base.json", xml = dir.path() + "/baseline.xml";
  auto run = [&](const char* buffer, std::vector<std::string> more) {
    std::vector<std::string> args = {"--lines",      "1000",     "--strategy", "buffered",
                                     "--runs",       "1",        "--warmup",   "0",
                                     "--count-only", "--tracer", "ptrace",     "--buffer-size",
                                     buffer,         "--dir",    dir.path()};
    args.insert(args.end(), more.begin(), more.end());
    return iobench(args);
  };
  ASSERT_EQ(run("64K", {"--save-baseline", base}).status, 0);
  // 1 KiB buffers: 9 write calls where the baseline has 1.
  ProcessOutput r = run("1K", {"--baseline", base, "--time-tolerance", "1e300", "--export-junit",
                               xml, "--expect", "buffered.write_calls>=1"});
  EXPECT_EQ(r.status, 1) << r.err;
  ASSERT_TRUE(valid_xml(xml)) << slurp(xml);
  EXPECT_EQ(xpath(xml, "count(//testcase[@classname=\"iobench.expect\"])"), "1");
  const std::string baseline_cases =
      xpath(xml, "count(//testcase[@classname=\"iobench.baseline\"])");
  EXPECT_GE(std::stoi(baseline_cases.empty() ? "0" : baseline_cases), 2) << slurp(xml);
  EXPECT_EQ(xpath(xml, "string(//testcase[@name=\"buffered.write_calls\"]/failure/@message)"),
            "measured 9, expected 1 within the tolerance: regression (+8)");
  EXPECT_EQ(xpath(xml, "count(//testcase[@name=\"buffered.time (median)\"]/failure)"), "0");
  EXPECT_EQ(xpath(xml, "count(//failure)"), xpath(xml, "string(/testsuites/@failures)"));
}

TEST(JUnit, TraceWritesItsChecksEvenWhenOneFails) {
  ScratchDir dir;
  const std::string xml = dir.path() + "/trace.xml";
  ProcessOutput r = iobench({"trace", "--expect", "write<=300", "--expect", "write>5",
                             "--export-junit", xml, "--", "/bin/echo", "hi"});
  EXPECT_EQ(r.status, 1) << r.err;
  ASSERT_TRUE(valid_xml(xml)) << slurp(xml);
  // Named after the command and the program (COMMAND's last path component, or --name).
  EXPECT_EQ(xpath(xml, "string(/testsuites/testsuite/@name)"), "iobench trace echo");
  EXPECT_EQ(xpath(xml, "count(//testcase)"), "2");
  EXPECT_EQ(xpath(xml, "string(//testcase[failure]/@name)"), "echo.write > 5");
  EXPECT_EQ(xpath(xml, "string(//failure/@message)"),
            "measured 1, expected > 5: FAIL write > 5 (measured 1)");
}

/// Every test case's name in the file, in order, one per line.
std::string case_names(const std::string& file) {
  std::string names;
  const int n = std::stoi("0" + xpath(file, "count(//testcase)"));
  for (int i = 1; i <= n; ++i)
    names += xpath(file, "string(//testcase[" + std::to_string(i) + "]/@name)") + "\n";
  return names;
}

// A dashboard keeps a test by its name: a passing baseline check wrote one case
// (writer.write_calls), the same check failing three, and --expect cases lacked the program.
TEST(JUnit, ACheckPassingAndFailingHasTheSameCases) {
  ScratchDir dir;
  const std::string base = dir.path() + "/base.json", pass = dir.path() + "/pass.xml",
                    fail = dir.path() + "/fail.xml", out = dir.path() + "/out.txt";
  auto trace = [&](const char* lines, std::vector<std::string> more) {
    std::vector<std::string> args = {"trace", "--count-only", "--name", "writer"};
    args.insert(args.end(), more.begin(), more.end());
    args.insert(args.end(), {"--", WRITER_BIN, out, lines});
    return iobench(args);
  };
  ASSERT_EQ(trace("1000", {"--save-baseline", base}).status, 0);
  const std::vector<std::string> checks = {"--baseline", base, "--expect", "write_calls==1000"};
  std::vector<std::string> args = checks;
  args.insert(args.end(), {"--export-junit", pass});
  EXPECT_EQ(trace("1000", args).status, 0);
  args = checks;
  args.insert(args.end(), {"--export-junit", fail});
  EXPECT_EQ(trace("2000", args).status, 1);
  ASSERT_TRUE(valid_xml(pass) && valid_xml(fail)) << slurp(pass) << slurp(fail);
  EXPECT_EQ(xpath(pass, "count(//failure)"), "0") << slurp(pass);
  EXPECT_EQ(xpath(fail, "count(//failure)"), "4") << slurp(fail);
  const std::string names = case_names(pass);
  EXPECT_EQ(names, case_names(fail));
  EXPECT_EQ(names, "writer.write_calls == 1000\n" + std::string("writer.status\n") +
                       "writer.write_calls\nwriter.file " + out + "\nwriter.write\n")
      << names;
  // A value that held says so: what a dashboard shows for a passing case.
  EXPECT_EQ(xpath(fail, "string(//testcase[@name=\"writer.status\"]/system-out)"),
            "writer.status: ok → ok (=)");
}

TEST(JUnit, TwoProgramsInOneJobAreTwoSuites) {
  ScratchDir dir;
  auto suite = [&](const char* name) {
    const std::string xml = dir.path() + "/" + name + ".xml";
    const ProcessOutput r =
        iobench({"trace", "--count-only", "--name", name, "--expect", "write_calls==10",
                 "--export-junit", xml, "--", WRITER_BIN, dir.path() + "/" + name, "10"});
    EXPECT_EQ(r.status, 0) << r.err;
    return xpath(xml, "string(//testsuite/@name)") + " / " + xpath(xml, "string(//testcase/@name)");
  };
  EXPECT_EQ(suite("small"), "iobench trace small / small.write_calls == 10");
  EXPECT_EQ(suite("large"), "iobench trace large / large.write_calls == 10");
}

TEST(JUnit, AnUnwritablePathIsRefusedBeforeAnythingRuns) {
  ScratchDir dir;
  const std::string bad = dir.path() + "/missing/r.xml";
  ProcessOutput r = iobench({"--lines", "100", "--export-junit", bad, "--dir", dir.path()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("iobench: error: --export-junit"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  ProcessOutput t = iobench({"trace", "--export-junit", bad, "--", "/bin/echo", "hi"});
  EXPECT_EQ(t.status, 2);
  EXPECT_NE(t.err.find("iobench: error: --export-junit"), std::string::npos) << t.err;
  EXPECT_EQ(t.out, "") << "echo ran";
  ProcessOutput s = iobench({"sweep", "--strategy", "buffered", "--buffer-size", "1K,4K",
                             "--export-junit", dir.path() + "/s.xml", "--dir", dir.path()});
  EXPECT_EQ(s.status, 2);
  EXPECT_EQ(dir.entries(), 0);
}

TEST(JUnit, TextIsEscapedSoThatTheFileStaysValid) {
  ScratchDir dir;
  JUnitCase c{"iobench.expect", "a<b & \"c\" 'd' >e", true, "m<&\"\x01\xef\xbf\xbf",
              "d<&\"\xef\xbf\xbe"};
  const std::string xml = dir.path() + "/escaped.xml";
  FILE* f = std::fopen(xml.c_str(), "w");
  ASSERT_NE(f, nullptr);
  const std::string text = render_junit("s&<\"", {c, {"iobench.expect", "ok", false, "", "x&y"}});
  std::fputs(text.c_str(), f);
  std::fclose(f);
  ASSERT_TRUE(valid_xml(xml)) << text;
  EXPECT_EQ(xpath(xml, "string(//testcase[1]/@name)"), "a<b & \"c\" 'd' >e");
  EXPECT_EQ(xpath(xml, "string(//failure/@message)"), "m<&\"\\x01\\xef\\xbf\\xbf");
  EXPECT_EQ(xpath(xml, "string(//testsuite/@name)"), "s&<\"");
  EXPECT_EQ(xpath(xml, "count(//failure)"), "1");
  EXPECT_EQ(xml_escape("write_calls<=20"), "write_calls&lt;=20");
}

}  // namespace
}  // namespace iobench
