// `iobench trace --per-process` names each process as ps does (its command name after its
// last exec, and its pid) and gives each its own files: a real tar piping into a real gzip.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_surface_test.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::ScratchDir;
using testing::slurp;
using testing::write_text;

TEST(PerProcess, TarAndGzipAreNamedAndEachHasItsFiles) {
  ScratchDir dir;
  ::mkdir((dir.path() + "/in").c_str(), 0755);
  for (int i = 0; i < 20; ++i)
    write_text(dir.path() + "/in/" + std::to_string(i), std::string(40000, 'a' + i % 26));
  const std::string archive = dir.path() + "/out.tgz";
  const std::string report = dir.path() + "/trace.json";
  // tar forks a child that execs gzip and pipes the archive through it: two processes.
  ProcessOutput r = iobench({"trace", "--count-only", "--per-process", "--export-json", report,
                             "--", "/usr/bin/tar", "czf", archive, "-C", dir.path(), "in"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(slurp(report));
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& p : doc["processes"]) by_name[p["name"].get<std::string>()] = p;
  ASSERT_EQ(by_name.size(), 2u) << doc["processes"].dump();
  ASSERT_EQ(by_name.count("tar"), 1u) << doc["processes"].dump();
  ASSERT_EQ(by_name.count("gzip"), 1u) << doc["processes"].dump();
  // The table heads each process's tables with what ps would show.
  for (const auto& [name, p] : by_name) {
    const std::string heading =
        "\n" + name + " (pid " + std::to_string(p["pid"].get<int>()) + ")\n";
    EXPECT_NE(r.err.find(heading), std::string::npos) << heading << r.err;
  }
  // gzip alone writes the archive; tar writes the pipe gzip reads. A process's file rows are
  // its share of the run's: they add up to the run's row.
  auto calls_on = [](const nlohmann::json& files, const std::string& path) {
    std::uint64_t n = 0;
    for (const auto& f : files)
      if (f["path"] == path) n += f["calls"].get<std::uint64_t>();
    return n;
  };
  const std::uint64_t archive_calls = calls_on(doc["files"], archive);
  EXPECT_GT(archive_calls, 0u);
  EXPECT_EQ(calls_on(by_name["gzip"]["files"], archive), archive_calls);
  EXPECT_EQ(calls_on(by_name["tar"]["files"], archive), 0u);
  ASSERT_EQ(by_name["tar"]["files"].size(), 1u) << by_name["tar"].dump();
  const std::string pipe = by_name["tar"]["files"][0]["path"];
  EXPECT_TRUE(pipe.starts_with("pipe:[")) << pipe;
  EXPECT_EQ(by_name["tar"]["files"][0]["calls"], calls_on(doc["files"], pipe));
  for (const auto& [name, p] : by_name) {
    std::uint64_t file_calls = 0, syscall_calls = 0;
    for (const auto& f : p["files"]) file_calls += f["calls"].get<std::uint64_t>();
    for (const auto& [sc, st] : p["syscalls"].items())
      syscall_calls += st["calls"].get<std::uint64_t>();
    EXPECT_EQ(file_calls, syscall_calls) << name;  // every write-family call names a file
  }
}

}  // namespace
}  // namespace iobench
