#include "report/presentation.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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
  rep.runs = o.run.runs;
  rep.warmup = o.run.warmup;
  rep.interleave = o.run.interleave;
  rep.params = o.params;
  rep.traced = o.run.trace;
  rep.trace_mode = o.run.tracer.mode;
  rep.tracer_backend = o.run.tracer.backend->name;
  set_presentation(o, rep);  // colour, row order, stdio's buffer size for the footnote
  return rep;
}

namespace {

/// Writes text to a stdio stream and flushes it: 0, or the errno of what failed (a full disk
/// shows only at the flush, as ENOSPC).
int put(const std::string& text, std::FILE* stream) {
  errno = 0;
  const std::size_t n = std::fwrite(text.data(), 1, text.size(), stream);
  int err = n == text.size() ? 0 : errno;
  if (std::fflush(stream) != 0 && err == 0) err = errno;
  if (err == 0 && std::ferror(stream)) err = EIO;  // failed earlier, unreported
  return err;
}

}  // namespace

void write_stdout(const std::string& text) {
  static bool failed = false;  // one error line for a stdout that failed, not one a write
  if (failed) return;
  const int err = put(text, stdout);
  if (err == 0) return;
  if (err == EPIPE) throw Error("", 128 + SIGPIPE);
  failed = true;
  note_output_failure(fmt::format("stdout: {}", std::strerror(err)));
}

void write_stderr(const std::string& text) {
  // No line can say that stderr failed; the exit status does.
  if (put(text, stderr) != 0) note_output_failure("");
}

void write_exports(const std::string& json, const std::string& csv, const std::string& markdown,
                   const BenchReport& rep, ExportPass pass) {
  // After a result only files: a stream (/dev/stdout, a FIFO, a device) would get another
  // whole document per strategy, and a FIFO a new open its reader may never answer.
  auto write = [&](const std::string& path, auto render, const char* what) {
    if (path.empty() || (pass == ExportPass::kAfterResult && is_stream_output(path))) return;
    write_output(path, render(rep), what);
  };
  // Each on its own: one that fails is reported and the others are still written.
  write(json, render_json, "--export-json: ");
  write(csv, render_csv, "--export-csv: ");
  write(markdown, render_markdown, "--export-markdown: ");
}

void write_comparison_plot(const BenchOptions& o, const BenchReport& rep) {
  if (!o.plot.empty())
    write_plot(o.plot, o.latency ? latency_plot_script(rep) : comparison_plot_script(rep));
}

}  // namespace iobench
