#include "tracer/seccomp_filter.h"

#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <memory>

#include "base/error.h"
#include "base/unique_fd.h"
#include "tracer/syscalls.h"
#include "tracer/untraced_clone.h"

namespace iobench::tracing {

namespace {

struct CtxDeleter {
  void operator()(void* ctx) const { ::seccomp_release(ctx); }
};
using Ctx = std::unique_ptr<void, CtxDeleter>;

void check(int rc, const char* what) {
  if (rc < 0) throw_errno(what, -rc);  // libseccomp returns -errno
}

/// Stops where a child could escape the tracer with CLONE_UNTRACED (untraced_clone.h):
/// clone only when the flag is set, so fork and pthread_create on clone pay nothing; clone3
/// always, since BPF cannot read the struct that holds its flags.
void add_clone_rules(scmp_filter_ctx ctx) {
  if (!kCanKeepClonesTraced) return;
  const int clone_nr = ::seccomp_syscall_resolve_name("clone");
  if (clone_nr >= 0) {
    check(::seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), clone_nr, 1,
                             SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_UNTRACED, CLONE_UNTRACED)),
          "seccomp_rule_add");
  }
  const int clone3_nr = ::seccomp_syscall_resolve_name("clone3");
  if (clone3_nr >= 0) {
    check(::seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), clone3_nr, 0), "seccomp_rule_add");
  }
}

/// Stops where the program loads a seccomp filter of its own, which could answer the
/// tracer's probe before ours stops it (probe.h, session.cc).
void add_filter_load_rules(scmp_filter_ctx ctx) {
  const int seccomp_nr = ::seccomp_syscall_resolve_name("seccomp");
  if (seccomp_nr >= 0) {
    check(::seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), seccomp_nr, 1,
                             SCMP_A0(SCMP_CMP_EQ, SECCOMP_SET_MODE_FILTER)),
          "seccomp_rule_add");
  }
  const int prctl_nr = ::seccomp_syscall_resolve_name("prctl");
  if (prctl_nr >= 0) {
    check(::seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), prctl_nr, 1,
                             SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP)),
          "seccomp_rule_add");
  }
}

/// Makes every rule added after this cover each ABI the tracer decodes (syscalls.h): libseccomp
/// translates a rule's syscall to each ABI's number by name. Without this the filter treats
/// an i386 call (int $0x80, a 32-bit binary) as of a foreign ABI and lets it through
/// unstopped, so it was never counted.
void add_decoded_abis(scmp_filter_ctx ctx) {
  for (const SyscallAbi& abi : syscall_abis()) {
    const int rc = ::seccomp_arch_add(ctx, abi.arch);
    if (rc != -EEXIST) check(rc, "seccomp_arch_add");  // the native ABI is there already
  }
}

/// A tracee must not trap its tracer: one that attached to iobench would stop it at its next
/// signal, and each would wait for the other for ever. So ptrace naming iobench's pid fails
/// with EPERM, for root too (PR_SET_DUMPABLE would stop only callers without
/// CAP_SYS_PTRACE). PTRACE_TRACEME names no pid and is let through. The kernel reads the pid
/// as a 32-bit pid_t: the bits above are masked off, so they cannot smuggle the pid past us.
/// PTRACE_TRACEME, PTRACE_ATTACH and PTRACE_SEIZE also stop: the kernel refuses them for a
/// process iobench traces already, and the tracer says so (session_signals.cc).
void add_ptrace_guard_rule(scmp_filter_ctx ctx, pid_t tracer) {
  const int ptrace_nr = ::seccomp_syscall_resolve_name("ptrace");
  if (ptrace_nr < 0) return;
  check(::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), ptrace_nr, 2,
                           SCMP_A0(SCMP_CMP_NE, PTRACE_TRACEME),
                           SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU,
                                   static_cast<scmp_datum_t>(static_cast<std::uint32_t>(tracer)))),
        "seccomp_rule_add");
  // An attach to one of iobench's other threads (created after the filter) stops, so that
  // the tracer can refuse it too (session_signals.cc), and so does PTRACE_TRACEME, which the
  // kernel refuses a process traced already. Under --trace-all every call stops already
  // (and libseccomp refuses a rule that repeats the default).
  std::uint32_t default_action = 0;
  check(::seccomp_attr_get(ctx, SCMP_FLTATR_ACT_DEFAULT, &default_action), "seccomp_attr_get");
  if (default_action == SCMP_ACT_TRACE(0)) return;
  for (const long request : {PTRACE_ATTACH, PTRACE_SEIZE, PTRACE_TRACEME}) {
    check(::seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), ptrace_nr, 1,
                             SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(request))),
          "seccomp_rule_add");
  }
}

}  // namespace

