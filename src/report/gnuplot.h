// gnuplot as a child process: the script goes in on stdin, the image (SVG, PNG or PDF) comes
// back on stdout. Debian's gnuplot-nox is the plotting route (tools/setup.sh installs it): a
// well-kept program with SVG and cairo terminals, rather than images drawn by hand.
#pragma once

#include <string>

namespace iobench {

/// The gnuplot on PATH, or "" when there is none.
std::string find_gnuplot();

/// Throws Error (exit 2) when gnuplot is missing, so --plot fails before anything runs.
void require_gnuplot();

/// --plot FILE's checks before anything runs (exit 2): gnuplot is there, FILE can be
/// written (check_output_file), and its extension names a format (plot_terminal).
void check_plot_option(const std::string& path);

/// Runs gnuplot on `script` and returns what it wrote to stdout, byte for byte. Throws Error
/// (exit 3) with gnuplot's last error line when it fails.
std::string run_gnuplot(const std::string& script);

/// Renders `script` in the format `path`'s extension chooses (plot_terminal) and writes the
/// image to `path` by write_output. A gnuplot that fails (or
/// cannot be started) is a failed output: one error line, exit status 4, the run goes on.
void write_plot(const std::string& path, const std::string& script);

}  // namespace iobench
