// Strings from the outside world (argv, paths, --dir, compare's -n names, what a traced
// program names its files) are carried as the bytes they are; these functions turn them into
// what each format can hold. README "The JSON document" and "Names and odd bytes" state the
// rules for users.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

/// Whether `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// past U+10FFFF).
bool is_utf8(std::string_view s);

/// `s` made safe for a terminal, a text table, CSV or Markdown, as strace escapes strings:
/// valid UTF-8 (é, µ) is kept; a backslash is `\\`; newline, tab and carriage return are
/// `\n`, `\t`, `\r`; every other control (C0, DEL, the C1 code points U+0080..U+009F) and
/// every byte that is not part of valid UTF-8 is `\xHH`, one per byte; a format character
/// (code_points.h: a bidi control, a zero-width space, the BOM) or a line or paragraph
/// separator is `\uHHHH` (`\UHHHHHHHH` past U+FFFF). Nothing the result holds can move a
/// cursor, break a line, reorder or hide text, and it is reversible (each escape names bytes
/// or the code point whose UTF-8 bytes it stands for).
std::string escape_text(std::string_view s);

/// `s` with each byte that is not part of valid UTF-8 replaced by U+FFFD (the replacement
/// character); valid UTF-8 is kept as it is.
std::string replace_invalid_utf8(std::string_view s);

/// `words` as one command line a POSIX shell reads back as the same words: a word of only
/// letters, digits and `_-./:=,@%+` as it is, any other in single quotes (a `'` as `'\''`).
/// Not escaped for a terminal: escape_text the line where it is printed.
std::string shell_words(const std::vector<std::string>& words);

/// The length of the well-formed UTF-8 sequence that starts at s[i] (1 for ASCII), or 0 when
/// the byte there does not start one.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

}  // namespace iobench
