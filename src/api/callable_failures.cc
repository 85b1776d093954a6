#include "api/callable_failures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace iobench::api {
namespace {

/// Where report_failure writes: set in the traced child only (its own copy of this variable),
/// so the caller's process never writes to an area.
std::atomic<FailureArea*> g_child_area{nullptr};

/// A record's head; the file and the message follow it, unaligned (copied, never cast).
struct RecordHead {
  std::uint32_t size;  // the whole record, head included
  std::int32_t line;
  std::uint32_t file_size;
  std::uint8_t exception;
  std::uint8_t cut;   // the message did not fit whole
  std::uint8_t done;  // set last: a record a dying thread left half-written is skipped
};

constexpr std::size_t kMostFile = 1024;  // a path, not a message

bool append(FailureArea& a, std::string_view file, int line, std::string_view message,
            bool exception) noexcept {
  file = file.substr(0, kMostFile);
  const std::size_t head = sizeof(RecordHead) + file.size();
  std::uint32_t at = a.used.load(std::memory_order_relaxed);
  std::size_t size = 0;
  do {
    const std::size_t room = FailureArea::kBytes - std::min<std::size_t>(at, FailureArea::kBytes);
    if (room < head + 1) {
      a.dropped.fetch_add(1, std::memory_order_relaxed);
      return true;  // still a failure: any() sees it, read() counts it
    }
    size = std::min(head + message.size(), room);
  } while (!a.used.compare_exchange_weak(at, static_cast<std::uint32_t>(at + size),
                                         std::memory_order_relaxed));
  char* p = a.records + at;
  const RecordHead h{.size = static_cast<std::uint32_t>(size),
                     .line = line,
                     .file_size = static_cast<std::uint32_t>(file.size()),
                     .exception = exception,
                     .cut = static_cast<std::uint8_t>(size < head + message.size()),
                     .done = 0};
  std::memcpy(p, &h, sizeof h);
  std::memcpy(p + sizeof h, file.data(), file.size());
  std::memcpy(p + head, message.data(), size - head);
  std::atomic_ref<char>(p[offsetof(RecordHead, done)]).store(1, std::memory_order_release);
  return true;
}

}  // namespace

CallableFailures::CallableFailures() = default;

void CallableFailures::enter_child() noexcept {
  g_child_area.store(area_.get(), std::memory_order_release);
}

void CallableFailures::record_exception(const SourceLine& where, const char* what) noexcept {
  if (area_) append(*area_.get(), where.file, where.line, what, true);
}

bool CallableFailures::any() const noexcept {
  return area_ && (area_->used.load() > 0 || area_->dropped.load() > 0);
}

std::vector<TracedFailure> CallableFailures::read(const SourceLine& where) const {
  std::vector<TracedFailure> out;
  if (!area_) return out;
  const std::size_t used = std::min<std::size_t>(area_->used.load(), FailureArea::kBytes);
  for (std::size_t at = 0; at + sizeof(RecordHead) <= used;) {
    RecordHead h{};
    std::memcpy(&h, area_->records + at, sizeof h);
    if (h.size < sizeof h || at + h.size > used) break;  // claimed, never written
    char* p = area_->records + at;
    at += h.size;
    if (std::atomic_ref<char>(p[offsetof(RecordHead, done)]).load(std::memory_order_acquire) == 0)
      continue;
    const std::size_t head = sizeof h + h.file_size;
    TracedFailure f{.file = std::string(p + sizeof h, h.file_size),
                    .line = h.line,
                    .message = std::string(p + head, h.size - head),
                    .exception = h.exception != 0};
    if (h.cut) f.message += "\n[cut: the failures of one trace() share 64 KiB]";
    out.push_back(std::move(f));
  }
  if (const std::uint32_t dropped = area_->dropped.load(); dropped > 0)
    out.push_back({.file = where.file,
                   .line = where.line,
                   .message = fmt::format("{} more failures inside the traced callable were not "
                                          "carried back (the failures of one trace() share 64 KiB)",
                                          dropped)});
  return out;
}

bool record_failure(std::string_view file, int line, std::string_view message,
                    bool exception) noexcept {
  FailureArea* area = g_child_area.load(std::memory_order_acquire);
  return area != nullptr && append(*area, file, line, message, exception);
}

}  // namespace iobench::api
