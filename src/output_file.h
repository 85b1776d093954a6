// Files iobench writes on request (--export-*, --save-baseline, --plot, trace -o): checked
// before anything runs, written whole or not at all.
#pragma once

#include <string>

namespace iobench {

/// Throws Error (exit 2) naming `flag` and `path` when `path` cannot be written by
/// write_file_atomically: empty, a directory, its directory missing, not a directory, not
/// writable or on a read-only filesystem. Called while parsing, so a run of minutes never
/// ends in an unwritable file.
void check_output_file(const std::string& flag, const std::string& path);

/// Writes text to path through a new temporary file beside it and rename, so a reader (or
/// a crash) never sees half a file, and a symlink planted at a temporary name is never
/// followed. The file gets the mode a plain creat(0666) would (the umask applies). Errors
/// (exit 3) name the file, after `what` (e.g. "--plot: ").
void write_file_atomically(const std::string& path, const std::string& text,
                           const std::string& what = "");

}  // namespace iobench
