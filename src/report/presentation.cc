#include "report/presentation.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/error.h"
#include "report/gnuplot.h"
#include "report/plot.h"

namespace iobench {

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
                   const RunRecord& rep, const Presentation& pres, ExportPass pass) {
  // After a result only files: a stream (/dev/stdout, a FIFO, a device) would get another
  // whole document per strategy, and a FIFO a new open its reader may never answer.
  auto write = [&](const std::string& path, auto render, const char* what) {
    if (path.empty() || (pass == ExportPass::kAfterResult && is_stream_output(path))) return;
    write_output(path, render(rep, pres), what);
  };
  // Each on its own: one that fails is reported and the others are still written.
  write(json, [](const RunRecord& r, const Presentation&) { return render_json(r); },
        "--export-json: ");
  write(csv, render_csv, "--export-csv: ");
  write(markdown, render_markdown, "--export-markdown: ");
}

void write_comparison_plot(const std::string& path, const RunRecord& rep,
                           const Presentation& pres) {
  if (!path.empty())
    write_plot(path,
               pres.latency ? latency_plot_script(rep, pres) : comparison_plot_script(rep, pres));
}

}  // namespace iobench
