// The failures of a traced callable (iobench::trace), carried from its forked child to the
// caller through memory mapped before the fork: a pipe would add a write(2) to the counts,
// and allocation after fork is not for a child that may be mid-assertion in several threads.
#pragma once

#include <iobench/trace.h>

#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/unique_fd.h"

namespace iobench::api {

/// The shared memory: records (a header, the file, the message) appended by any thread of the
/// child, each claiming its bytes with one compare-and-swap on `used`.
struct FailureArea {
  static constexpr std::uint32_t kBytes = 64 * 1024;  // a few hundred assertion messages
  std::atomic<std::uint32_t> used;                    // bytes of `records` claimed
  std::atomic<std::uint32_t> dropped;                 // failures with no room left
  char records[kBytes];
};

/// One trace()'s failures: the area is mapped when this is made (before the fork); the
/// child writes, and the caller reads once the child is gone.
class CallableFailures {
 public:
  CallableFailures();
  /// In the child: from now on report_failure writes here.
  void enter_child() noexcept;
  /// In the child: the callable threw; `what` is reported at `where`.
  void record_exception(const SourceLine& where, const char* what) noexcept;
  /// In the child: whether anything failed (the child's exit status is 1 then).
  bool any() const noexcept;
  /// In the caller: every failure recorded, in order, and a note at `where` of any left out.
  std::vector<TracedFailure> read(const SourceLine& where) const;

  /// False when the area could not be mapped: failures are then not carried back.
  explicit operator bool() const noexcept { return static_cast<bool>(area_); }

 private:
  SharedMapping<FailureArea> area_;
};

/// report_failure: appends to the area of the traced child this is, if it is one.
bool record_failure(std::string_view file, int line, std::string_view message,
                    bool exception) noexcept;

}  // namespace iobench::api
