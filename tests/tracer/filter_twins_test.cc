// The filter twins (filter_twins.h): one of them really runs under the filter, they take
// their turns in order, and a failing twin is no measurement. No times are asserted: CI
// machines are noisy (tracer_accuracy_test holds the calibration to the untraced truth).
#include "tracer/filter_twins.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "base/unique_fd.h"
#include "tracer/syscalls.h"

namespace iobench::tracer_test {
namespace {

using tracing::filter_twin_pairs;
using tracing::SeccompFilter;
using tracing::SyscallTable;

struct Log {
  std::atomic<int> next{0};
  int order[64];  // 0: the unfiltered twin's batch, 1: the filtered one's
};

struct Arg {
  Log* log;
  int fd;
};

// Filtered: a write on another fd than `fd` is a call the filter stops on, which with no
// tracer fails with ENOSYS; unfiltered it writes.
std::int64_t probe_filter(void* p, bool filtered) noexcept {
  auto* a = static_cast<Arg*>(p);
  const int at = a->log->next.fetch_add(1);
  if (at < 64) a->log->order[at] = filtered ? 1 : 0;
  if (!filtered) return 1;
  errno = 0;
  const long n = ::syscall(SYS_write, a->fd + 1, "x", 1);
  return n < 0 && errno == ENOSYS ? 2 : -1;  // -1: the filter was not there
}

std::int64_t always_fails(void*, bool filtered) noexcept { return filtered ? -1 : 1; }

class FilterTwins : public ::testing::Test {
 protected:
  FilterTwins()
      : out_(::open("/dev/null", O_WRONLY | O_CLOEXEC)),
        filter_(table_.stop_set(), false, out_.get()) {}
  SyscallTable table_;
  UniqueFd out_;
  SeccompFilter filter_;
};

TEST_F(FilterTwins, TheSecondTwinRunsUnderTheFilterAndTheyAlternate) {
  SharedMapping<Log> log;
  ASSERT_TRUE(log);
  Arg arg{log.get(), out_.get()};
  const auto pairs = filter_twin_pairs(filter_, probe_filter, &arg, 10, 2);
  ASSERT_EQ(pairs.size(), 10u);
  for (const std::int64_t d : pairs) EXPECT_EQ(d, 1);  // 2 (filtered) − 1 (unfiltered)
  ASSERT_EQ(log->next.load(), 24);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(log->order[i], i % 2) << "batch " << i;
}

TEST_F(FilterTwins, ATwinThatFailsIsNoMeasurement) {
  EXPECT_TRUE(filter_twin_pairs(filter_, always_fails, nullptr, 10, 2).empty());
}

// Under a filter that stops every call (--trace-all's) the filtered twin cannot even exit:
// its _exit fails with ENOSYS. The parent kills the twins once their turns are done, so it
// returns (a hang here is a ctest timeout).
TEST_F(FilterTwins, ATwinThatCannotExitDoesNotHangTheParent) {
  const SeccompFilter all(table_.stop_set(), true, out_.get());
  SharedMapping<Log> log;
  ASSERT_TRUE(log);
  Arg arg{log.get(), out_.get()};
  EXPECT_EQ(filter_twin_pairs(all, probe_filter, &arg, 3, 0).size(), 3u);
}

}  // namespace
}  // namespace iobench::tracer_test
