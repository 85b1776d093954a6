// The shared formatter: the exact bytes every strategy must produce, the closed-form size
// the runner checks them against, and the chunking LineStream hands to buffered strategies.
#include "strategies/support/line_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace iobench {
namespace {

std::string line(std::uint64_t i) {
  char buf[kMaxLineBytes];
  return std::string(buf, format_line(buf, i));
}

std::string stream(std::uint64_t first, std::uint64_t end) {
  std::string s;
  for (std::uint64_t i = first; i < end; ++i) s += line(i);
  return s;
}

TEST(FormatLine, WritesLineDigitsNewline) {
  EXPECT_EQ(line(0), "Line 0\n");
  EXPECT_EQ(line(9), "Line 9\n");
  EXPECT_EQ(line(10), "Line 10\n");
  EXPECT_EQ(line(99999), "Line 99999\n");
}

TEST(FormatLine, LongestLineIsMaxLineBytes) {
  EXPECT_EQ(line(UINT64_MAX), "Line 18446744073709551615\n");
  EXPECT_EQ(line(UINT64_MAX).size(), kMaxLineBytes);
}

TEST(FormatDigits, WritesOnlyTheDigits) {
  char buf[kMaxDigits];
  EXPECT_EQ(std::string(buf, format_digits(buf, 0)), "0");
  EXPECT_EQ(std::string(buf, format_digits(buf, 1234567890)), "1234567890");
  EXPECT_EQ(format_digits(buf, UINT64_MAX), kMaxDigits);
}

TEST(ExpectedBytes, KnownValues) {
  EXPECT_EQ(expected_bytes(0), 0u);
  EXPECT_EQ(expected_bytes(1), 7u);
  EXPECT_EQ(expected_bytes(10), 70u);
  EXPECT_EQ(expected_bytes(100000), 1088890u);
}

TEST(ExpectedBytes, AgreesWithSummingEveryLineUpToAMillion) {
  std::uint64_t sum = 0;
  char buf[kMaxLineBytes];
  for (std::uint64_t n = 0; n <= 1000001; ++n) {
    ASSERT_EQ(expected_bytes(n), sum) << "N=" << n;
    sum += format_line(buf, n);
  }
}

TEST(ExpectedBytes, GrowsByOneLineAroundEveryPowerOfTen) {
  // Beyond a million, summing is too slow; each step must still add exactly one line.
  char buf[kMaxLineBytes];
  for (std::uint64_t p = 10; p <= 100000000000000000ULL; p *= 10) {
    for (std::uint64_t n = p - 3; n <= p + 3; ++n)
      ASSERT_EQ(expected_bytes(n + 1) - expected_bytes(n), format_line(buf, n)) << "N=" << n;
  }
}

TEST(LineOffset, IsWhereTheLineStarts) {
  const std::string all = stream(0, 1200);
  for (std::uint64_t i : {0, 1, 9, 10, 11, 99, 100, 1000, 1199})
    EXPECT_EQ(all.substr(line_offset(i), line(i).size()), line(i)) << "line " << i;
}

/// Drains a LineStream with a fixed cap, checking each chunk as it comes.
std::string drain(LineStream& s, std::size_t cap) {
  std::vector<char> buf(cap);
  std::string out;
  while (!s.done()) {
    const std::size_t n = s.fill(buf.data(), cap);
    EXPECT_LE(n, cap);
    if (n == 0) break;  // only legal for cap < kMaxLineBytes; callers check done()
    EXPECT_EQ(buf[n - 1], '\n') << "chunks hold whole lines";
    out.append(buf.data(), n);
  }
  return out;
}

TEST(LineStream, ProducesTheExactStreamForAnyCapThatHoldsTheLongestLine) {
  const std::string want = stream(0, 100000);
  for (std::size_t cap : {kMaxLineBytes, kMaxLineBytes + 1, std::size_t{100}, std::size_t{4096},
                          std::size_t{4097}, std::size_t{65536}, std::size_t{1} << 21}) {
    LineStream s(0, 100000);
    const std::string have = drain(s, cap);
    EXPECT_TRUE(s.done()) << "cap " << cap;
    EXPECT_TRUE(have == want) << "cap " << cap << ": " << have.size() << " bytes, want "
                              << want.size();
  }
}

TEST(LineStream, PacksAsManyShortLinesAsFitExactly) {
  char buf[64];
  LineStream s(0, 10);
  EXPECT_EQ(s.fill(buf, 14), 14u);  // "Line 0\nLine 1\n": two 7-byte lines, no slack needed
  EXPECT_EQ(std::string(buf, 14), "Line 0\nLine 1\n");
  EXPECT_EQ(s.next(), 2u);
  EXPECT_EQ(s.fill(buf, kMaxLineBytes), 21u);  // three more, using the tail fit
  EXPECT_EQ(s.next(), 5u);
}

TEST(LineStream, SmallCapStopsAtTheFirstLineThatDoesNotFit) {
  LineStream s(0, 12);
  const std::string have = drain(s, 7);  // "Line 9\n" fits, "Line 10\n" does not
  EXPECT_EQ(have, stream(0, 10));
  EXPECT_FALSE(s.done());
  EXPECT_EQ(s.next(), 10u);
  char buf[8];
  EXPECT_EQ(s.fill(buf, 8), 8u);
  EXPECT_EQ(std::string(buf, 8), "Line 10\n");
}

TEST(LineStream, StartsMidStream) {
  LineStream s(95, 105);
  EXPECT_EQ(drain(s, 30), stream(95, 105));
  const std::string all = stream(0, 105);
  EXPECT_EQ(all.substr(line_offset(95)), stream(95, 105));
}

TEST(LineStream, EmptyRangeIsDoneAtOnce) {
  LineStream s(0, 0);
  EXPECT_TRUE(s.done());
  char buf[kMaxLineBytes];
  EXPECT_EQ(s.fill(buf, sizeof buf), 0u);
}

}  // namespace
}  // namespace iobench

