#include "report/presentation.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <fmt/format.h>

#include "base/error.h"

#include "report/gnuplot.h"
#include "report/plot.h"
#include "report/terminal.h"
#include "run/host_info.h"
#include "strategies/support/line_format.h"
#include "tracer/counting_backend.h"

namespace iobench {

std::uint64_t io_block_size(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || st.st_blksize <= 0) return 0;
  return static_cast<std::uint64_t>(st.st_blksize);
}

void set_presentation(const BenchOptions& o, BenchReport& rep) {
  rep.color = use_color(o.color, STDOUT_FILENO);
  rep.sort = o.sort;
  rep.latency = o.latency;
  rep.columns = table_columns(o.columns, STDOUT_FILENO);
  rep.block_size = io_block_size(o.dir);
}

BenchReport bench_report_header(const BenchOptions& o) {
  BenchReport rep;
  rep.host = host_info();
  rep.version = IOBENCH_VERSION;
  rep.build_type = IOBENCH_BUILD_TYPE;
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
  rep.runs = o.runs;
  rep.warmup = o.warmup;
  rep.interleave = o.interleave;
  rep.params = o.params;
  rep.traced = o.trace;
  rep.trace_mode = o.tracer.mode;
  rep.tracer_backend = to_string(o.tracer.backend);
  set_presentation(o, rep);  // colour, row order, stdio's buffer size for the footnote
  return rep;
}

void write_stdout(const std::string& text) {
  (void)std::fwrite(text.data(), 1, text.size(), stdout);
  if (std::fflush(stdout) != 0 && errno == EPIPE) throw Error("", 128 + SIGPIPE);
}

void write_exports(const std::string& json, const std::string& csv, const std::string& markdown,
                   const BenchReport& rep) {
  if (!json.empty()) write_file_atomically(json, render_json(rep), "--export-json: ");
  if (!csv.empty()) write_file_atomically(csv, render_csv(rep), "--export-csv: ");
  if (!markdown.empty())
    write_file_atomically(markdown, render_markdown(rep), "--export-markdown: ");
}

void write_comparison_plot(const BenchOptions& o, const BenchReport& rep) {
  if (!o.plot.empty())
    write_plot(o.plot, o.latency ? latency_plot_script(rep) : comparison_plot_script(rep));
}

}  // namespace iobench
