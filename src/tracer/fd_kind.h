// What a tracee's fd is, by its inode rather than its name: the classification behind
// write_calls (README "What counts as a write").
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace iobench::tracing {

/// An inode: what stays the same when a file is renamed or deleted.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId&) const = default;
  bool operator<(const FileId& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
};

/// One fd as the tracer saw it. `key` is what the tally files the call under (file_key()).
struct FdFacts {
  std::string key;
  FileId id;
  FdKind kind = FdKind::kNone;
};

/// The inodes of this process's stdout and stderr: what a child forked now starts with.
std::vector<FileId> standard_streams();

/// Looks at `fd` of `tid` through /proc/TID/fd (the link's target names it, a stat of the
/// link gives the inode and type) and /proc/TID/fdinfo (its access mode). `streams`: the
/// traced program's standard streams (standard_streams()).
FdFacts classify_fd(pid_t tid, int fd, const std::vector<FileId>& streams);

/// What a file is from what the kernel says of it: the name /proc/PID/fd shows, its inode,
/// i_mode and i_rdev; `writable`: open for writing. classify_fd and the kernel clock alike.
FdKind kind_of_file(std::string_view name, FileId id, mode_t mode, dev_t rdev, bool writable,
                    const std::vector<FileId>& streams);

/// The tally keeps one string per file: the path, a NUL (no path holds one) and the kind,
/// so that two files with one name, or one name of two kinds, stay apart.
std::string file_key(std::string_view path, FdKind kind);
/// The path part of a key.
std::string_view key_path(std::string_view key);
/// Splits every key back into path and kind, once the tally has been filled.
void split_file_keys(std::vector<FileStats>& files);

}  // namespace iobench::tracing
