#include "strategies/knobs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <type_traits>

#include "strategies/registry.h"
#include "strategies/support/line_format.h"

namespace iobench {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

/// The number cli/ parsed for a kSize or kCount row.
std::uint64_t number(const KnobSetting& v) { return std::get<std::uint64_t>(v); }

/// A kSize value within the row's limits; the messages are a contract (tests pin them).
std::string size_error(const Knob& k, std::uint64_t v) {
  if (v < k.min) return fmt::format("{}: must be at least {} byte", k.flag, k.min);
  if (v > k.max) return fmt::format("{}: at most {}GiB", k.flag, k.max / kGiB);
  return {};
}

/// A kCount value within the row's limits, worded as cli's parse_count words its own.
std::string count_error(const Knob& k, std::uint64_t v) {
  if (v < k.min || v > k.max)
    return fmt::format("{}: {} is out of range ({} to {})", k.flag, v, k.min, k.max);
  return {};
}

/// Stores a size or count into `member` when it is within the row's limits.
template <auto Member>
std::string set_number(const Knob& k, const KnobSetting& v, std::string_view, StrategyParams& p) {
  const std::uint64_t n = number(v);
  std::string error = k.kind == KnobKind::kSize ? size_error(k, n) : count_error(k, n);
  if (error.empty()) p.*Member = static_cast<std::remove_reference_t<decltype(p.*Member)>>(n);
  return error;
}

/// 0 means "not set" (glibc's buffer, unpadded lines): null in JSON, "default" in baselines.
KnobValue or_default(std::uint64_t v) { return v == 0 ? KnobValue{} : KnobValue{v}; }

std::string set_map_window(const Knob&, const KnobSetting& v, std::string_view, StrategyParams& p) {
  const std::uint64_t n = number(v);
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  if (n == 0 || n % page != 0)
    return fmt::format("--map-window: {} is not a multiple of the page size ({})", n, page);
  p.map_window = n;
  return {};
}

/// Against p.lines: every line must fit, and all of them in 64 bits of bytes.
std::string set_line_length(const Knob&, const KnobSetting& v, std::string_view words,
                            StrategyParams& p) {
  if (words.empty()) {  // unpadded lines, the default
    p.line_length = 0;
    return {};
  }
  const std::uint64_t length = number(v);
  if (const std::size_t min = LineFormat::min_length(p.lines); length < min)
    return fmt::format("--line-length {} is too short for {} lines: at least {} bytes", words,
                       p.lines, min);
  if (length > kMaxLineLength)
    return fmt::format("--line-length {}: at most 64KiB ({} bytes)", words, kMaxLineLength);
  std::uint64_t total = 0;
  if (__builtin_mul_overflow(p.lines, length, &total))
    return fmt::format("--line-length {}: {} lines of it would not fit in 64 bits of bytes", words,
                       p.lines);
  p.line_length = static_cast<std::size_t>(length);
  return {};
}

std::string set_sync(const Knob&, const KnobSetting& v, std::string_view, StrategyParams& p) {
  p.sync = std::get<SyncPolicy>(v);
  return {};
}

std::string set_direct(const Knob&, const KnobSetting& v, std::string_view, StrategyParams& p) {
  p.direct = std::get<bool>(v);
  return {};
}

const Knob kKnobs[] = {
    {.name = "buffer_size",
     .flag = "--buffer-size",
     .kind = KnobKind::kSize,
     .sweepable = true,
     .min = 1,
     .max = kGiB,
     .help = "buffered / io_uring chunk size (default 64KiB)",
     .set = set_number<&StrategyParams::buffer_size>,
     .value = [](const StrategyParams& p) { return KnobValue{std::uint64_t{p.buffer_size}}; }},
    {.name = "stdio_buffer",
     .flag = "--stdio-buffer",
     .kind = KnobKind::kSize,
     .sweepable = true,
     .min = 0,
     .max = kGiB,
     .help = "stdio: setvbuf size (default: glibc's)",
     .set = set_number<&StrategyParams::stdio_buffer>,
     .value = [](const StrategyParams& p) { return or_default(p.stdio_buffer); }},
    {.name = "batch",
     .flag = "--batch",
     .kind = KnobKind::kCount,
     .sweepable = true,
     .min = 1,
     .max = IOV_MAX,
     .help = "writev: lines per call (default IOV_MAX = 1024)",
     .set = set_number<&StrategyParams::batch>,
     .value = [](const StrategyParams& p) { return KnobValue{std::uint64_t{p.batch}}; }},
    {.name = "queue_depth",
     .flag = "--queue-depth",
     .kind = KnobKind::kCount,
     .sweepable = true,
     .min = 1,
     .max = 32768,
     .help = "io_uring: writes in flight (default 64)",
     .set = set_number<&StrategyParams::queue_depth>,
     .value = [](const StrategyParams& p) { return KnobValue{std::uint64_t{p.queue_depth}}; }},
    {.name = "map_window",
     .flag = "--map-window",
     .kind = KnobKind::kSize,
     .sweepable = true,
     .min = 1,
     .max = UINT64_MAX,
     .help = "mmap: bytes mapped at once, a page multiple (default 16MiB)",
     .set = set_map_window,
     .value = [](const StrategyParams& p) { return KnobValue{std::uint64_t{p.map_window}}; }},
    {.name = "sync",
     .flag = "--sync",
     .kind = KnobKind::kPolicy,
     .help = "fdatasync policy: none, end (once before close) or every:N (after every N "
             "writes; default none)",
     .set = set_sync,
     .value = [](const StrategyParams& p) { return KnobValue{to_string(p.sync)}; }},
    {.name = "line_length",
     .flag = "--line-length",
     .kind = KnobKind::kSize,
     .sweepable = true,
     .every_strategy = true,
     .empty_is_default = true,
     .min = 0,
     .max = kMaxLineLength,
     .help = "Bytes per line, newline included: 'Line <i>' padded with spaces (default: "
             "unpadded, 'Line <i>\\n'; at most 64KiB)",
     .set = set_line_length,
     .value = [](const StrategyParams& p) { return or_default(p.line_length); }},
    {.name = "direct",
     .flag = "--direct",
     .kind = KnobKind::kSwitch,
     .min = 0,
     .max = 1,
     .help = "O_DIRECT with aligned buffers where a strategy can honour it; the rest report "
             "unsupported",
     .set = set_direct,
     .value = [](const StrategyParams& p) { return KnobValue{p.direct}; }},
};

}  // namespace

std::span<const Knob> all_knobs() noexcept { return kKnobs; }

const Knob* find_knob(std::string_view name) noexcept {
  for (const Knob& k : kKnobs)
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> strategies_using(const Knob& knob) {
  std::vector<std::string> out;
  if (knob.every_strategy) return out;
  for (const Strategy* s : all_strategies())
    for (std::string_view k : s->knobs)
      if (k == knob.name) out.emplace_back(s->name);
  return out;
}

std::string knob_text(const KnobValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return "default";
  if (const auto* n = std::get_if<std::uint64_t>(&v)) return std::to_string(*n);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

}  // namespace iobench
