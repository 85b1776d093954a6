#include "report/escape.h"

#include <fmt/format.h>

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

void append_hex(std::string& out, std::string_view bytes) {
  for (const char c : bytes) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
}

}  // namespace

std::string escape_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    const std::string_view seq = s.substr(i, n == 0 ? 1 : n);
    const auto b0 = static_cast<unsigned char>(s[i]);
    i += seq.size();
    if (n == 1 && b0 >= 0x20 && b0 != 0x7F && b0 != '\\') {
      out += seq;
    } else if (n == 1 && (b0 == '\\' || b0 == '\n' || b0 == '\t' || b0 == '\r')) {
      out += b0 == '\\' ? "\\\\" : b0 == '\n' ? "\\n" : b0 == '\t' ? "\\t" : "\\r";
    } else if (n == 2 && b0 == 0xC2 && static_cast<unsigned char>(seq[1]) < 0xA0) {
      append_hex(out, seq);  // U+0080..U+009F: C1 controls (U+009B is a CSI to some terminals)
    } else if (n > 1) {
      out += seq;
    } else {
      append_hex(out, seq);  // a C0 control, DEL, or a byte that is not valid UTF-8
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

}  // namespace iobench
