#include "cli/baseline_flags.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <cstdint>

#include "base/error.h"
#include "cli/cli_values.h"
#include "cli/help_format.h"

namespace iobench {
namespace {

/// No output file may be the --baseline itself: --save-baseline (or an export) of a regressed
/// run would replace the baseline, and the next CI run would pass. The same file by name, or
/// by device and inode (a symlink, a hard link, another spelling of the path); an output
/// that does not exist yet cannot be the baseline, which must.
void check_baseline_not_overwritten(const std::string& baseline_path,
                                    const std::vector<OutputPath>& outputs) {
  if (baseline_path.empty()) return;
  struct stat baseline {};
  const bool exists = ::stat(baseline_path.c_str(), &baseline) == 0;
  for (const auto& [flag, path] : outputs) {
    if (path.empty()) continue;
    struct stat out {};
    const bool same =
        path == baseline_path || (exists && ::stat(path.c_str(), &out) == 0 &&
                                  out.st_dev == baseline.st_dev && out.st_ino == baseline.st_ino);
    if (same)
      throw Error(fmt::format(
          "{} {} is the --baseline it is compared with ({}): a regressed run would replace it; "
          "write to another file",
          flag, path, baseline_path));
  }
}

}  // namespace

void BaselineFlags::add(CLI::App& app) {
  app.add_option("--save-baseline", save_, "Write the JSON result to FILE as a baseline")
      ->type_name(metavar::kFile);
  app.add_option("--baseline", baseline_,
                 "Compare with a saved baseline; exit 1 on a regression (a count above it)")
      ->type_name(metavar::kFile);
  app.add_option("--count-tolerance", count_tolerance_,
                 "Calls a count may differ from the baseline by (default 0)")
      ->type_name(metavar::kCount);
  app.add_flag("--exact-counts", exact_counts_,
               "A count below the baseline fails too (by default an improvement passes); "
               "with --save-baseline, the baseline asks for it itself");
  if (times_)
    app.add_option("--time-tolerance", time_tolerance_,
                   "How much slower a median may be (default 25%)")
        ->type_name(metavar::kFraction);
}

BaselineOptions BaselineFlags::options(const std::vector<OutputPath>& outputs) const {
  check_baseline_not_overwritten(baseline_, outputs);
  BaselineOptions o;
  o.save = save_;
  o.compare_with = baseline_;
  if (!count_tolerance_.empty())
    o.rules.count_tolerance = parse_count("--count-tolerance", count_tolerance_, 0, UINT64_MAX);
  if (times_) o.rules.time_tolerance = parse_fraction("--time-tolerance", time_tolerance_);
  o.rules.exact_counts = exact_counts_;
  return o;
}

std::vector<std::string> baseline_update_command(const std::vector<std::string>& words,
                                                 std::size_t options_from,
                                                 const std::vector<std::string>& command) {
  std::vector<std::string> out(words.begin(),
                               words.begin() + static_cast<std::ptrdiff_t>(options_from));
  std::vector<std::string> rest;
  std::string file;
  for (std::size_t i = options_from; i < words.size(); ++i) {
    const std::string& w = words[i];
    const bool spaced = w == "--baseline" || w == "--save-baseline";
    if (spaced || w.starts_with("--baseline=") || w.starts_with("--save-baseline=")) {
      const std::string value =
          spaced ? (i + 1 < words.size() ? words[++i] : "") : w.substr(w.find('=') + 1);
      if (w.starts_with("--baseline")) file = value;
      continue;
    }
    rest.push_back(w);
  }
  if (file.empty()) return {};
  // First among the options: a reader finds it at once, and no command word comes before it.
  out.insert(out.end(), {"--save-baseline", file});
  out.insert(out.end(), rest.begin(), rest.end());
  if (!command.empty()) {
    out.emplace_back("--");
    out.insert(out.end(), command.begin(), command.end());
  }
  return out;
}

}  // namespace iobench
