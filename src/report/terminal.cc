#include "report/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace iobench {

bool is_terminal(int fd) noexcept { return ::isatty(fd) == 1; }

namespace {

bool dumb_terminal() noexcept {
  const char* term = std::getenv("TERM");
  return term && std::strcmp(term, "dumb") == 0;
}

}  // namespace

bool moves_cursor(int fd) noexcept { return is_terminal(fd) && !dumb_terminal(); }

bool use_color(ColorMode mode, int fd) noexcept {
  switch (mode) {
    case ColorMode::kAlways:
      return true;
    case ColorMode::kNever:
      return false;
    case ColorMode::kAuto:
      break;
  }
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  if (dumb_terminal()) return false;
  return is_terminal(fd);
}

std::size_t table_columns(std::size_t forced, int fd) noexcept {
  if (forced > 0) return forced;
  if (!is_terminal(fd)) return 0;  // piped: the full table, whatever reads it
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  const char* env = std::getenv("COLUMNS");
  const long cols = env ? std::strtol(env, nullptr, 10) : 0;
  return cols > 0 ? static_cast<std::size_t>(cols) : 80;
}

std::size_t terminal_rows(int fd) noexcept {
  winsize ws{};
  if (!is_terminal(fd) || ::ioctl(fd, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_row;
}

std::size_t terminal_width(int fd, std::size_t fallback) noexcept {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return fallback;
}

}  // namespace iobench
