// What an output path is written into (issue 25, items 1 and 2): a device, a FIFO, an open
// descriptor, a symlink, a hard link or another user's file is written in place and stays
// what it was; a write that fails (stdout on /dev/full or a full disk, an export whose
// directory vanished) is one error line and exit status 4, and the rest of the run completes.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "cli_surface_test.h"

namespace iobench {
namespace {

using testing::error_lines;
using testing::iobench;
using testing::is_symlink;
using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;
using testing::Tmpfs;
using testing::write_text;

const std::string kReport = "write calls: 0";  // in every trace table of /bin/true
const std::vector<std::string> kBench = {"--lines", "100",      "--strategy", "buffered",  "--runs",
                                         "1",       "--warmup", "0",          "--no-trace"};

bool is_root() { return ::geteuid() == 0; }

/// iobench run by a shell with `redirect` applied (e.g. ">/dev/full"), so the descriptor is
/// the shell's, as a user's would be.
ProcessOutput iobench_redirected(const std::string& redirect, std::vector<std::string> args) {
  std::vector<std::string> sh = {"/bin/sh", "-c", "exec \"$0\" \"$@\" " + redirect, IOBENCH_BIN};
  sh.insert(sh.end(), args.begin(), args.end());
  return run_process(sh);
}

struct stat stat_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st;
}

// ---- done when: /dev/null stays a device, /dev/stdout and a FIFO are written into ----

TEST(OutputTargets, DevNullInAPrivateMountNamespaceStaysACharacterDevice) {
  if (!is_root()) GTEST_SKIP() << "a private /dev and mknod need root";
  if (::access("/usr/bin/unshare", X_OK) != 0) GTEST_SKIP() << "needs unshare(1)";
  // A tmpfs over /dev in a namespace of its own, with fresh null and full nodes: the real
  // /dev stays out of reach whatever iobench does.
  const std::string script =
      "mount -t tmpfs devcopy /dev && mknod -m 666 /dev/null c 1 3 && "
      "mknod -m 666 /dev/full c 1 7 && mknod -m 666 /dev/zero c 1 5 && "
      "\"$0\" trace -o /dev/null -- /bin/true && stat -c %F /dev/null && "
      "echo probe >/dev/null && cat /dev/null && "
      "{ \"$0\" trace -o /dev/full -- /bin/true; echo full=$?; } && stat -c %F /dev/full";
  ProcessOutput r = run_process(
      {"/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script, IOBENCH_BIN});
  if (r.err.find("mount:") != std::string::npos) GTEST_SKIP() << r.err;
  EXPECT_EQ(r.out, "character special file\nfull=4\ncharacter special file\n") << r.err;
  EXPECT_EQ(r.err, "iobench: error: --output: cannot write /dev/full: No space left on device\n");
}

TEST(OutputTargets, AMknodDeviceInAnyDirectoryIsWrittenNotReplaced) {
  if (!is_root()) GTEST_SKIP() << "mknod needs root";
  ScratchDir out;
  const std::string null = out.path() + "/null";
  ASSERT_EQ(::mknod(null.c_str(), S_IFCHR | 0666, ::makedev(1, 3)), 0);
  ProcessOutput r = iobench({"trace", "--format", "json", "-o", null, "--", "/bin/true"});
  if (r.status == 2 && r.err.find("Permission denied") != std::string::npos)
    GTEST_SKIP() << "devices are not usable on " << out.path() << " (nodev)";
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(S_ISCHR(stat_of(null).st_mode)) << "the device was replaced";
  EXPECT_EQ(out.entries(), 1) << "a temporary was left beside it";
}

TEST(OutputTargets, DevStdoutAndStderrAreTheOpenDescriptors) {
  // Through a pipe, as `| cat`; the report must reach cat.
  ProcessOutput piped =
      run_process({"/bin/sh", "-c", "\"$0\" trace -o /dev/stdout -- /bin/true | cat", IOBENCH_BIN});
  EXPECT_EQ(piped.status, 0) << piped.err;
  EXPECT_NE(piped.out.find(kReport), std::string::npos) << piped.out;
  // Into a regular file the shell opened: at the descriptor's offset, after what the shell
  // wrote first; reopening the name would start again at 0 over "before".
  ProcessOutput file = run_process(
      {"/bin/sh", "-c", "echo before; exec \"$0\" trace -o /dev/stdout -- /bin/true", IOBENCH_BIN});
  EXPECT_EQ(file.status, 0) << file.err;
  EXPECT_TRUE(file.out.starts_with("before\nsyscall")) << file.out;
  ProcessOutput err =
      iobench({"trace", "--format", "json", "-o", "/dev/stderr", "--", "/bin/true"});
  EXPECT_EQ(err.status, 0) << err.err;
  EXPECT_EQ(err.out, "");
  EXPECT_EQ(nlohmann::json::parse(err.err)["schema"], "iobench-trace/1");
  // A descriptor that is not open is refused before the command runs.
  ScratchDir work;
  ProcessOutput closed =
      iobench({"trace", "-o", "/dev/fd/9", "--", "/usr/bin/touch", work.path() + "/ran"});
  EXPECT_EQ(closed.status, 2);
  EXPECT_EQ(closed.err, "iobench: error: --output /dev/fd/9: descriptor 9 is not open\n");
  EXPECT_EQ(work.entries(), 0);
}

TEST(OutputTargets, AFifoIsWrittenIntoAndItsReaderGetsTheWholeReport) {
  ScratchDir out;
  const std::string fifo = out.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  // The reader waits in open before iobench starts: a check that opened and closed the
  // FIFO would hand it EOF and an empty report.
  std::thread reader([&] { got = slurp(fifo); });
  ProcessOutput r = iobench({"trace", "-o", fifo, "--", "/bin/true"});
  reader.join();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(got.find(kReport), std::string::npos) << got;
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
}

// ---- regular files: mode, owner and links kept; symlinks followed, never replaced ----

TEST(OutputTargets, AnotherUsersFileKeepsItsModeAndOwner) {
  if (!is_root()) GTEST_SKIP() << "a file of another user needs root";
  ScratchDir out;
  const std::string path = out.path() + "/theirs.json";
  write_text(path, "old\n", 0600);
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  ProcessOutput r = iobench({"trace", "--format", "json", "-o", path, "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  const struct stat st = stat_of(path);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  EXPECT_EQ(nlohmann::json::parse(slurp(path))["exit_status"], 0);
}

TEST(OutputTargets, AHardLinkedFileIsWrittenInPlaceAndKeepsItsLinks) {
  ScratchDir out;
  const std::string a = out.path() + "/a.txt", b = out.path() + "/b.txt";
  std::string old;  // longer than the report: a write without truncation would leave some
  for (int i = 0; i < 1000; ++i) old += "old\n";
  write_text(a, old, 0640);
  ASSERT_EQ(::link(a.c_str(), b.c_str()), 0);
  const ino_t inode = stat_of(a).st_ino;
  ProcessOutput r = iobench({"trace", "-o", a, "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(stat_of(a).st_ino, inode);
  EXPECT_EQ(stat_of(a).st_nlink, 2u);
  EXPECT_EQ(stat_of(a).st_mode & 07777, 0640u);
  EXPECT_TRUE(slurp(b).starts_with("syscall")) << slurp(b);
  EXPECT_EQ(slurp(b).find("old"), std::string::npos) << "not truncated first";
}

TEST(OutputTargets, ASymlinkWritesItsTargetAndStaysALink) {
  ScratchDir out;
  const std::string target = out.path() + "/target.json", link = out.path() + "/link.json";
  write_text(target, "old\n", 0604);
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  ProcessOutput r = iobench({"trace", "--format", "json", "-o", link, "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(is_symlink(link));
  EXPECT_EQ(stat_of(target).st_mode & 07777, 0604u);
  EXPECT_EQ(nlohmann::json::parse(slurp(target))["schema"], "iobench-trace/1");
  EXPECT_EQ(out.entries(), 2) << "a temporary was left";
  // A symlink to nothing is refused before the command runs: no file is created through it.
  const std::string dangling = out.path() + "/dangling";
  ASSERT_EQ(::symlink((out.path() + "/nowhere").c_str(), dangling.c_str()), 0);
  ProcessOutput d = iobench({"trace", "-o", dangling, "--", "/usr/bin/touch", out.path() + "/ran"});
  EXPECT_EQ(d.status, 2);
  EXPECT_EQ(d.err, "iobench: error: --output " + dangling +
                       ": is a symlink to a missing file (iobench writes through a symlink "
                       "only to an existing file)\n");
  EXPECT_EQ(out.entries(), 3) << "it ran, or created the symlink's target";
}

/// iobench run as nobody, with no supplementary groups.
ProcessOutput iobench_as_nobody(std::vector<std::string> args) {
  std::vector<std::string> cmd = {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup",
                                  "--clear-groups", IOBENCH_BIN};
  cmd.insert(cmd.end(), args.begin(), args.end());
  return run_process(cmd);
}

TEST(OutputTargets, TheCheckAsksWhatTheWriteWillDo) {
  if (!is_root()) GTEST_SKIP() << "files of root and a run as nobody need root";
  ScratchDir work, out;
  ASSERT_EQ(::chmod(work.path().c_str(), 01777), 0);
  ASSERT_EQ(::chmod(out.path().c_str(), 01777), 0);  // sticky, as /tmp
  const std::string ran = work.path() + "/ran";
  // Root's 0644 file in a sticky directory: nobody can neither rename over it nor write it.
  const std::string locked = out.path() + "/root644";
  write_text(locked, "root's\n", 0644);
  ProcessOutput r = iobench_as_nobody({"trace", "-o", locked, "--", "/usr/bin/touch", ran});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --output " + locked + ": Permission denied\n");
  EXPECT_FALSE(testing::exists(ran)) << "the command ran before the refusal";
  // Root's 0666 file there: rename would fail, writing in place works, and root keeps it.
  const std::string open = out.path() + "/root666";
  write_text(open, "root's\n", 0666);
  r = iobench_as_nobody({"trace", "-o", open, "--", "/bin/true"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(stat_of(open).st_uid, 0u);
  EXPECT_NE(slurp(open).find(kReport), std::string::npos);
  // A 0666 file in a directory nobody cannot write: written in place, not refused.
  ASSERT_EQ(::chmod(out.path().c_str(), 0755), 0);
  const std::string shared = out.path() + "/shared";
  write_text(shared, "", 0666);
  r = iobench_as_nobody({"trace", "-o", shared, "--", "/bin/true"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(slurp(shared).find(kReport), std::string::npos);
}

// ---- two outputs to one file ----

TEST(OutputTargets, TwoOutputsToOneFileAreRefusedBeforeRunning) {
  ScratchDir work, out;
  const std::string a = out.path() + "/a";
  auto bench = [&](const std::vector<std::string>& files) {
    std::vector<std::string> args = kBench;
    for (const std::string& w : {std::string("--keep"), std::string("--dir"), work.path()})
      args.push_back(w);
    args.insert(args.end(), files.begin(), files.end());
    return iobench(args);
  };
  ProcessOutput r = bench({"--export-json", a, "--export-csv", a});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --export-json " + a + " and --export-csv " + a +
                       " would write the same file; give each its own\n");
  EXPECT_EQ(work.entries(), 0) << "it ran";
  // The same file by another name: a symlink to it, or ./ in front.
  write_text(a, "");
  ASSERT_EQ(::symlink(a.c_str(), (out.path() + "/alias").c_str()), 0);
  r = bench({"--export-markdown", a, "--save-baseline", out.path() + "/alias"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(work.entries(), 0) << "it ran";
  r = iobench({"trace", "-o", out.path() + "/t", "--export-json", out.path() + "/./t", "--",
               "/usr/bin/touch", work.path() + "/ran"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(work.entries(), 0) << "the command ran";
  // A device takes any number of outputs.
  r = bench({"--export-json", "/dev/null", "--export-csv", "/dev/null"});
  EXPECT_EQ(r.status, 0) << r.err;
}

// ---- write errors: one line, exit 4, and the rest completes ----

TEST(OutputTargets, StdoutOnDevFullExitsFourWithOneErrorLine) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  ScratchDir work;
  std::vector<std::vector<std::string>> runs = {{"--help"}, {"--version"}, {"--list"}};
  for (const char* format : {"table", "json", "csv", "markdown"}) {
    std::vector<std::string> bench = kBench;
    for (const std::string& w :
         {std::string("--dir"), work.path(), std::string("--format"), std::string(format)})
      bench.push_back(w);
    runs.push_back(bench);
    runs.push_back(
        {"compare", "--runs", "1", "--warmup", "0", "--no-trace", "--format", format, "/bin/true"});
    if (format != std::string("table") && format != std::string("json")) continue;
    runs.push_back({"sweep", "--strategy", "buffered", "--buffer-size", "1K,4K", "--lines", "100",
                    "--runs", "1", "--no-trace", "--dir", work.path(), "--format", format});
  }
  runs.push_back({"trace", "--format", "json", "--", "/bin/true"});
  for (const auto& args : runs) {
    ProcessOutput r = iobench_redirected(">/dev/full", args);
    const std::string what = args.front() + " " + args.back();
    EXPECT_EQ(r.status, 4) << what << "\n" << r.err;
    EXPECT_EQ(error_lines(r.err),
              std::vector<std::string>{"iobench: error: stdout: No space left on device"})
        << what << "\n"
        << r.err;
  }
  // trace's table goes to stderr: no line can say so, the status does.
  ProcessOutput table = iobench_redirected("2>/dev/full", {"trace", "--", "/bin/true"});
  EXPECT_EQ(table.status, 4);
  // A failing command's own status still comes first, as over a failed expectation.
  ProcessOutput failing =
      iobench_redirected(">/dev/full", {"trace", "--format", "json", "--", "/bin/false"});
  EXPECT_EQ(failing.status, 1) << failing.err;
}

TEST(OutputTargets, StdoutOnAFullDiskExitsFour) {
  if (!is_root()) GTEST_SKIP() << "mounting a small tmpfs needs root";
  Tmpfs fs("size=64k");
  ASSERT_TRUE(fs.mounted());
  ScratchDir work;
  // Fill it: what is left is less than a page.
  const std::string fill = "dd if=/dev/zero of=" + fs.path() + "/fill bs=4k 2>/dev/null";
  (void)std::system(fill.c_str());
  std::vector<std::string> args = kBench;
  for (const std::string& w :
       {std::string("--dir"), work.path(), std::string("--format"), std::string("json")})
    args.push_back(w);
  ProcessOutput r = iobench_redirected(">" + fs.path() + "/out.json", args);
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(error_lines(r.err),
            std::vector<std::string>{"iobench: error: stdout: No space left on device"});
}

TEST(OutputTargets, AnExportWhoseDirectoryGoesAwayMidRunIsReportedAndTheRestCompletes) {
  ScratchDir out;
  const std::string gone = out.path() + "/gone";
  ASSERT_EQ(::mkdir(gone.c_str(), 0755), 0);
  const std::string json = gone + "/r.json", csv = out.path() + "/r.csv";
  // The first command removes the JSON's directory: its export after that row fails; the
  // second command still runs, the CSV gets both rows and stdout its table.
  ProcessOutput r =
      iobench({"compare", "--runs", "1", "--warmup", "0", "--export-json", json, "--export-csv",
               csv, "-n", "remover", "-n", "second", "/bin/rm -rf " + gone, "/bin/true"});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(error_lines(r.err),
            std::vector<std::string>{"iobench: error: --export-json: cannot write " + json +
                                     ": No such file or directory"})
      << r.err;
  EXPECT_NE(slurp(csv).find("\nremover,ok"), std::string::npos) << slurp(csv);
  EXPECT_NE(slurp(csv).find("\nsecond,ok"), std::string::npos) << slurp(csv);
  EXPECT_NE(r.out.find("second"), std::string::npos) << r.out;
}

TEST(OutputTargets, AnExportOnAFilesystemRemountedReadOnlyMidRunIsReported) {
  if (!is_root()) GTEST_SKIP() << "remounting needs root";
  Tmpfs fs("size=1m");
  ASSERT_TRUE(fs.mounted());
  ScratchDir out;
  const std::string json = fs.path() + "/r.json", md = out.path() + "/r.md";
  ProcessOutput r = iobench({"compare", "--runs", "1", "--warmup", "0", "--format", "json",
                             "--export-json", json, "--export-markdown", md, "-n", "remount", "-n",
                             "second", "/bin/mount -o remount,ro " + fs.path(), "/bin/true"});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_EQ(error_lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["results"].size(), 2u) << "--format json emptied";
  EXPECT_NE(slurp(md).find("second"), std::string::npos);
}

}  // namespace
}  // namespace iobench
