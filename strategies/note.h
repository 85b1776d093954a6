// What a strategy tells the table about itself: its role (the reference row every speedup is
// measured against, the floor row that writes nothing) and its footnote, where its cost hides
// from the write-call column. The reporters ask; they never name a strategy. Parent-side
// only: the child never formats a note.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iobench {

/// kReference: the summary compares every other row with it (unbuffered, the program every
/// talk starts from). kFloor: it writes nothing, so it is no contender, only the cost of the
/// work itself (format-only).
enum class StrategyRole { kNormal, kReference, kFloor };

/// One row's measured figures, as the notes need them. Every member has a default initializer
/// ({} included), so GCC 12 does not warn where a designated initializer leaves one out.
struct NoteRow {
  std::optional<std::uint64_t> write_calls{};  // unknown when not traced
  std::uint64_t page_faults = 0;               // minor + major, median of untraced runs
  double time_ns = 0, cpu_ns = 0;              // medians of untraced runs
  std::optional<double> syscall_time_ns{};     // only from a timing-mode trace
};

/// What a footnote is computed from: its own row, the floor row if it ran, the run's
/// workload, and the reporter's number formats (so a note reads like its table).
struct NoteFigures {
  NoteRow row{};
  std::optional<NoteRow> floor{};
  std::string_view floor_name{};   // the floor strategy's name, when it ran
  std::uint64_t bytes = 0;         // the run's file size
  std::uint64_t stdio_buffer = 0;  // --stdio-buffer, 0: glibc's
  std::uint64_t block_size = 0;    // st_blksize of a file in the run's directory, 0: unknown
  std::string (*count)(std::uint64_t) = nullptr;
  std::string (*duration)(double) = nullptr;
  std::string (*size)(double) = nullptr;
};

/// Returns the note, "" for none. Lines after the first start with two spaces.
using FootnoteFn = std::string (*)(const NoteFigures& figures);

}  // namespace iobench
