// GoogleTest for iobench's C++ API: matchers whose failure prints the trace's table, a
// printer for Trace, and assertions inside a traced callable that fail the calling test.
//
//   #include <iobench/gtest.h>
//   TEST(Logger, FlushesOnceForAFewLines) {
//     const iobench::Trace t = iobench::trace([&] {
//       Logger log(path);
//       log.add("one");
//       EXPECT_EQ(log.pending_lines(), 1u);  // in the traced child: fails this test all the same
//     });
//     EXPECT_THAT(t, iobench::MakesWriteCalls(1));
//     EXPECT_THAT(t, iobench::WritesToFile(path, 1));
//   }
//
// Link with iobench::gtest (find_package(iobench REQUIRED COMPONENTS gtest)): iobench::iobench
// and GoogleTest's gmock. <iobench/trace.h> stays free of GoogleTest; this header is the glue.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <iobench/trace.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace iobench {

/// GoogleTest prints a Trace (in EXPECT_THAT, or any matcher's failure) as its write calls,
/// exit status and failures, then `iobench trace`'s table: calls per syscall and per file.
inline void PrintTo(const Trace& t, std::ostream* os) {
  *os << t.write_calls() << " write calls, exit status " << t.exit_status();
  if (!t.traced()) *os << ", not traced (ptrace refused)";
  if (const std::size_t n = t.failures().size(); n > 0)
    *os << ", " << n << (n == 1 ? " failure" : " failures") << " in the callable";
  if (!t.error().empty()) *os << " (" << t.error() << ")";
  *os << "; the trace:";
  std::size_t from = 0;
  for (std::size_t end; (end = t.table().find('\n', from)) != std::string::npos; from = end + 1)
    *os << (end == from ? "\n" : "\n    ") << std::string_view(t.table()).substr(from, end - from);
  *os << "\n";
}

namespace gtest_detail {

/// One count of a Trace, named for the messages ("write calls"), held to a matcher of counts.
class CountIs {
 public:
  using is_gtest_matcher = void;
  CountIs(std::string noun, std::function<std::uint64_t(const Trace&)> count,
          ::testing::Matcher<std::uint64_t> expected)
      : noun_(std::move(noun)), count_(std::move(count)), expected_(std::move(expected)) {}

  bool MatchAndExplain(const Trace& t, ::testing::MatchResultListener* listener) const {
    const std::uint64_t n = count_(t);
    ::testing::StringMatchResultListener inner;
    const bool matched = expected_.MatchAndExplain(n, &inner);
    *listener << "which makes " << n << " " << noun_;
    if (!inner.str().empty()) *listener << ", " << inner.str();
    return matched;
  }
  void DescribeTo(std::ostream* os) const {
    *os << "makes a number of " << noun_ << " that ";
    expected_.DescribeTo(os);
  }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "makes a number of " << noun_ << " that ";
    expected_.DescribeNegationTo(os);
  }

 private:
  std::string noun_;
  std::function<std::uint64_t(const Trace&)> count_;
  ::testing::Matcher<std::uint64_t> expected_;
};

/// A count (1000) or a matcher of one (Le(20u)), as a matcher of std::uint64_t.
template <typename M>
::testing::Matcher<std::uint64_t> count_matcher(M calls) {
  return ::testing::MatcherCast<std::uint64_t>(calls);
}

/// In the traced child: a failed assertion goes to report_failure, for the caller to replay,
/// rather than into a copy of the test's record that nobody reads (or onto its stdout, where
/// it would count as a write).
class ForwardFailures : public ::testing::ScopedFakeTestPartResultReporter {
 public:
  explicit ForwardFailures(InterceptMode mode) : ScopedFakeTestPartResultReporter(mode, &none_) {}
  void ReportTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.failed())
      report_failure(result.file_name() == nullptr ? "" : result.file_name(), result.line_number(),
                     result.message());
  }

 private:
  ::testing::TestPartResultArray none_;
};

/// TestFramework::run: this thread's reporter and every other thread's, for the callable.
inline void run_forwarding(const std::function<void()>& fn) {
  const ForwardFailures others(ForwardFailures::INTERCEPT_ALL_THREADS);
  const ForwardFailures here(ForwardFailures::INTERCEPT_ONLY_CURRENT_THREAD);
  fn();
}

/// TestFramework::replay: the child's failure, as this test's own at the child's file and line.
inline void replay(const TracedFailure& f) {
  ADD_FAILURE_AT(f.file.empty() ? nullptr : f.file.c_str(), f.line)
      << (f.exception ? "the traced callable threw: " : "") << f.message
      << "\n(in the child process iobench::trace ran the callable in)";
}

/// Registers GoogleTest with trace() before main, once per program (an inline variable is
/// initialised once, whichever files include this header).
inline const bool kRegistered = (use_test_framework({&run_forwarding, &replay}), true);

}  // namespace gtest_detail

/// The trace's write_calls() (data writes to files: README "What counts as a write") match
/// `calls`: a count, or a matcher of one (::testing::Le(20u)).
template <typename M>
gtest_detail::CountIs MakesWriteCalls(M calls) {
  return {"write calls", [](const Trace& t) { return t.write_calls(); },
          gtest_detail::count_matcher(calls)};
}

/// At most `most` write calls: a budget that an improvement keeps passing.
inline gtest_detail::CountIs MakesAtMostWriteCalls(std::uint64_t most) {
  return MakesWriteCalls(::testing::Le(most));
}

/// The calls of one syscall ("write", "fsync"; stdout and stderr included) match `calls`.
template <typename M>
gtest_detail::CountIs MakesSyscallCalls(const std::string& syscall, M calls) {
  return {"calls of " + syscall, [syscall](const Trace& t) { return t.syscall_calls(syscall); },
          gtest_detail::count_matcher(calls)};
}

/// The write-family calls on `path` (Trace::file_calls: as /proc names the file) match `calls`.
template <typename M>
gtest_detail::CountIs WritesToFile(const std::string& path, M calls) {
  return {"write-family calls to " + path, [path](const Trace& t) { return t.file_calls(path); },
          gtest_detail::count_matcher(calls)};
}

}  // namespace iobench
