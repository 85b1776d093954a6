// Which calibrations correct a run: those whose stops cost what the run's did; what a
// calibration needs of its directory (one block) and says when it cannot have it; and that a
// run with no calibration yet is calibrated after itself, only when it timed a call.
#include "tracer/calibration.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "tracer/counting_backend.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

using tracing::residual_in_regime;

TracerCalibration calibrated(double probe_level_ns, std::int64_t residual_ns, double se_ns = 5) {
  TracerCalibration c;
  c.probe_level_ns = probe_level_ns;
  c.residual_ns = residual_ns;
  c.residual_se_ns = se_ns;
  c.probed = true;
  return c;
}

// Three calibrations with tracer and tracee on one CPU, two where each stop cost ~30 us.
const std::vector<TracerCalibration> kMixed = {calibrated(1700, 30), calibrated(31000, 200),
                                               calibrated(1650, 40), calibrated(29000, 260),
                                               calibrated(1720, 35)};

TEST(ResidualInRegime, ARunIsCorrectedByTheCalibrationsOfItsOwnStopRegime) {
  const auto fast = residual_in_regime(kMixed, 1750);
  ASSERT_TRUE(fast);
  EXPECT_DOUBLE_EQ(fast->ns, 35);
  const auto slow = residual_in_regime(kMixed, 30000);
  ASSERT_TRUE(slow);
  EXPECT_DOUBLE_EQ(slow->ns, 230);  // the middle of the two
}

TEST(ResidualInRegime, NoneInTheRunsRegimeIsNoneAndAnyRegimeIsAll) {
  EXPECT_FALSE(residual_in_regime(kMixed, 8000));
  EXPECT_FALSE(residual_in_regime({}, 1700));
  const auto all = residual_in_regime(kMixed, 0);
  ASSERT_TRUE(all);
  EXPECT_DOUBLE_EQ(all->ns, 40);  // the median of the five
}

TEST(ResidualInRegime, TheCalibrationsSpreadIsPartOfTheError) {
  const auto steady =
      residual_in_regime({calibrated(1700, 30), calibrated(1700, 30), calibrated(1700, 30)}, 1700);
  ASSERT_TRUE(steady);
  EXPECT_DOUBLE_EQ(steady->se_ns, 5);  // their own standard error, nothing more
  const auto scattered =
      residual_in_regime({calibrated(1700, 0), calibrated(1700, 30), calibrated(1700, 300)}, 1700);
  ASSERT_TRUE(scattered);
  EXPECT_GE(scattered->se_ns, 1.4826 * 30);  // one calibration's spread, from their MAD
  const auto two = residual_in_regime({calibrated(1700, 0), calibrated(1700, 100)}, 1700);
  ASSERT_TRUE(two);
  EXPECT_GE(two->se_ns, 50);  // half their difference
}

