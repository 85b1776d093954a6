#include "tracer/untraced_clone.h"

#include <elf.h>
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include <cstddef>
#include <optional>

#include "tracer/task_info.h"

namespace iobench::tracing {

namespace {

bool clear_in_register(pid_t tid, CloneFlagsAt where) noexcept {
#if defined(__x86_64__)
  if (where == CloneFlagsAt::kRegisterI386) {
    // GETREGS, not GETREGSET: the regset is laid out as the tracee's view (a 32-bit
    // binary's is user_regs_struct32), GETREGS as the tracer's, with ebx in rbx either way.
    user_regs_struct regs{};
    if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return false;
    regs.rbx &= ~static_cast<unsigned long long>(CLONE_UNTRACED);
    return ::ptrace(PTRACE_SETREGS, tid, nullptr, &regs) == 0;
  }
#endif
#if defined(__x86_64__) || defined(__aarch64__)
  user_regs_struct regs{};
  iovec iov{&regs, sizeof(regs)};
  // NT_PRSTATUS: the general registers, the same request on both architectures.
  if (::ptrace(PTRACE_GETREGSET, tid, NT_PRSTATUS, &iov) != 0) return false;
#if defined(__x86_64__)
  regs.rdi &= ~static_cast<unsigned long long>(CLONE_UNTRACED);
#else
  (void)where;
  regs.regs[0] &= ~static_cast<unsigned long long>(CLONE_UNTRACED);
#endif
  return ::ptrace(PTRACE_SETREGSET, tid, NT_PRSTATUS, &iov) == 0;
#else
  (void)tid;
  (void)where;
  return false;
#endif
}

bool clear_in_memory(pid_t tid, std::uint64_t clone_args, std::uint64_t size) noexcept {
  if (size < sizeof(std::uint64_t)) return true;  // the kernel refuses it (EINVAL) anyway
  const std::optional<std::uint64_t> flags = peek_word(tid, clone_args);
  if (!flags) return true;  // unreadable: the kernel fails the call with EFAULT
  if ((*flags & CLONE_UNTRACED) == 0) return true;
  const std::uint64_t cleared = *flags & ~static_cast<std::uint64_t>(CLONE_UNTRACED);
  // POKE rather than process_vm_writev: it writes even read-only pages (FOLL_FORCE).
  // NOLINTBEGIN(performance-no-int-to-ptr): a tracee address, and the word in a pointer.
  return ::ptrace(PTRACE_POKEDATA, tid, reinterpret_cast<void*>(clone_args),
                  reinterpret_cast<void*>(cleared)) == 0;
  // NOLINTEND(performance-no-int-to-ptr)
}

}  // namespace

void keep_clone_traced(pid_t tid, CloneFlagsAt where, const std::uint64_t* args) noexcept {
  const bool in_register = where == CloneFlagsAt::kRegister || where == CloneFlagsAt::kRegisterI386;
  if (in_register && (args[0] & CLONE_UNTRACED) != 0) {
    clear_in_register(tid, where);
  } else if (where == CloneFlagsAt::kMemory) {
    clear_in_memory(tid, args[0], args[1]);
  }
}

}  // namespace iobench::tracing
