// Filesystems side by side: --dir A,B runs in each directory, names each one's filesystem,
// checks each one's space, and shows a block (table), a row field (JSON) and a bar group
// (--plot) per directory. The expected filesystem names come from statfs here, not from
// iobench's own lookup.
#include "report/dirs.h"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "report/plot.h"
#include "run_process.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::ScratchDir;
using testing::Tmpfs;

/// The filesystem a test expects iobench to name for `dir`, from statfs and linux/magic.h;
/// "" for one this test does not know (the test then skips).
std::string expected_filesystem(const std::string& dir) {
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) != 0) return "";
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:
      return "ext4";
    case TMPFS_MAGIC:
      return "tmpfs";
    case XFS_SUPER_MAGIC:
      return "xfs";
    case BTRFS_SUPER_MAGIC:
      return "btrfs";
    case OVERLAYFS_SUPER_MAGIC:
      return "overlayfs";
    default:
      return "";
  }
}

/// A private directory under /dev/shm (tmpfs on every Linux with glibc's shm_open).
class ShmDir {
 public:
  ShmDir() {
    char tmpl[] = "/dev/shm/iobench-test.XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) path_ = tmpl;
  }
  ~ShmDir() {
    if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(Dirs, TwoDirectoriesGiveAResultSetEachNamedByItsFilesystem) {
  ScratchDir work;
  ShmDir shm;
  if (shm.path().empty()) GTEST_SKIP() << "no /dev/shm here";
  const std::string work_fs = expected_filesystem(work.path());
  const std::string shm_fs = expected_filesystem(shm.path());
  if (work_fs.empty() || shm_fs.empty()) GTEST_SKIP() << "a filesystem this test cannot name";
  ProcessOutput r = iobench({"--lines", "1000", "--strategy", "buffered,unbuffered", "--runs", "1",
                             "--format", "json", "--dir", work.path() + "," + shm.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema"], "iobench/1");
  EXPECT_EQ(doc["config"]["dir"], work.path() + "," + shm.path());
  EXPECT_EQ(doc["config"]["filesystem"], work_fs + "," + shm_fs);
  ASSERT_EQ(doc["results"].size(), 4u) << doc["results"];
  // Directory by directory, each with every strategy, measured and verified there.
  const std::pair<std::string, std::string> where[] = {
      {work.path(), work_fs}, {work.path(), work_fs}, {shm.path(), shm_fs}, {shm.path(), shm_fs}};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& row = doc["results"][i];
    EXPECT_EQ(row["strategy"], i % 2 ? "unbuffered" : "buffered");
    EXPECT_EQ(row["dir"], where[i].first);
    EXPECT_EQ(row["filesystem"], where[i].second);
    EXPECT_EQ(row["status"], "ok");
    EXPECT_EQ(row["verified"], true);
    EXPECT_EQ(row["write_calls"], i % 2 ? 1000 : 1) << row;
  }
  EXPECT_EQ(work.entries(), 0);  // each private directory removed
}

TEST(Dirs, TheTableHasOneBlockPerDirectoryHeadedByFilesystemAndPath) {
  ScratchDir work;
  ShmDir shm;
  if (shm.path().empty()) GTEST_SKIP() << "no /dev/shm here";
  const std::string work_fs = expected_filesystem(work.path());
  const std::string shm_fs = expected_filesystem(shm.path());
  if (work_fs.empty() || shm_fs.empty()) GTEST_SKIP() << "a filesystem this test cannot name";
  ProcessOutput r =
      iobench({"--lines", "100", "--strategy", "buffered", "--runs", "1", "--no-trace", "--color",
               "never", "--dir", work.path() + "," + shm.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::size_t first = r.out.find("━━ " + work_fs + " · " + work.path() + " ━━\n");
  const std::size_t second = r.out.find("━━ " + shm_fs + " · " + shm.path() + " ━━\n");
  ASSERT_NE(first, std::string::npos) << r.out;
  ASSERT_NE(second, std::string::npos) << r.out;
  EXPECT_EQ(first, 0u);
  EXPECT_LT(first, second);
  // Each block's own heading and row: one "buffered" row under each title.
  EXPECT_NE(r.out.find(work.path() + " on " + work_fs, first), std::string::npos);
  EXPECT_NE(r.out.find(shm.path() + " on " + shm_fs, second), std::string::npos) << r.out;
  EXPECT_NE(r.out.substr(second).find("\nbuffered "), std::string::npos) << r.out;
}

TEST(Dirs, OneDirectoryIsAsBeforePlusWhereEachRowRan) {
  ScratchDir work;
  ProcessOutput r = iobench({"--lines", "100", "--strategy", "buffered", "--runs", "1",
                             "--no-trace", "--format", "json", "--dir", work.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["config"]["dir"], work.path());
  EXPECT_EQ(doc["results"][0]["dir"], work.path());
  const std::string fs = expected_filesystem(work.path());
  if (!fs.empty()) {
    EXPECT_EQ(doc["results"][0]["filesystem"], fs);
  }
  ProcessOutput t = iobench({"--lines", "100", "--strategy", "buffered", "--runs", "1",
                             "--no-trace", "--color", "never", "--dir", work.path()});
  EXPECT_EQ(t.out.find("━━"), std::string::npos) << t.out;  // no block titles for one
}

TEST(Dirs, AMissingDirectoryInTheListIsAUsageErrorNamingIt) {
  ScratchDir work;
  const std::string missing = work.path() + "/not-there";
  ProcessOutput r =
      iobench({"--lines", "100", "--strategy", "buffered", "--dir", work.path() + "," + missing});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --dir " + missing + ": No such file or directory\n");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(work.entries(), 0);  // found before anything ran
}

TEST(Dirs, EverySpaceCheckRuns) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  ScratchDir work;
  Tmpfs small("size=512k");
  ASSERT_TRUE(small.mounted());
  ProcessOutput r = iobench({"--lines", "100000", "--dir", work.path() + "," + small.path()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --lines: needs 1088890 bytes in " + small.path() +
                       " but only 524288 bytes are free\n");
}

TEST(Dirs, TheListIsCheckedForEmptyAndRepeatedNames) {
  EXPECT_EQ(parse_dirs("/tmp,/dev/shm"), (std::vector<std::string>{"/tmp", "/dev/shm"}));
  EXPECT_EQ(parse_dirs("/tmp"), (std::vector<std::string>{"/tmp"}));
  EXPECT_THROW(parse_dirs("/tmp,"), Error);
  EXPECT_THROW(parse_dirs("/tmp,/tmp"), Error);
  ProcessOutput r = iobench({"--dir", "/tmp,/tmp", "--lines", "10"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --dir: /tmp is given twice in '/tmp,/tmp'\n");
}

TEST(Dirs, SweepRunsInEveryDirectory) {
  ScratchDir a, b;
  ProcessOutput r = iobench({"sweep", "--strategy", "buffered", "--buffer-size", "1K,64K",
                             "--lines", "100", "--runs", "1", "--no-trace", "--format", "json",
                             "--dir", a.path() + "," + b.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema"], "iobench-sweep/1");
  ASSERT_EQ(doc["points"].size(), 4u);
  const std::string dirs[] = {a.path(), a.path(), b.path(), b.path()};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(doc["points"][i]["value"], i % 2 ? 65536 : 1024);
    EXPECT_EQ(doc["points"][i]["result"]["dir"], dirs[i]);
    EXPECT_EQ(doc["points"][i]["result"]["status"], "ok");
  }
  ASSERT_EQ(doc["knees"].size(), 2u);
  EXPECT_EQ(doc["knees"][1]["dir"], b.path());
}

// ---- --plot ----

StrategyResult row(const std::string& strategy, const std::string& dir, const std::string& fs,
                   double median) {
  StrategyResult r;
  r.strategy = strategy;
  r.dir = dir;
  r.filesystem = fs;
  r.time_ns.median = median;
  r.time_ns.samples = {static_cast<std::int64_t>(median)};
  r.write_calls = 1;
  return r;
}

TEST(Dirs, ThePlotGroupsBarsByFilesystemAndKeepsAStrategysColour) {
  RunRecord rep;
  rep.results = {row("buffered", "/a", "ext4", 300), row("unbuffered", "/a", "ext4", 900),
                 row("buffered", "/b", "tmpfs", 100), row("unbuffered", "/b", "tmpfs", 200)};
  // Fastest first, but only within each directory's group.
  const std::string s = comparison_plot_script(rep, {.sort = SortOrder::kTime});
  const std::size_t tics = s.find("set ytics (");
  ASSERT_NE(tics, std::string::npos) << s;
  EXPECT_EQ(s.substr(tics, s.find('\n', tics) - tics),
            "set ytics (\"buffered · ext4\" 0, \"unbuffered · ext4\" 1, \"buffered · tmpfs\" 2, "
            "\"unbuffered · tmpfs\" 3) noenhanced");
  // One colour per strategy: buffered's bars (rows 0 and 2) share the first colour.
  EXPECT_NE(s.find("every ::0::0 using 2:1:(0):2:($1-0.35):($1+0.35) with boxxyerror fc rgb "
                   "\"#4477AA\""),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("every ::2::2 using 2:1:(0):2:($1-0.35):($1+0.35) with boxxyerror fc rgb "
                   "\"#4477AA\""),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("every ::3::3 using 2:1:(0):2:($1-0.35):($1+0.35) with boxxyerror fc rgb "
                   "\"#EE6677\""),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace iobench