namespace iobench {
namespace {

std::string padded_line(std::uint64_t i, std::size_t length) {
  std::string s = "Line " + std::to_string(i);
  s.resize(length - 1, ' ');
  return s + "\n";
}

TEST(LineFormat, PadsWithSpacesBeforeTheNewlineToExactlyTheLength) {
  const LineFormat f(16);
  char buf[16];
  EXPECT_EQ(std::string(buf, f.format(buf, 42)), "Line 42        \n");
  EXPECT_EQ(f.size(7), 16u);
  EXPECT_EQ(f.total_bytes(100), 1600u);
  EXPECT_EQ(f.offset(3), 48u);
  EXPECT_EQ(LineFormat().total_bytes(100000), expected_bytes(100000));
}

TEST(LineFormat, MinimumIsTheLongestUnpaddedLine) {
  EXPECT_EQ(LineFormat::min_length(100000), 11u);  // "Line 99999\n"
  EXPECT_EQ(LineFormat::min_length(100001), 12u);
  EXPECT_EQ(LineFormat::min_length(1), 7u);
  EXPECT_EQ(LineFormat::min_length(0), 7u);
}

TEST(LineFormat, EveryPartOfALineIsThatPartOfTheWholeLine) {
  for (LineFormat f : {LineFormat(), LineFormat(12), LineFormat(40)}) {
    for (std::uint64_t i : {0, 7, 12345}) {
      const std::string whole = f.length() ? padded_line(i, f.length()) : line(i);
      for (std::size_t from = 0; from <= whole.size(); ++from)
        for (std::size_t n = 0; from + n <= whole.size(); ++n) {
          std::string part(n, '?');
          f.format_part(part.data(), i, from, n);
          ASSERT_EQ(part, whole.substr(from, n))
              << "line " << i << " [" << from << ", +" << n << ")";
        }
    }
  }
}

TEST(LineFormat, StreamOfPaddedLinesInAnyCap) {
  const LineFormat f(20);
  std::string want;
  for (std::uint64_t i = 0; i < 1000; ++i) want += padded_line(i, 20);
  for (std::size_t cap : {std::size_t{20}, std::size_t{39}, std::size_t{4096}}) {
    LineStream s(0, 1000, f);
    std::string got;
    std::vector<char> buf(cap);
    while (!s.done()) {
      const std::size_t n = s.fill(buf.data(), cap);
      ASSERT_GT(n, 0u);
      got.append(buf.data(), n);
    }
    EXPECT_EQ(got, want) << "cap " << cap;
  }
}

TEST(LineBuffer, KeepsThePaddingAndRewritesOnlyTheHead) {
  LineBuffer b{LineFormat(12)};
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(std::string(b.data(), b.format(12345)), "Line 12345 \n");
  EXPECT_EQ(b.head(), 10u);
  EXPECT_EQ(std::string(b.data(), b.format(7)), "Line 7     \n") << "no digits left behind";
  LineBuffer plain{LineFormat()};
  EXPECT_EQ(std::string(plain.data(), plain.format(99)), "Line 99\n");
  EXPECT_EQ(plain.head(), 7u);
}

}  // namespace
}  // namespace iobench
