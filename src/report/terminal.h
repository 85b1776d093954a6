// What the terminal on the other end of an fd can show: colour, and how wide a line is.
#pragma once

#include <cstddef>

#include "model/options.h"

namespace iobench {

/// Whether fd is a terminal (not a pipe, a file or /dev/null).
bool is_terminal(int fd) noexcept;

/// Whether fd is a terminal that takes cursor movement (the progress line, the live table):
/// not one whose TERM is "dumb", which ls, git and less treat as a pipe for that.
bool moves_cursor(int fd) noexcept;

/// Whether to write escape codes to fd: `always` always does, `never` never does, and `auto`
/// only on a terminal, and not when NO_COLOR is set to anything non-empty (no-color.org) or
/// TERM is "dumb". An explicit --color always wins over NO_COLOR, as no-color.org allows.
bool use_color(ColorMode mode, int fd) noexcept;

/// The terminal's width in columns, or `fallback` when fd is not a terminal.
std::size_t terminal_width(int fd, std::size_t fallback = 80) noexcept;

/// The width a table on fd must fit: `forced` (--columns) when given; otherwise the
/// terminal's (TIOCGWINSZ, then $COLUMNS, then 80); 0 (no limit) when fd is not a terminal.
std::size_t table_columns(std::size_t forced, int fd) noexcept;

/// The terminal's height in lines, or 0 when unknown or fd is not a terminal.
std::size_t terminal_rows(int fd) noexcept;

}  // namespace iobench
