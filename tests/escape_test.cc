// The one escape for names from outside (report/escape.h) and the one JSON serialiser
// (dump_json): every byte string comes out as text a terminal, a table and a parser accept.
#include "report/escape.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/dirs.h"
#include "report/grid.h"
#include "report/json_result.h"
#include "report/junit.h"

namespace iobench {
namespace {

TEST(Escape, ValidUtf8IsKeptAndEverythingElseIsNamedByItsBytes) {
  EXPECT_EQ(escape_text("plain/path.txt"), "plain/path.txt");
  EXPECT_EQ(escape_text("caf\xc3\xa9 \xc2\xb5s \xe2\x80\x94 \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xc2\xb5s \xe2\x80\x94 \xf0\x9f\x98\x80");
  EXPECT_EQ(escape_text("a\nb\tc\rd\\e"), "a\\nb\\tc\\rd\\\\e");
  EXPECT_EQ(escape_text("\x1b[2J\x7f"), "\\x1b[2J\\x7f");
  EXPECT_EQ(escape_text(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(escape_text("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(escape_text("\xc2\x9b"
                        "1m"),
            "\\xc2\\x9b1m");  // U+009B: a C1 CSI
  // Overlong, surrogate, past U+10FFFF, truncated: each byte on its own.
  EXPECT_EQ(escape_text("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(escape_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(escape_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
  EXPECT_EQ(escape_text("ab\xe2\x80"), "ab\\xe2\\x80");
}

// A bidi override shows the rest of a row reversed, a zero-width space or a BOM hides in a
// name, a line separator breaks it: format characters are named by their code point.
TEST(Escape, FormatCharactersAreNamedByTheirCodePoint) {
  EXPECT_EQ(escape_text("ab\u202ecd"), "ab\\u202ecd");
  EXPECT_EQ(escape_text("\u2066x\u2069 \u200b\u200c\u200d\u200e\u200f \ufeff \u00ad"),
            "\\u2066x\\u2069 \\u200b\\u200c\\u200d\\u200e\\u200f \\ufeff \\u00ad");
  EXPECT_EQ(escape_text("a\u2028b\u2029c"), "a\\u2028b\\u2029c");
  EXPECT_EQ(escape_text("tag\U000e0041"), "tag\\U000e0041");
  // Visible text around them is kept: CJK, a combining accent, an emoji.
  EXPECT_EQ(escape_text("\u6570\u636e e\u0301 \U0001f600"), "\u6570\u636e e\u0301 \U0001f600");
}

TEST(Escape, WideCharactersTakeTwoCellsAndCombiningMarksNone) {
  EXPECT_EQ(display_width("\u6570\u636e.txt"), 8u);
  EXPECT_EQ(display_width("\uff21\uff22"), 4u);  // fullwidth A, B
  EXPECT_EQ(display_width("\ud55c\uae00"), 4u);  // Hangul
  EXPECT_EQ(display_width("e\u0301"), 1u);       // e and a combining acute: é
  EXPECT_EQ(display_width("\u00b5s \u00d7 \u2014 \u2589 \u2500"), 10u);
  EXPECT_EQ(display_width("\x1b[1m\u6570\x1b[0m"), 2u);
  const std::vector<GridColumn> cols = {{"file", false}, {"calls", true}};
  EXPECT_EQ(render_grid(cols, {{GridCell("\u6570\u636e\u5e93.txt"), GridCell("1")},
                               {GridCell("cafe\u0301"), GridCell("22")},
                               {GridCell("ab\u202ecd"), GridCell("333")}}),
            "file        calls\n"
            "─────────────────\n"
            "\u6570\u636e\u5e93.txt      1\n"
            "cafe\u0301           22\n"
            "ab\\u202ecd    333\n");
}

TEST(Escape, Utf8IsCheckedAndInvalidBytesReplacedOneByOne) {
  EXPECT_TRUE(is_utf8(""));
  EXPECT_TRUE(is_utf8("caf\xc3\xa9\x1b"));  // a control is valid UTF-8
  EXPECT_FALSE(is_utf8("\xff"));
  EXPECT_FALSE(is_utf8("\xed\xa0\x80"));
  EXPECT_EQ(replace_invalid_utf8("a\xff\xfe"
                                 "b\xc3\xa9"),
            "a\xef\xbf\xbd\xef\xbf\xbd"
            "b\xc3\xa9");
}

TEST(Escape, GridCellsAreEscapedAndStillAligned) {
  const std::vector<GridColumn> cols = {{"file", false}, {"calls", true}};
  const std::string out =
      render_grid(cols, {{GridCell("a\x1b[2J\nb"), GridCell("1")}, {GridCell("\xc3\xa9"), "22"}});
  EXPECT_EQ(out,
            "file         calls\n"
            "──────────────────\n"
            "a\\x1b[2J\\nb      1\n"
            "\xc3\xa9               22\n");
}

// A title is escaped as its cells are, so a column is as wide as its escaped title: the
// compare table's "vs" column is titled by the reference command's -n name, and a name of one
// invalid byte over cells narrower than "\\xff" asked for a padding of minus three.
TEST(Escape, AColumnIsAsWideAsItsEscapedTitle) {
  const std::vector<GridColumn> cols = {{"\xff", true}, {"a\nb", false}};
  EXPECT_EQ(render_grid(cols, {{GridCell("1"), GridCell("x")}}),
            "\\xff  a\\nb\n"
            "──────────\n"
            "   1  x\n");
}

TEST(Escape, ADirectorysHeadingIsEscaped) {
  EXPECT_EQ(dir_title("ext4", "/a\x1b[2J\n\xff"), "ext4 · /a\\x1b[2J\\n\\xff");
}

TEST(Escape, EveryJsonDocumentParsesAndKeepsTheBytesInRaw) {
  nlohmann::json doc = {{"command", {"/bin/true", "\xff", "ok"}},
                        {"files", {{{"path", "a\xff\n"}, {"calls", 1}}, {{"path", "fine"}}}},
                        {"name", "caf\xc3\xa9"}};
  const nlohmann::json back = nlohmann::json::parse(dump_json(doc));
  EXPECT_EQ(back["command"], nlohmann::json({"/bin/true", "\xef\xbf\xbd", "ok"}));
  EXPECT_EQ(back["command_raw"], nlohmann::json({"/bin/true", "\\xff", "ok"}));
  EXPECT_EQ(back["files"][0]["path"], "a\xef\xbf\xbd\n");
  EXPECT_EQ(back["files"][0]["path_raw"], "a\\xff\\n");
  EXPECT_FALSE(back["files"][1].contains("path_raw"));
  EXPECT_EQ(back["name"], "caf\xc3\xa9");
  EXPECT_FALSE(back.contains("name_raw"));
  EXPECT_EQ(dump_json({{"a", 1}}), "{\n  \"a\": 1\n}\n");
  // No control reaches a terminal that shows the document: C0 (nlohmann), DEL and C1 (ours).
  const std::string text = dump_json({{"k", "\x1b\x7f\xc2\x9b\xc2\xa0"}});
  EXPECT_EQ(text, "{\n  \"k\": \"\\u001b\\u007f\\u009b\xc2\xa0\"\n}\n");
  EXPECT_EQ(nlohmann::json::parse(text)["k"], "\x1b\x7f\xc2\x9b\xc2\xa0");
  // Nor a format character: a bidi override or a tag, as \u escapes (a surrogate pair past
  // U+FFFF), the same string to a parser.
  const std::string bidi = dump_json({{"k", "a\u202eb\U000e0041"}});
  EXPECT_EQ(bidi, "{\n  \"k\": \"a\\u202eb\\udb40\\udc41\"\n}\n");
  EXPECT_EQ(nlohmann::json::parse(bidi)["k"], "a\u202eb\U000e0041");
}

TEST(Escape, XmlKeepsItsOwnEscapesAndShowsWhatItCannotHold) {
  EXPECT_EQ(xml_escape("a<b\\c\n"), "a&lt;b\\c\n");
  EXPECT_EQ(xml_escape("\x01\xff\xc3\xa9"), "\\x01\\xff\xc3\xa9");
  // U+FFFE and U+FFFF are well-formed UTF-8 that XML 1.0 forbids; U+FFFD and U+10000 are not.
  EXPECT_EQ(xml_escape("\xef\xbf\xbe|\xef\xbf\xbf|\xef\xbf\xbd|\xf0\x90\x80\x80"),
            "\\xef\\xbf\\xbe|\\xef\\xbf\\xbf|\xef\xbf\xbd|\xf0\x90\x80\x80");
}

}  // namespace
}  // namespace iobench
