// What iobench refuses before anything runs (exit 2), and the small contracts of its output:
// an --expect on a syscall that is not traced, baselines that are malformed or not
// comparable, flag values that parse but mean nothing. Through the real binary.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;

ProcessOutput iobench(std::vector<std::string> args) {
  args.insert(args.begin(), IOBENCH_BIN);
  return run_process(args);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Without --trace-all the filter stops on the write family only: openat or close would
// measure 0, so an expectation on them is refused, not failed after the run.
TEST(ExpectUntraced, ASyscallOutsideTheWriteFamilyNeedsTraceAll) {
  ScratchDir dir;
  const std::string out = dir.path() + "/out";
  ProcessOutput trace = iobench({"trace", "--expect", "openat==1", "--", WRITER_BIN, out, "3"});
  EXPECT_EQ(trace.status, 2) << trace.err;
  EXPECT_TRUE(contains(trace.err, "iobench: error: --expect 'openat==1': openat is not traced"))
      << trace.err;
  EXPECT_TRUE(contains(trace.err, "--trace-all")) << trace.err;
  ProcessOutput bench = iobench({"--lines", "10", "--strategy", "buffered", "--runs", "1",
                                 "--expect", "buffered.close==1", "--dir", dir.path()});
  EXPECT_EQ(bench.status, 2) << bench.out << bench.err;
  EXPECT_TRUE(contains(bench.err, "close is not traced")) << bench.err;
  EXPECT_TRUE(bench.out.empty()) << "nothing ran: " << bench.out;

  // Traced, it is measured: at least the writer's own open, and the strategy's close.
  ProcessOutput all =
      iobench({"trace", "--trace-all", "--expect", "openat>=1", "--", WRITER_BIN, out, "3"});
  EXPECT_EQ(all.status, 0) << all.err;
  EXPECT_TRUE(contains(all.err, "PASS openat >= 1")) << all.err;
  ProcessOutput bench_all =
      iobench({"--lines", "10", "--strategy", "buffered", "--runs", "1", "--trace-all", "--expect",
               "buffered.close>=1", "--dir", dir.path()});
  EXPECT_EQ(bench_all.status, 0) << bench_all.out << bench_all.err;
  // The write family needs no --trace-all.
  ProcessOutput family = iobench({"trace", "--expect", "write==3", "--", WRITER_BIN, out, "3"});
  EXPECT_EQ(family.status, 0) << family.err;
}

}  // namespace
}  // namespace iobench
