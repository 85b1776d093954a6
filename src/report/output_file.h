// Files iobench writes on request (--export-*, --save-baseline, --plot, trace -o): checked
// before anything runs, and written without replacing what they should write into (README
// "Exit status", the paragraph on the files iobench writes).
#pragma once

#include <string>

namespace iobench {

/// Throws Error (exit 2) naming `flag` and `path` when the write below would fail: empty, a
/// directory, a socket, a dangling symlink; for a new file (or one replaced by rename) its
/// directory missing, not a directory, not writable or on a read-only filesystem, or its
/// name longer than the directory's NAME_MAX; for a file
/// written in place not writable; a device that cannot be opened for writing; /dev/stdout or
/// /dev/fd/N not open for writing. A FIFO is not opened (closing it would end a waiting
/// reader's input). Called while parsing, so a run of minutes never ends in an unwritable file.
void check_output_file(const std::string& flag, const std::string& path);

/// What identifies an output's destination for "two outputs to one file".
struct OutputIdentity {
  std::string id;       // empty: nothing another output could clobber (a device, a FIFO, a pipe)
  bool stream = false;  // an open descriptor, written at its offset
};

/// path's OutputIdentity: st_dev and st_ino of an existing regular file, or the real
/// directory and name of a new one; for /dev/stdout, /dev/fd/N the regular file the
/// descriptor is open on (a stream: two of them may share it, written one after another).
OutputIdentity output_identity(const std::string& path);

/// Whether path is written as a stream (a device, a FIFO, an open descriptor): each write
/// adds to what came before, so it takes a document once, not a new version per strategy.
bool is_stream_output(const std::string& path);

/// Writes text to path without replacing what path should be written into:
/// - a new file, or a regular file iobench can write and replace keeping its mode, owner and
///   links: through a new temporary file beside it, fsync and rename, so a reader (or a
///   crash) never sees half a file, and a symlink planted at a temporary name is never
///   followed;
/// - another regular file (hard-linked, another owner's, or in a directory iobench cannot
///   write): truncated and written in place, as strace -o does (a failed write, e.g. a full
///   disk, may leave it truncated);
/// - a symlink: what it points to, by these rules; never the link itself;
/// - a device or FIFO: opened and written in place (a FIFO waits for its reader);
/// - /dev/stdout, /dev/stderr, /dev/fd/N: that open descriptor, at its offset.
/// Errors (exit 4, kExitOutputFailed) name the file, after `what` (e.g. "--plot: ").
void write_output_file(const std::string& path, const std::string& text,
                       const std::string& what = "");

/// write_output_file for an output the run can go on without: a failure prints its one
/// `iobench: error:` line, is remembered for the exit status (output_exit_status) and
/// returns false; an output that failed is not written again in this run (a file replaced
/// by rename keeps its last whole version; one written in place may be left truncated).
/// Other errors (an interrupt, a closed pipe) still throw.
bool write_output(const std::string& path, const std::string& text, const std::string& what);

/// Remembers that an output (stdout, stderr, a file) could not be written; `message`, when
/// not empty, is printed as one `iobench: error:` line.
void note_output_failure(const std::string& message);

/// status, or kExitOutputFailed when an output failed and status says nothing worse than
/// "checks failed" or "some strategies failed" (0, 1 or 3): a file a script relies on is
/// missing, which it must not mistake for a verdict.
int output_exit_status(int status);

}  // namespace iobench
