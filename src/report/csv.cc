// CSV: one row per result, every column of the table (report/bench_columns.h) in plain units
// (ns, bytes, counts, ratios as numbers) for spreadsheets and scripts. Empty cell = not
// measured, never 0.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/bench_columns.h"
#include "report/dirs.h"
#include "report/escape.h"
#include "report/reporter.h"

namespace iobench {
namespace {

/// The columns of the CSV before the table's came from it (scripts index them): they keep
/// their places, in this order, and every other field follows in the table's order. dir and
/// filesystem were last, so that scripts indexing the older columns kept working; with
/// --dir A,B they tell the two runs' rows apart.
constexpr const char* kLeading[] = {"strategy",       "status",          "error",
                                    "lines",          "bytes",           "verified",
                                    "runs",           "time_median_ns",  "time_mean_ns",
                                    "time_stddev_ns", "time_min_ns",     "time_max_ns",
                                    "cpu_median_ns",  "minor_faults",    "major_faults",
                                    "write_calls",    "syscall_time_ns", "dir",
                                    "filesystem"};

/// A text cell: escaped as the table escapes it (report/escape.h: a newline in a name stays
/// one row, no control byte reaches a terminal that cats the file, the file stays UTF-8),
/// then quoted when it holds a comma or a quote (RFC 4180).
std::string quote(const std::string& raw) {
  std::string s = escape_text(raw);
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

/// What a row says beyond the table's columns (the table shows it in its heading or not at
/// all): the work, whether the bytes were checked, where it ran.
std::vector<Field<ResultRow>> row_facts(const RunRecord& rep) {
  auto of = [](std::string key, std::function<std::string(const StrategyResult&)> value) {
    return Field<ResultRow>{
        .key = std::move(key),
        .value = [value = std::move(value)](const ResultRow& row) { return value(*row.result); }};
  };
  return {of("lines", [lines = rep.lines](const auto&) { return std::to_string(lines); }),
          of("verified",
             [](const auto& r) { return r.verified ? (*r.verified ? "true" : "false") : ""; }),
          of("dir", [](const auto& r) { return r.dir; }),
          of("filesystem", [](const auto& r) { return r.filesystem; })};
}

/// Every field of the columns and the row facts, kLeading's first.
std::vector<Field<ResultRow>> fields(const RunRecord& rep, const Presentation& pres,
                                     const std::vector<ResultRow>& rows) {
  std::vector<Field<ResultRow>> all = row_facts(rep);
  for (auto& col : bench_columns(rep, pres, rows))
    for (auto& f : col.fields) all.push_back(std::move(f));
  auto rank = [](const Field<ResultRow>& f) {
    return std::find(std::begin(kLeading), std::end(kLeading), f.key) - std::begin(kLeading);
  };
  std::stable_sort(all.begin(), all.end(),
                   [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return all;
}

std::string line(const std::vector<Field<ResultRow>>& fields, const ResultRow* row) {
  std::string out;
  for (const auto& f : fields) {
    if (!out.empty()) out += ',';
    out += quote(row ? f.value(*row) : f.key);
  }
  return out + "\n";
}

}  // namespace

std::string render_csv(const RunRecord& rep, const Presentation& pres) {
  // Each directory's rows compare with that directory's reference, as its table does; the
  // rows stay in the order they ran.
  struct Block {
    RunRecord rep;
    std::vector<ResultRow> rows;
    std::vector<Field<ResultRow>> fields;
    std::size_t next = 0;
  };
  std::map<std::string, Block> blocks;  // nodes stay put: rows point into their block's rep
  for (const std::string& dir : result_dirs(rep.results)) {
    Block& b = blocks[dir];
    b.rep = dir_block(rep, dir);
    b.rows = bench_rows(b.rep, pres, false);
    b.fields = fields(b.rep, pres, b.rows);
  }
  std::string out = line(fields(rep, pres, {}), nullptr);
  for (const auto& r : rep.results) {
    Block& b = blocks.at(r.dir);
    out += line(b.fields, &b.rows.at(b.next++));
  }
  return out;
}

}  // namespace iobench