SeccompFilter::SeccompFilter(const std::vector<int>& traced, bool trace_all,
                             int untraced_write_fd) {
  const int write_nr = ::seccomp_syscall_resolve_name("write");
  Ctx ctx(::seccomp_init(trace_all ? SCMP_ACT_TRACE(0) : SCMP_ACT_ALLOW));
  if (!ctx) throw Error("seccomp_init failed");
  // A call of an ABI the tracer does not decode (x32, which this tracer's kernels do not
  // offer) is let through untraced rather than killed: we must not change what the program does.
  check(::seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW), "seccomp_attr_set");
  add_decoded_abis(ctx.get());
  if (!trace_all) {
    for (int nr : traced) {
      if (nr == write_nr && untraced_write_fd >= 0) {
        check(
            ::seccomp_rule_add(ctx.get(), SCMP_ACT_TRACE(0), nr, 1,
                               SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(untraced_write_fd))),
            "seccomp_rule_add");
      } else {
        check(::seccomp_rule_add(ctx.get(), SCMP_ACT_TRACE(0), nr, 0), "seccomp_rule_add");
      }
    }
    add_clone_rules(ctx.get());
    add_filter_load_rules(ctx.get());
  } else if (untraced_write_fd >= 0) {
    check(::seccomp_rule_add(ctx.get(), SCMP_ACT_ALLOW, write_nr, 1,
                             SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(untraced_write_fd))),
          "seccomp_rule_add");
  }
  add_ptrace_guard_rule(ctx.get(), ::getpid());  // the process that builds it is the tracer

  // libseccomp 2.5 can only export to an fd; a memfd keeps the program off the filesystem.
  UniqueFd fd(::memfd_create("iobench-seccomp", MFD_CLOEXEC));
  if (!fd) throw_errno("memfd_create", errno);
  check(::seccomp_export_bpf(ctx.get(), fd.get()), "seccomp_export_bpf");
  const off_t size = ::lseek(fd.get(), 0, SEEK_END);
  if (size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0) {
    throw Error("seccomp_export_bpf produced a malformed program");
  }
  program_.resize(static_cast<std::size_t>(size) / sizeof(sock_filter));
  if (::pread(fd.get(), program_.data(), static_cast<std::size_t>(size), 0) != size) {
    throw_errno("reading the seccomp program", errno);
  }
  fprog_.len = static_cast<unsigned short>(program_.size());
  fprog_.filter = program_.data();
}

int SeccompFilter::load(bool& set_no_new_privs) const noexcept {
  set_no_new_privs = false;
  const int err = install();
  // EACCES: no CAP_SYS_ADMIN, and the kernel accepts a filter only from a task that can no
  // longer gain privileges. Set only then: root keeps what setuid programs do untraced.
  if (err != EACCES || ::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1) return err;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  set_no_new_privs = true;
  return install();
}

int SeccompFilter::install() const noexcept {
  // SPEC_ALLOW: on kernels whose default is spec_store_bypass_disable=seccomp, a filter
  // would otherwise switch on SSBD and slow the very code we measure.
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, &fprog_) ==
      0) {
    return 0;
  }
  if (errno != EINVAL) return errno;
  // Kernels before 4.17 know no SPEC_ALLOW flag.
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog_, 0, 0) == 0) return 0;
  return errno;
}

}  // namespace iobench::tracing
