// Parts every results table shares (strategies, commands, sweeps): the heading, the summary
// in hyperfine's words ("buffered ran 28.40 (27.30–29.55) times faster than unbuffered") and the
// footer that says where every number came from.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/reporter.h"
#include "strategies/strategy.h"

namespace iobench {

/// The rows in the order --sort asks for; rows that did not measure go last in every order.
std::vector<const StrategyResult*> sorted_rows(const RunRecord& rep, SortOrder sort);

/// The relative standard error of a row's median, σ_ln: 1.2533 × (spread / median) / √n,
/// with the robust spread the table's ± column shows; 0 below 2 samples.
double median_log_error(const Stats& s);

/// How many times faster `faster` ran than `slower`: the ratio of the medians the table
/// shows, and its 1σ interval computed on the log of the ratio,
/// ratio·e^(±√(σa² + σb²)) with each side's median_log_error, so it is a factor each way
/// and never reaches below zero. low == high == ratio when either side had a single run.
struct Speedup {
  const StrategyResult* faster = nullptr;
  const StrategyResult* slower = nullptr;
  double ratio = 0;
  double log_sigma = 0;
  double low = 0, high = 0;
};
Speedup speedup(const StrategyResult& faster, const StrategyResult& slower);

struct Comparison {
  const StrategyResult* reference = nullptr;  // the row the "vs" column compares against
  bool against_naive = false;                 // the reference is the kReference strategy
  std::vector<Speedup> lines;                 // fastest first
};

/// Which rows the summary compares. For strategies, each one against unbuffered, the naive
/// program every talk starts from: the question an audience asks is "what does this buy me
/// over one write per line?", and hyperfine's "fastest against each slower one" would crown
/// format-only, which writes nothing (it is left out: it is the floor, not a contender).
/// Without unbuffered, and for `iobench compare` (no natural baseline), hyperfine's form:
/// the fastest against each slower one.
Comparison compare_rows(const RunRecord& rep);

/// The registered strategy a row ran (nullptr for a command of `iobench compare`), and its
/// role: the reporters ask the strategy, they never name one.
const Strategy* strategy_of(const StrategyResult& r);
StrategyRole role_of(const StrategyResult& r);

/// "Summary" and one line per comparison; "" when there is nothing to compare.
std::string render_summary(const Comparison& cmp, bool color);

/// How a row's median compares with the reference's, in a few columns: "33.5× faster",
/// "3.15× slower", "1.00×".
std::string format_relative(double reference_ns, double value_ns);

/// The row has a syscall time its backend measured (not count mode, not a backend that
/// only counts), certain or not.
bool syscall_time_measured(const StrategyResult& r);
/// The time a row's write calls took (traced run, tracer cost subtracted), or nullopt when
/// the trace had no times or the time is uncertain (syscall_time_lost).
std::optional<double> syscall_time(const StrategyResult& r);
/// Calls were made but the 95% interval of their time holds zero (runner.h).
bool syscall_time_lost(const StrategyResult& r);
/// The time is scaled up from a sample of the calls (tracer/sampler.h).
bool syscall_time_sampled(const StrategyResult& r);
/// The syscall time as a cell: "≈1.2 ms" when sampled, "—" when there is none.
std::string format_syscall_time(const StrategyResult& r);
/// StrategyResult::syscall_share in percent (0..100), when it was trusted.
std::optional<double> syscall_share(const StrategyResult& r);
/// What "% of time" (syscall_share) is, in the words of the table's note, the plot's label
/// and README: syscall time over the untraced median time, or, where the backend measured
/// what tracing cost the run (bpf), over the traced run's own time less that cost.
std::string share_definition(const RunRecord& rep);
/// A syscall time was shown but its share was not: the correction was off (share_note).
bool syscall_share_untrusted(const StrategyResult& r);

/// The footnote naming the rows whose syscall time is sampled, each by the name its table
/// gives it (a strategy, a command, a swept value); "" when none is.
std::string sampled_note(const std::vector<std::pair<std::string, const StrategyResult*>>& rows);
/// "syscall time —: tracer calibration: REASON." for each distinct reason a row's times are
/// unknown (TraceResult::time_unavailable_reason), in row order; "" when none is.
std::string unavailable_note(const std::vector<const StrategyResult*>& rows);
/// Why the row's syscall time is unknown, or "".
const std::string& time_unavailable_reason(const StrategyResult& r);
/// No traced row had a calibrated tracer cost, and some said why: there is no cost to name.
bool tracer_uncalibrated(const RunRecord& rep);
/// Notes for tables where a share could not be trusted, or a syscall time was lost.
/// A share is over the untraced median (kShareNote) or, where the backend measured what
/// tracing cost the run, over the traced run's own time (kOwnRunShareNote).
extern const char* const kShareNote;
extern const char* const kOwnRunShareNote;
/// The note for `r`'s untrusted share: the one naming the whole it was a share of.
const char* share_note(const StrategyResult& r);
extern const char* const kLostNote;

/// Two lines naming the version, the work (`what`), the runs, the CPU and the kernel, and a
/// third naming the options that differ from their defaults, when some do.
std::string render_heading(const RunRecord& rep, const std::string& what, const char* per);
/// The heading's second line: "/tmp on ext4 · CPU · 2 CPUs · kernel 6.1" (no dir: from CPU).
std::string render_host(const RunRecord& rep);
/// The options that differ from their defaults as typed, "--sync --line-length 128"; "" if none.
std::string render_given_options(const RunRecord& rep);

/// --cross-check's line: "ptrace estimate / kernel clock: 0.97 ± 0.02 (same 100,000 calls)",
/// `label` after "clock" when several rows have one; "—" and the reason when not measured.
std::string cross_check_line(const CrossCheck& c, const std::string& label = "");

/// Where every number came from: untraced medians, the traced run, what a write call is.
/// `per` names a row ("strategy", "command", "value").
std::string render_provenance(const RunRecord& rep, const char* per);

}  // namespace iobench
