#include "cli/knobs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>

#include "base/error.h"
#include "cli/cli_values.h"
#include "model/options.h"
#include "strategies/registry.h"
#include "strategies/support/line_format.h"

namespace iobench {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

/// A kSize value within the row's limits; the messages are a contract (tests pin them).
std::uint64_t size_in(const Knob& k, const std::string& text) {
  const std::uint64_t v = parse_size(std::string(k.flag), text);
  if (v < k.min) throw Error(fmt::format("{}: must be at least {} byte", k.flag, k.min));
  if (v > k.max) throw Error(fmt::format("{}: at most {}GiB", k.flag, k.max / kGiB));
  return v;
}

std::uint64_t count_in(const Knob& k, const std::string& text) {
  return parse_count(std::string(k.flag), text, k.min, k.max);
}

/// 0 means "not set" (glibc's buffer, unpadded lines): null in JSON, "default" in baselines.
KnobValue or_default(std::uint64_t v) { return v == 0 ? KnobValue{} : KnobValue{v}; }

void parse_map_window(const Knob&, const std::string& text, StrategyParams& p) {
  p.map_window = parse_size("--map-window", text);
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  if (p.map_window == 0 || p.map_window % page != 0)
    throw Error(fmt::format("--map-window: {} is not a multiple of the page size ({})",
                            p.map_window, page));
}

// clang-format off
// name, flag, kind, sweepable, every_strategy, min, max, help, parse, value
const Knob kKnobs[] = {
    {"buffer_size", "--buffer-size", KnobKind::kSize, true, false, 1, kGiB,
     "buffered / io_uring chunk size (default 64KiB)",
     [](const Knob& k, const std::string& t, StrategyParams& p) { p.buffer_size = size_in(k, t); },
     [](const StrategyParams& p) { return KnobValue{std::uint64_t{p.buffer_size}}; }},
    {"stdio_buffer", "--stdio-buffer", KnobKind::kSize, true, false, 0, kGiB,
     "stdio: setvbuf size (default: glibc's)",
     [](const Knob& k, const std::string& t, StrategyParams& p) { p.stdio_buffer = size_in(k, t); },
     [](const StrategyParams& p) { return or_default(p.stdio_buffer); }},
    {"batch", "--batch", KnobKind::kCount, true, false, 1, IOV_MAX,
     "writev: lines per call (default IOV_MAX = 1024)",
     [](const Knob& k, const std::string& t, StrategyParams& p) { p.batch = count_in(k, t); },
     [](const StrategyParams& p) { return KnobValue{std::uint64_t{p.batch}}; }},
    {"queue_depth", "--queue-depth", KnobKind::kCount, true, false, 1, 32768,
     "io_uring: writes in flight (default 64)",
     [](const Knob& k, const std::string& t, StrategyParams& p) {
       p.queue_depth = static_cast<unsigned>(count_in(k, t));
     },
     [](const StrategyParams& p) { return KnobValue{std::uint64_t{p.queue_depth}}; }},
    {"map_window", "--map-window", KnobKind::kSize, true, false, 1, UINT64_MAX,
     "mmap: bytes mapped at once, a page multiple (default 16MiB)", parse_map_window,
     [](const StrategyParams& p) { return KnobValue{std::uint64_t{p.map_window}}; }},
    {"sync", "--sync", KnobKind::kPolicy, false, false, 0, 0,
     "fdatasync policy: none, end (once before close) or every:N (after every N writes; default none)",
     [](const Knob&, const std::string& t, StrategyParams& p) { p.sync = parse_sync(t); },
     [](const StrategyParams& p) { return KnobValue{to_string(p.sync)}; }},
    {"line_length", "--line-length", KnobKind::kSize, true, true, 0, kMaxLineLength,
     "Bytes per line, newline included: 'Line <i>' padded with spaces (default: unpadded, "
     "'Line <i>\\n'; at most 64KiB)",
     [](const Knob&, const std::string& t, StrategyParams& p) {
       p.line_length = parse_line_length(t, p.lines);
     },
     [](const StrategyParams& p) { return or_default(p.line_length); }},
    {"direct", "--direct", KnobKind::kSwitch, false, false, 0, 1,
     "O_DIRECT with aligned buffers where a strategy can honour it; the rest report unsupported",
     [](const Knob&, const std::string&, StrategyParams& p) { p.direct = true; },
     [](const StrategyParams& p) { return KnobValue{p.direct}; }},
};
// clang-format on

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

void KnobFlags::add(CLI::App& app) {
  slots_.resize(all_knobs().size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Knob& k = all_knobs()[i];
    const std::string flag(k.flag), help(k.help);
    slots_[i].option = k.kind == KnobKind::kSwitch ? app.add_flag(flag, slots_[i].on, help)
                                                   : app.add_option(flag, slots_[i].text, help);
  }
}

void KnobFlags::apply(StrategyParams& params) const {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Knob& k = all_knobs()[i];
    // Not given: StrategyParams' default stands (defaults live there once).
    if (slots_[i].option->count() == 0 || (k.kind == KnobKind::kSwitch && !slots_[i].on)) continue;
    k.parse(k, slots_[i].text, params);
  }
}

}  // namespace iobench
