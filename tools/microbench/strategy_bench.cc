// Every registered strategy's whole job (create, write, close) at N = 1e3, 1e5, 1e6, run
// in-process against a real file: bytes/s, lines/s, and the syscalls one run makes, counted
// once per case by iobench's own tracer (count mode, one traced child) rather than assumed.
// Also a few --direct and --sync variants. Files live in a private directory under
// --iobench_dir; each iteration's file is unlinked with the timer paused.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "microbench.h"
#include "run/strategy_workload.h"  // attribute_write_calls
#include "run/temp_dir.h"
#include "strategies/registry.h"
#include "strategies/strategy.h"
#include "tracer/tracer.h"

namespace iobench::microbench {
namespace {

/// One traced run's counts for a case, or nothing when tracing is off or refused.
struct Counts {
  bool measured = false;
  std::uint64_t write_calls = 0;  // as iobench counts them: data writes + ring enters
  std::uint64_t fdatasync = 0;
  std::uint64_t file_calls = 0;  // every write-family call on the file (ftruncate, syncs too)
};

class Fixture {
 public:
  explicit Fixture(const Config& config)
      : config_(config), dir_(config.dir), canonical_(dir_.canonical_path()) {}

  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }

  /// Counted once per case: the first call traces, later ones reuse it.
  const Counts& counts(const std::string& key, const Strategy& s, const WriteJob& job,
                       const std::string& file_name) {
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    Counts c;
    if (config_.trace) {
      if (!tracer_) {
        TracerOptions o;
        o.mode = TraceMode::kCount;  // one stop per call: the cheapest exact count
        o.calibration_dir = dir_.path();
        tracer_ = std::make_unique<Tracer>(o);
      }
      const TraceResult t =
          tracer_->run([&]() noexcept { return s.run(job).status == RunStatus::kOk ? 0 : 1; });
      const std::string target = canonical_ + "/" + file_name;
      if (t.available && t.exit_code == 0) {
        StrategyResult r;
        attribute_write_calls(t, target, r);
        c.measured = true;
        c.write_calls = r.write_calls.value_or(0);
        for (const FileStats& f : t.files) {
          if (f.path != target) continue;
          for (const auto& [name, st] : f.syscalls) {
            c.file_calls += st.calls;
            if (name == "fdatasync") c.fdatasync += st.calls;
          }
        }
      }
      ::unlink(job.path);
    }
    return cache_.emplace(key, c).first->second;
  }

 private:
  Config config_;
  TempDir dir_;
  std::string canonical_;
  std::unique_ptr<Tracer> tracer_;
  std::map<std::string, Counts> cache_;
};

Fixture* g_fixture = nullptr;

struct Variant {
  const char* strategy;
  const char* label;  // appended to the benchmark's name
  void (*apply)(StrategyParams&);
};

// The expert knobs on the strategies that honour them (README "Durability and direct I/O").
const Variant kVariants[] = {
    {"buffered", "direct", [](StrategyParams& p) { p.direct = true; }},
    {"io_uring", "direct", [](StrategyParams& p) { p.direct = true; }},
    {"single-write", "direct", [](StrategyParams& p) { p.direct = true; }},
    {"buffered", "sync_end",
     [](StrategyParams& p) {
       p.sync = {SyncMode::kEnd, 0};
     }},
    {"io_uring", "sync_end",
     [](StrategyParams& p) {
       p.sync = {SyncMode::kEnd, 0};
     }},
    {"buffered", "sync_every16",
     [](StrategyParams& p) {
       p.sync = {SyncMode::kEvery, 16};
     }},
};

void run_case(benchmark::State& state, const Strategy* s, StrategyParams params,
              const std::string& key) {
  params.lines = static_cast<std::uint64_t>(state.range(0));
  const std::string name = "out";
  const std::string path = g_fixture->path(name);
  const WriteJob job{path.c_str(), params, expected_bytes(params.lines)};
  const Counts& counts = g_fixture->counts(key + "/" + std::to_string(params.lines), *s, job, name);
  bool first = true;
  for ([[maybe_unused]] auto _ : state) {
    const StrategyOutcome out = s->run(job);
    state.PauseTiming();
    if (out.status != RunStatus::kOk) {
      ::unlink(path.c_str());
      state.SkipWithError(out.message[0] ? out.message : "strategy failed");
      state.ResumeTiming();
      break;
    }
    if (first && s->writes_file) {  // a wrong file is never a fast one (tests check the bytes)
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0 ||
          static_cast<std::uint64_t>(st.st_size) != job.expected_bytes) {
        ::unlink(path.c_str());
        state.SkipWithError("the file has the wrong size");
        state.ResumeTiming();
        break;
      }
      first = false;
    }
    ::unlink(path.c_str());
    state.ResumeTiming();
  }
  set_line_rates(state, params.lines);
  if (counts.measured) {
    // write_calls as iobench's column counts them (data writes, plus io_uring_enter on the
    // ring); file_calls: every write-family call on the file (ftruncate, fdatasync too).
    state.counters["write_calls"] = static_cast<double>(counts.write_calls);
    state.counters["file_calls"] = static_cast<double>(counts.file_calls);
    if (params.sync.mode != SyncMode::kNone)
      state.counters["fdatasync"] = static_cast<double>(counts.fdatasync);
  }
}

void add(const std::string& name, const Strategy* s, StrategyParams params,
         std::initializer_list<std::int64_t> sizes) {
  auto* bm = benchmark::RegisterBenchmark(
      name.c_str(), [s, params, name](benchmark::State& st) { run_case(st, s, params, name); });
  for (std::int64_t n : sizes) bm->Arg(n);
  bm->Unit(benchmark::kMillisecond)->UseRealTime();  // io_uring's workers run on other threads
}

}  // namespace

void register_strategy_benchmarks(const Config& config) {
  static Fixture fixture(config);  // lives until exit: the benchmarks run after registration
  g_fixture = &fixture;
  for (const Strategy* s : all_strategies())
    add("strategy/" + std::string(s->name), s, StrategyParams{}, {1000, 100000, 1000000});
  for (const Variant& v : kVariants) {
    StrategyParams p;
    v.apply(p);
    add("strategy/" + std::string(v.strategy) + ":" + v.label, find_strategy(v.strategy), p,
        {100000, 1000000});
  }
}

}  // namespace iobench::microbench
