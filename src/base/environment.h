// The environment the user gave iobench. A binary with file capabilities (README "Kernel times
// without root") runs in glibc's secure mode, whose loader strips LD_LIBRARY_PATH, TMPDIR,
// TZDIR and the like from environ before main; the kernel keeps the strings as they were
// passed (/proc/self/environ). A traced or compared command gets them back, as it would
// untraced, and iobench's own defaults ($TMPDIR for --dir) read them.
#pragma once

namespace iobench {

/// First thing in main: in secure mode, reads the original environment once. A no-op
/// otherwise (environ is then the user's).
void keep_user_environment();

/// The user's environment, for execve: the original in secure mode, else environ.
char* const* user_environment() noexcept;

/// getenv over user_environment().
const char* user_getenv(const char* name) noexcept;

}  // namespace iobench
