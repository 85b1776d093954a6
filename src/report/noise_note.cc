#include "report/noise_note.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "report/dirs.h"
#include "report/escape.h"
#include "report/table_parts.h"

namespace iobench {
namespace {

using Named = std::pair<std::string, const StrategyResult*>;

std::string spread_of(const StrategyResult& r) {
  return fmt::format("±{:.0f}%", 100 * r.time_ns.spread / r.time_ns.median);
}

std::string pair_text(const Named& a, const Named& b) {
  return fmt::format("{} ({}) against {} ({})", a.first, spread_of(*a.second), b.first,
                     spread_of(*b.second));
}

std::string note(const std::vector<std::string>& pairs) {
  if (pairs.empty()) return "";
  std::string list;
  for (const auto& p : pairs) list += (list.empty() ? "" : "; ") + p;
  return fmt::format(
      "timings too noisy to rank {}: the machine may be busy; more --runs or a quieter "
      "machine would tell\n",
      list);
}

bool measured(const StrategyResult& r) {
  return r.status == ResultStatus::kOk && r.time_ns.median > 0;
}

/// The pairs of one block at stake: neighbours in rank and the summary's comparisons.
std::vector<std::string> block_pairs(const RunRecord& block, const std::string& where) {
  const Comparison cmp = compare_rows(block);
  std::vector<const StrategyResult*> ranked;
  for (const Speedup& s : cmp.lines)
    ranked.push_back(s.faster == cmp.reference ? s.slower : s.faster);
  if (cmp.reference) ranked.push_back(cmp.reference);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](auto* a, auto* b) { return a->time_ns.median < b->time_ns.median; });
  std::vector<std::pair<const StrategyResult*, const StrategyResult*>> candidates;
  for (std::size_t i = 1; i < ranked.size(); ++i) candidates.emplace_back(ranked[i - 1], ranked[i]);
  for (const Speedup& s : cmp.lines) candidates.emplace_back(s.faster, s.slower);
  std::vector<std::string> out;
  std::vector<std::pair<const StrategyResult*, const StrategyResult*>> seen;
  for (auto [a, b] : candidates) {
    if (std::find(seen.begin(), seen.end(), std::pair{a, b}) != seen.end()) continue;
    seen.emplace_back(a, b);
    if (!rank_at_stake(*a, *b)) continue;
    out.push_back(pair_text({escape_text(a->strategy), a}, {escape_text(b->strategy), b}) + where);
  }
  return out;
}

}  // namespace

bool rank_at_stake(const StrategyResult& faster, const StrategyResult& slower) {
  if (!measured(faster) || !measured(slower) || !(faster.noisy || slower.noisy)) return false;
  const double sigma = speedup(faster, slower).log_sigma;
  const double apart = std::fabs(std::log(slower.time_ns.median / faster.time_ns.median));
  return sigma > 0 && apart >= kTie && apart < 2 * sigma;
}

std::string noise_note(const RunRecord& rep) {
  const std::vector<std::string> dirs = result_dirs(rep.results);
  std::vector<std::string> pairs;
  for (const std::string& dir : dirs) {
    const RunRecord block = dir_block(rep, dir);
    const std::string where = dirs.size() > 1 ? fmt::format(" in {}", escape_text(dir)) : "";
    for (auto& p : block_pairs(block, where)) pairs.push_back(std::move(p));
  }
  return note(pairs);
}

std::string sweep_noise_note(const SweepReport& rep, bool name_dir) {
  std::vector<std::string> pairs;
  const std::string name = escape_text(rep.strategy) + " " + rep.flag + " ";
  for (std::size_t i = 1; i < rep.points.size(); ++i) {
    const StrategyResult& a = rep.points[i - 1].result;
    const StrategyResult& b = rep.points[i].result;
    const bool a_first = a.time_ns.median <= b.time_ns.median;
    const StrategyResult& fast = a_first ? a : b;
    const StrategyResult& slow = a_first ? b : a;
    if (!rank_at_stake(fast, slow)) continue;
    pairs.push_back(pair_text({name + format_sweep_value(rep, rep.points[i - 1].value), &a},
                              {format_sweep_value(rep, rep.points[i].value), &b}));
  }
  if (name_dir && !pairs.empty()) pairs.back() += fmt::format(" in {}", escape_text(rep.base.dir));
  return note(pairs);
}

void print_noise_note(const std::string& note) {
  if (!note.empty()) fmt::print(stderr, "iobench: warning: {}", note);
}

}  // namespace iobench
