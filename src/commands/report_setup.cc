#include "commands/report_setup.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "report/terminal.h"
#include "run/host_info.h"
#include "run/run_plan.h"
#include "strategies/support/line_format.h"
#include "tracer/counting_backend.h"

namespace iobench {
namespace {

/// What every record starts with: where it was measured and what measured it.
RunRecord record_of_host() {
  RunRecord rep;
  rep.auto_min_runs = kAutoMinRuns;  // "5 or more runs", before a --runs auto row has any
  rep.host = host_info();
  rep.version = IOBENCH_VERSION;
  rep.build_type = IOBENCH_BUILD_TYPE;
  return rep;
}

}  // namespace

RunRecord bench_record(const BenchOptions& o) {
  RunRecord rep = record_of_host();
  rep.lines = o.params.lines;
  rep.bytes = expected_bytes(o.params);
  rep.dir = o.dir;
  rep.filesystem = filesystem_type(o.dir);
  if (o.dirs.size() > 1) {  // config names them all; each row and block names its own
    std::vector<std::string> types;
    for (const std::string& d : o.dirs) types.push_back(filesystem_type(d));
    rep.dir = fmt::format("{}", fmt::join(o.dirs, ","));
    rep.filesystem = fmt::format("{}", fmt::join(types, ","));
  }
  rep.runs = o.run.runs;
  rep.warmup = o.run.warmup;
  rep.interleave = o.run.interleave;
  rep.params = o.params;
  rep.options = o.given;
  rep.traced = o.run.trace;
  rep.trace_mode = o.run.tracer.mode;
  rep.tracer_backend = o.run.tracer.backend->name;
  rep.block_size = io_block_size(o.dir);  // stdio's buffer size, for the footnote
  return rep;
}

RunRecord compare_record(const CompareOptions& o) {
  RunRecord rep = record_of_host();
  rep.runs = o.run.runs;
  rep.warmup = o.run.warmup;
  rep.traced = o.run.trace;
  rep.trace_mode = o.run.tracer.mode;
  rep.tracer_backend = o.run.tracer.backend->name;
  for (const auto& c : o.commands) rep.commands.push_back({c.name, c.command});
  return rep;
}

Presentation stdout_presentation(ColorMode color, SortOrder sort, std::size_t columns, bool latency,
                                 NotesMode notes) {
  return {.color = use_color(color, STDOUT_FILENO),
          .latency = latency,
          .sort = sort,
          .columns = table_columns(columns, STDOUT_FILENO),
          .notes = notes == NotesMode::kBrief ? Notes::kNone : Notes::kFull};
}

Presentation bench_presentation(const BenchOptions& o) {
  return stdout_presentation(o.color, o.sort, o.columns, o.latency, o.notes);
}

std::string screen_sized(NotesMode mode, Presentation pres,
                         const std::function<std::string(const Presentation&)>& render) {
  std::string text = render(pres);
  const std::size_t rows = terminal_rows(STDOUT_FILENO);
  if (mode != NotesMode::kAuto || rows == 0 ||
      static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) < rows)
    return text;
  pres.notes = Notes::kOneLine;
  return render(pres);
}

BenchOptions options_for_dir(const BenchOptions& o, const std::string& dir) {
  BenchOptions one = o;
  one.dir = dir;
  one.dirs = {dir};
  return one;
}

}  // namespace iobench
