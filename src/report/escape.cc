#include "report/escape.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

#include "report/code_points.h"

namespace iobench {

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  // The second byte's range excludes overlong forms (E0, F0), surrogates (ED) and code
  // points past U+10FFFF (F4): RFC 3629's table.
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;  // a continuation byte, C0/C1 (overlong) or F5..FF: never a lead byte
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

namespace {

/// Whether a well-formed sequence of `n` bytes (0: an invalid byte) is shown as it is:
/// printable ASCII but the backslash, or a code point past the C1 controls (U+0080..U+009F,
/// where U+009B is a CSI to some terminals) that is no format character (a bidi override
/// would show the rest of the row reversed, a zero-width space would hide in a name).
bool shown_as_is(std::string_view seq, std::size_t n) {
  const auto b0 = static_cast<unsigned char>(seq[0]);
  if (n == 1) return b0 >= 0x20 && b0 != 0x7F && b0 != '\\';
  if (n == 2 && b0 == 0xC2 && static_cast<unsigned char>(seq[1]) < 0xA0) return false;
  return n > 1 && !is_format_character(decode_utf8(seq));
}

/// strace's short names for the controls that have one, and the backslash; else null.
const char* named_escape(char c) {
  switch (c) {
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    default:
      return nullptr;
  }
}

}  // namespace

std::string escape_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    const std::string_view seq = s.substr(i, n == 0 ? 1 : n);
    i += seq.size();
    if (shown_as_is(seq, n)) {
      out += seq;
    } else if (const char* name = n == 1 ? named_escape(seq[0]) : nullptr) {
      out += name;
    } else if (const char32_t cp = n > 1 ? decode_utf8(seq) : 0; is_format_character(cp)) {
      // A format character by its code point, as C and Python write one: \u202e, \U000e0001.
      out += cp <= 0xFFFF ? fmt::format("\\u{:04x}", static_cast<std::uint32_t>(cp))
                          : fmt::format("\\U{:08x}", static_cast<std::uint32_t>(cp));
    } else {
      // A control, DEL, a C1 control or a byte that is not valid UTF-8: each byte by value.
      for (const char c : seq) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    }
  }
  return out;
}

std::string replace_invalid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out += s.substr(i, n);
      i += n;
    }
  }
  return out;
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) ||
             (c != '\0' && std::strchr("_-./:=,@%+", c) != nullptr);
    });
    if (!out.empty()) out += ' ';
    if (plain) {
      out += w;
      continue;
    }
    out += '\'';
    for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace iobench