/// A tmpfs of `pages` 4 KiB pages on a private directory, with `free_pages` of them left
/// free by a filler file; unmounted after.
class SmallTmpfs {
 public:
  SmallTmpfs(int pages, int free_pages) {
    char tmpl[] = "/tmp/iobench-calibration-test.XXXXXX";
    path_ = ::mkdtemp(tmpl);
    const std::string size = "size=" + std::to_string(pages * 4096);
    mounted_ = ::mount("tmpfs", path_.c_str(), "tmpfs", 0, size.c_str()) == 0;
    if (!mounted_) return;
    const int fd = ::open((path_ + "/filler").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    const std::string page(4096, 'x');
    for (int i = 0; i < pages - free_pages; ++i)
      if (::write(fd, page.data(), page.size()) != 4096) std::abort();
    ::close(fd);
  }
  ~SmallTmpfs() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
    ::rmdir(path_.c_str());
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& path() const { return path_; }
  std::uint64_t free_bytes() const {
    struct statvfs st {};
    return ::statvfs(path_.c_str(), &st) == 0 ? st.f_bavail * st.f_frsize : 0;
  }

 private:
  std::string path_;
  bool mounted_ = false;
};

TracerOptions calibrating_in(const std::string& dir) {
  TracerOptions o;
  o.calibration_dir = dir;
  return o;
}

using CalibrationSpace = TracerTest;

TEST_F(CalibrationSpace, OneFreeBlockIsAllItNeeds) {
  SmallTmpfs fs(4, 1);
  if (!fs.mounted()) GTEST_SKIP() << "mounting a tmpfs needs root";
  ASSERT_EQ(fs.free_bytes(), 4096u);
  Tracer tracer(calibrating_in(fs.path()));
  const TracerCalibration& c = tracer.calibration();
  EXPECT_EQ(c.failure, "");
  EXPECT_EQ(c.samples, tracing::kCalibrationPairs * 100) << "every pair's traced calls timed";
  EXPECT_GT(c.overhead_ns, 0);
  EXPECT_EQ(fs.free_bytes(), 4096u) << "its unnamed file is gone with its fd";
}

TEST_F(CalibrationSpace, NoFreeBlockIsItsReasonAndTheRunsTimesAreUnknown) {
  SmallTmpfs fs(4, 0);
  if (!fs.mounted()) GTEST_SKIP() << "mounting a tmpfs needs root";
  ASSERT_EQ(fs.free_bytes(), 0u);
  Tracer tracer(calibrating_in(fs.path()));
  const std::string why =
      "cannot write its one block in " + fs.path() + ": No space left on device";
  EXPECT_EQ(tracer.calibration().failure, why);
  TempDir out;
  Command cmd({PROGRAM_WRITER, out.file("out"), "100"});
  const TraceResult r = tracer.run(cmd.fn());
  ASSERT_TRUE(r.available);
  EXPECT_EQ(r.time_unavailable_reason, "tracer calibration: " + why);
  const SyscallStats& w = r.syscalls.at("write");
  EXPECT_EQ(w.calls, 100u) << "counts stay";
  EXPECT_EQ(w.errors, 0u);
  EXPECT_EQ(w.bytes, 100 * kLineBytes) << "bytes stay";
  EXPECT_EQ(w.time_ns, 0) << "no time without a calibration";
  EXPECT_FALSE(w.latency.has_value());
  EXPECT_EQ(r.ptrace->overhead_ns, 0);
}

TEST_F(CalibrationSpace, AFailedCalibrationIsTriedAgainBeforeTheNextRun) {
  SmallTmpfs fs(4, 0);
  if (!fs.mounted()) GTEST_SKIP() << "mounting a tmpfs needs root";
  Tracer tracer(calibrating_in(fs.path()));
  EXPECT_NE(tracer.calibration().failure, "");
  ASSERT_EQ(::unlink((fs.path() + "/filler").c_str()), 0);  // the space is back
  TempDir out;
  Command cmd({PROGRAM_WRITER, out.file("out"), "100"});
  const TraceResult r = tracer.run(cmd.fn());
  EXPECT_EQ(r.time_unavailable_reason, "");
  EXPECT_EQ(tracer.calibration().failure, "");
  EXPECT_GT(r.ptrace->overhead_ns, 0);
}

using CalibrateLater = TracerTest;

TEST_F(CalibrateLater, ARunThatTimesNoCallMakesNoCalibration) {
  Tracer tracer(TracerOptions{});
  Command cmd({"/bin/true"});
  const TraceResult r = tracer.run(cmd.fn());
  ASSERT_TRUE(r.available) << r.unavailable_reason;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.ptrace->calibrations, 0u) << "nothing timed: nothing to correct";
  EXPECT_TRUE(r.ptrace->calibration_skipped);
  EXPECT_EQ(subtracted_cost_ns(r), std::nullopt) << "it subtracted nothing and says so";
  EXPECT_EQ(r.time_unavailable_reason, "");
}

TEST_F(CalibrateLater, AWritingRunIsCalibratedRightAfterItselfAndTheNextOneRestsOnThat) {
  TempDir dir;
  Tracer tracer(TracerOptions{});
  Command cmd({PROGRAM_WRITER, dir.file("out"), "100"});
  const TraceResult r = tracer.run(cmd.fn());
  ASSERT_TRUE(r.available) << r.unavailable_reason;
  EXPECT_EQ(r.ptrace->calibrations, 3u) << "as many as before a run";
  EXPECT_FALSE(r.ptrace->calibration_skipped);
  EXPECT_EQ(r.time_unavailable_reason, "");
  EXPECT_GT(r.ptrace->overhead_ns, 0);
  const SyscallStats& w = r.syscalls.at("write");
  EXPECT_EQ(w.timed_calls, 100u) << "every held call recorded";
  EXPECT_EQ(w.bytes, 100 * kLineBytes);
  EXPECT_TRUE(w.time_ns > 0 || w.time_uncertain()) << w.time_ns;
  ASSERT_TRUE(w.latency.has_value());
  const TraceResult next = tracer.run(cmd.fn());
  EXPECT_EQ(next.ptrace->calibrations, 0u) << "100 timed calls: below a recalibration's worth";
  EXPECT_FALSE(next.ptrace->calibration_skipped);
  EXPECT_GT(next.ptrace->overhead_ns, 0);
}

TEST_F(CalibrateLater, TimeAllCalibratesFirstAsEver) {
  TracerOptions o;
  o.time_all = true;  // it would hold every call, however many
  Tracer tracer(o);
  Command cmd({"/bin/true"});
  const TraceResult r = tracer.run(cmd.fn());
  ASSERT_TRUE(r.available) << r.unavailable_reason;
  EXPECT_EQ(r.ptrace->calibrations, 3u);
  EXPECT_FALSE(r.ptrace->calibration_skipped);
  EXPECT_NE(subtracted_cost_ns(r), std::nullopt);
}

}  // namespace
}  // namespace iobench::tracer_test
