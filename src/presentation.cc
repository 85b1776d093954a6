#include "presentation.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "error.h"

#include "gnuplot.h"
#include "report/plot.h"
#include "terminal.h"

namespace iobench {

std::uint64_t io_block_size(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || st.st_blksize <= 0) return 0;
  return static_cast<std::uint64_t>(st.st_blksize);
}

void set_presentation(const BenchOptions& o, BenchReport& rep) {
  rep.color = use_color(o.color, STDOUT_FILENO);
  rep.sort = o.sort;
  rep.block_size = io_block_size(o.dir);
}

void write_stdout(const std::string& text) {
  (void)std::fwrite(text.data(), 1, text.size(), stdout);
  if (std::fflush(stdout) != 0 && errno == EPIPE) throw Error("", 128 + SIGPIPE);
}

void write_comparison_plot(const BenchOptions& o, const BenchReport& rep) {
  if (!o.plot.empty()) write_plot(o.plot, comparison_plot_script(rep));
}

}  // namespace iobench
