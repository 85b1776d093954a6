// Which calibrations correct a run: those whose stops cost what the run's did.
#include "tracer/calibration.h"

#include <gtest/gtest.h>

#include <vector>

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

}  // namespace
}  // namespace iobench::tracer_test
