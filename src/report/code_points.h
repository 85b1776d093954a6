// What a code point is to a terminal: whether it shows at all (format characters reorder or
// hide text) and how many cells it takes (East Asian wide characters take two). A table of
// our own, not wcwidth(3): that answers only under a UTF-8 locale, which iobench never sets,
// and the same bytes must measure the same on every host.
#pragma once

#include <cstddef>
#include <string_view>

namespace iobench {

/// The code point of the well-formed UTF-8 sequence `seq` (utf8_sequence_length's).
char32_t decode_utf8(std::string_view seq);

/// Unicode's format characters (general category Cf: the bidi controls U+202A..U+202E and
/// U+2066..U+2069 that reorder what follows, the zero-width spaces and joiners U+200B..U+200F,
/// the BOM U+FEFF, the tags) and the line and paragraph separators U+2028, U+2029: shown as
/// they are, they hide or reorder a name or break its line.
bool is_format_character(char32_t cp);

/// The cells `cp` takes on a terminal: 2 for East Asian Wide and Fullwidth characters (UAX
/// #11: CJK, Hangul, fullwidth forms, most emoji), 0 for the common combining marks (a
/// decomposed é is e and U+0301), 1 for anything else.
std::size_t cell_width(char32_t cp);

}  // namespace iobench
