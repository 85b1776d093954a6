// The backend list (tracer/backends.cc) walked entry by entry: each one's traits say what
// its TraceResult of a real program holds, and what it does not. A backend that declares
// times but leaves them empty, or fills files it says it cannot split, fails here.
#include <sys/mount.h>

#include <set>

#include "tracer/counting_backend.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

constexpr int kLines = 500;  // the parent's; its forked child writes twice as many

class BackendList : public TracerTest {
 protected:
  void SetUp() override {
    TracerTest::SetUp();
    // The kernel's counters need tracefs, which is not mounted at boot here; left mounted,
    // as the perf suite does, since another test may be using it.
    ::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr);
  }
};

/// Why `b` cannot run here, or empty.
std::string why_not(const Backend& b) { return b.unavailable != nullptr ? b.unavailable() : ""; }

TEST_F(BackendList, NamesAreUniqueAndFoundAndTheFallbackGivesEverything) {
  std::set<std::string> names;
  for (const Backend& b : backends()) {
    EXPECT_TRUE(names.insert(b.traits->name).second) << b.traits->name;
    EXPECT_EQ(find_backend(b.traits->name), &b);
    EXPECT_NE(b.make, nullptr) << b.traits->name;
    EXPECT_STRNE(b.traits->label, "") << b.traits->name;
    EXPECT_STRNE(b.traits->help, "") << b.traits->name;
    EXPECT_STRNE(b.traits->noun, "") << b.traits->name;
  }
  EXPECT_EQ(find_backend("auto"), nullptr);  // a choice among them, not one of them
  const BackendTraits& f = *fallback_backend().traits;
  EXPECT_TRUE(gives(f, {.times = true,
                        .per_file = true,
                        .per_process = true,
                        .every_syscall = true,
                        .first_interrupt = true}));
  EXPECT_EQ(why_not(fallback_backend()), "");
}

TEST_F(BackendList, AutoTakesTheCheapestThatGivesWhatTheRunNeeds) {
  for (const BackendNeeds needs :
       {BackendNeeds{}, BackendNeeds{.times = true}, BackendNeeds{.per_file = true},
        BackendNeeds{.every_syscall = true},
        BackendNeeds{.times = true, .per_file = true, .first_interrupt = true}}) {  // trace's
    const AutoChoice c = choose_backend(needs);
    ASSERT_NE(c.backend, nullptr);
    EXPECT_TRUE(gives(*c.backend->traits, needs)) << c.backend->traits->name;
    EXPECT_EQ(why_not(*c.backend), "") << c.backend->traits->name;
    for (const Backend& b : backends()) {
      if (b.traits->automatic && gives(*b.traits, needs) && why_not(b).empty()) {
        EXPECT_LE(c.backend->traits->call_cost_ns, b.traits->call_cost_ns) << b.traits->name;
      }
    }
  }
}

/// Checks one syscall row against what the run measured.
void expect_row(const std::string& what, const std::string& name, const SyscallStats& st,
                const TraceMeasures& m) {
  SCOPED_TRACE(what + " " + name);
  if (m.times) {
    EXPECT_GT(st.timed_calls, 0u);
  } else {
    EXPECT_EQ(st.timed_calls, 0u);
    EXPECT_EQ(st.time_ns, 0);
    EXPECT_EQ(st.time_ci95_ns, 0);
    EXPECT_FALSE(st.latency);
  }
  if (!m.returns) {
    EXPECT_EQ(st.bytes, 0u);
    EXPECT_EQ(st.errors, 0u);
  }
}

TEST_F(BackendList, EachEntrysTraitsAreWhatItsRunOfARealProgramFills) {
  TempDir dir;
  std::map<std::string, std::uint64_t> first_counts;
  for (const Backend& b : backends()) {
    const BackendTraits& traits = *b.traits;
    if (std::string why = why_not(b); !why.empty()) {
      std::printf("[ SKIPPED  ] backend %s: %s\n", traits.name, why.c_str());
      continue;
    }
    for (const TraceMode mode : {TraceMode::kTiming, TraceMode::kCount}) {
      if (mode == TraceMode::kTiming && !traits.times) continue;  // the CLI refuses it
      const std::string what = std::string(traits.name) + " " + to_string(mode);
      SCOPED_TRACE(what);
      TracerOptions o;
      o.mode = mode;
      o.backend = &traits;
      o.pin = true;
      const std::string path = dir.file(what);
      Command cmd({PROGRAM_FORK_WRITER, path, std::to_string(kLines)});
      const TraceResult r = make_counting_backend(o)->run(cmd.fn(), std::chrono::seconds(60));
      ASSERT_TRUE(r.available) << r.unavailable_reason;
      EXPECT_EQ(r.exit_code, 0);
      EXPECT_EQ(r.backend, traits.name);
      EXPECT_EQ(&traits_of(r), &traits);
      const TraceMeasures m = measures(r);
      ASSERT_TRUE(r.syscalls.count("write")) << what;
      const SyscallStats& w = r.syscalls.at("write");
      EXPECT_EQ(w.calls, 3u * kLines);  // every backend counts every call, exactly
      EXPECT_EQ(w.bytes, m.returns ? 3 * kLines * kLineBytes : 0);
      for (const auto& [name, st] : r.syscalls) expect_row(what, name, st, m);
      EXPECT_EQ(!r.files.empty(), m.per_file);
      for (const FileStats& f : r.files)
        for (const auto& [name, st] : f.syscalls) expect_row(what, f.path, st, m);
      EXPECT_EQ(!r.processes.empty(), m.per_process);
      EXPECT_EQ(r.processes.size(), m.per_process ? 2u : 0u);  // the writer and its child
      // Only a backend that subtracts its cost says what it subtracted.
      EXPECT_EQ(subtracted_cost_ns(r).has_value(),
                m.tracer_cost_subtracted && r.time_unavailable_reason.empty());
      // --pin pins only a backend that pins.
      EXPECT_EQ(r.ptrace && r.ptrace->pinned, traits.pins);
      std::map<std::string, std::uint64_t> counts;
      for (const auto& [name, st] : r.syscalls)
        if (is_write_family(name)) counts[name] = st.calls;
      if (first_counts.empty()) first_counts = counts;
      EXPECT_EQ(counts.at("write"), first_counts.at("write"));
    }
  }
}

}  // namespace
}  // namespace iobench::tracer_test
