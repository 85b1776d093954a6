// How many timed runs each strategy gets and in what order they happen: `--runs auto`, and
// the random interleaving of strategies (Google Benchmark's --benchmark_enable_random_interleaving)
// that makes a busy machine's drift hit every row alike instead of whichever ran last.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace iobench {

/// --runs auto: at least this many timed runs...
constexpr int kAutoMinRuns = 5;
/// ...and at least this much timed work per strategy, so a row of 1 ms runs gets enough
/// samples for a median that a single scheduler hiccup cannot move, while a slow row stays at 5.
constexpr std::chrono::nanoseconds kAutoMinTimedWork = std::chrono::milliseconds(200);
/// ...but never more runs than this (a 10 µs row would otherwise ask for 20,000).
constexpr int kAutoMaxRuns = 100;
/// Timed runs still to do for one strategy: `requested` (RunSettings::runs, > 0) exactly,
/// or for --runs auto (nullopt) enough to reach kAutoMinRuns and kAutoMinTimedWork (capped at
/// kAutoMaxRuns). `done` runs took `done_ns` together; `estimate_ns` is one run's time from a
/// warm-up (0: unknown), used while nothing is done yet.
int runs_still_needed(std::optional<int> requested, int done, std::int64_t done_ns,
                      std::int64_t estimate_ns);

/// The order of the next runs: row index i appears needed[i] times, shuffled as a whole
/// (not round by round), so no row always runs right after another.
std::vector<std::size_t> run_order(const std::vector<int>& needed, std::mt19937_64& rng);

}  // namespace iobench
