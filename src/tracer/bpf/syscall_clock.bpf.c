/* The kernel clock: times every traced syscall of one process tree from sys_enter to
 * sys_exit, in the kernel, and keeps per-syscall totals, a latency histogram and per-file
 * totals in maps user space reads once, after the tree is gone (tracer/bpf_clock.h).
 *
 * Raw tracepoints only: fentry/fexit, tp_btf and kprobes do not load on every kernel we run
 * on, raw_tracepoint does. Between the entry timestamp (the last thing sys_enter does) and
 * the exit timestamp (the first thing sys_exit does) there is no map update or delete: the
 * thread's in-flight slot is created once and reused, so the interval holds the call and the
 * tracepoint dispatch, not our bookkeeping. */
/* clang-format off: libbpf's headers use the types kernel_types.h defines, so it goes first. */
#include "kernel_types.h"
/* clang-format on */
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "clock_abi.h"

char LICENSE[] SEC("license") = "GPL"; /* bpf_probe_read_kernel is GPL-only */

/* Set by the loader before load: the verifier sees constants, the JIT folds them. */
const volatile __u8 syscall_flags[CLOCK_KEYS];
const volatile __s8 fd_arg[CLOCK_KEYS];    /* index of the fd among the args, -1 none */
const volatile __u8 hist_slot[CLOCK_KEYS]; /* 1 + the histogram's slot, 0 for none */

/* What the maps had no room for: user space says so, loudly (bpf_result.cc). */
struct clock_lost lost;

/* Set when iobench runs on borrowed capabilities (a non-root user's setcap'd binary): the
 * tree is followed only while it runs as that user, as ptrace could follow it. */
const volatile __u8 own_credentials_only;
const volatile __u32 own_uid;
const volatile __u32 own_gid;

/* iobench's PID namespace (the inode of /proc/self/ns/pid): every pid user space gives or
 * reads is a pid in it, as the kernel's global pids are not, in a container. */
const volatile __u32 pidns_inum;

/* The tree: the kernel's global tgid -> the same process's tgid in iobench's namespace. A
 * root joins at its first call (roots, below); fork adds children; the group's exit removes
 * them, so a recycled pid is not followed. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, CLOCK_MAX_PROCESSES);
  __type(key, __u32);
  __type(value, __u32);
} tracked SEC(".maps");

/* Roots user space asked to follow, by their tgid in its namespace, until their first call;
 * pending_roots counts them, so that no other task pays for the lookup while there are none. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 64);
  __type(key, __u32);
  __type(value, __u8);
} roots SEC(".maps");
__u32 pending_roots;

/* One per thread of the tree, reused call after call (no update inside the interval). */
struct inflight {
  __u64 start_ns;     /* 0 until the entry timestamp is taken */
  __u64 off_at;       /* when it left the CPU inside the call, 0 while on CPU */
  __u64 preempted_ns; /* preempted time inside this call: taken out */
  __u64 blocked_ns;   /* voluntarily off CPU (a real wait): kept in, reported apart */
  __u64 ino;
  __u64 tag;    /* clock_file_key.tag */
  __u64 file;   /* the struct file the fd named at entry: named once, at exit */
  __u64 own_ns; /* the enter program's own time, from its first timestamp to start_ns */
  __u32 dev;
  __u32 key;
  __s32 fd;
  __u32 fflags;      /* clock_file_key.flags */
  __u32 active;      /* between enter and exit of a traced call */
  __u32 off_preempt; /* off_at was a preemption, not a wait */
  __u64 waited_ns;   /* runnable but off CPU, in calls or not: the thread's wait for a CPU */
  __u64 waited_last; /* waited_ns at its last traced call's exit: none of its exit's waits */
  __u32 off_runnable; /* off_at left it runnable (preempted, in a call or in user space) */
  __u32 tgid;         /* its process's tgid in iobench's namespace, which the maps are keyed by */
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, CLOCK_MAX_THREADS);
  __type(key, __u32);
  __type(value, struct inflight);
} inflight SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, CLOCK_KEYS);
  __type(key, __u32);
  __type(value, struct clock_stat);
} stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, CLOCK_HIST_SLOTS);
  __type(key, __u32);
  __type(value, struct clock_hist);
} hists SEC(".maps");

/* Allocated as used: sized for the largest trees, costing memory only for what they hold. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, CLOCK_MAX_FILES);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, struct clock_file_key);
  __type(value, struct clock_file_stat);
} files SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, CLOCK_MAX_PROCESS_ROWS);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, struct clock_proc_key);
  __type(value, struct clock_proc_stat);
} procs SEC(".maps");

/* tgid -> the group leader's comm when the last thread exits (the name after any exec). */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, CLOCK_MAX_PROCESS_ROWS);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, __u32);
  __type(value, char[CLOCK_COMM_LEN]);
} comms SEC(".maps");

/* tgid -> its leader thread's inflight.waited_last when it exits: the time the main thread
 * of a run waited for a CPU from its first traced call to the end of its last, which user
 * space takes off the run's wall time ("% of time"). The waits before and after (a
 * preemption in exit) are left out: the run's time does not hold them. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, CLOCK_MAX_PROCESS_ROWS);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, __u32);
  __type(value, __u64);
} waits SEC(".maps");

/* tgid -> the last SIGINT generated for it (clock_sigint). */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 8192);
  __type(key, __u32);
  __type(value, struct clock_sigint);
} sigints SEC(".maps");

/* The number of significant bits of v, in arithmetic: clang 14 crashes on __builtin_clzll
 * when it targets BPF, and a branch per step doubles the paths the verifier walks at each
 * program load. Each step: s = k when v >= 2^k (v < 2^2k there), else 0. */
static __always_inline __u32 bit_width(__u64 v) {
  __u64 n = 0, s;
#define CLOCK_BIT_STEP(k)                                \
  s = (((v >> (k)) + ((1ull << (k)) - 1)) >> (k)) * (k); \
  v >>= s;                                               \
  n += s;
  CLOCK_BIT_STEP(32)
  CLOCK_BIT_STEP(16)
  CLOCK_BIT_STEP(8)
  CLOCK_BIT_STEP(4)
  CLOCK_BIT_STEP(2)
  CLOCK_BIT_STEP(1)
#undef CLOCK_BIT_STEP
  return (__u32)(n + v);
}

/* LatencyHistogram::bucket, the same arithmetic. */
static __always_inline __u32 bucket_of(__u64 ns) {
  const __u64 sub = 1ull << CLOCK_SUB_BITS;
  if (ns >= (1ull << CLOCK_MAX_BITS)) ns = (1ull << CLOCK_MAX_BITS) - 1;
  if (ns < 2 * sub) return (__u32)ns;
  const __u32 shift = bit_width(ns) - CLOCK_SUB_BITS - 1;
  return (__u32)(2 * sub + (shift - 1) * sub + ((ns >> shift) - sub));
}

/* The task's pid in iobench's namespace, 0 when it has none there: its pid's numbers run
 * from the root namespace's (0) down to its own (level), and iobench's is the one whose
 * namespace has pidns_inum. Rare (a fork, a root's first call, a signal): a loop is fine. */
static __always_inline __u32 pid_in_our_ns(struct task_struct* task) {
  struct pid* p = BPF_CORE_READ(task, thread_pid);
  if (!p) return 0;
  const unsigned int level = BPF_CORE_READ(p, level);
  for (unsigned int i = 0; i < CLOCK_PIDNS_DEPTH; ++i) {
    if (i > level) break;
    struct upid u = {};
    if (bpf_core_read(&u, sizeof(u), &p->numbers[i]) != 0) return 0;
    if (u.ns && BPF_CORE_READ(u.ns, ns.inum) == pidns_inum) return (__u32)u.nr;
  }
  return 0;
}

/* The process of the current task, if it is a root user space asked for: tracked from now
 * on. Returns its entry in tracked, or null. */
static __attribute__((noinline)) __u32* adopt_root(__u32 tgid) {
  struct task_struct* task = (struct task_struct*)bpf_get_current_task();
  __u32 ns_tgid = pid_in_our_ns(BPF_CORE_READ(task, group_leader));
  if (!ns_tgid || !bpf_map_lookup_elem(&roots, &ns_tgid)) return 0;
  if (bpf_map_delete_elem(&roots, &ns_tgid) == 0) __sync_fetch_and_add(&pending_roots, -1);
  if (bpf_map_update_elem(&tracked, &tgid, &ns_tgid, BPF_ANY) != 0)
    __sync_fetch_and_add(&lost.processes, 1);
  return bpf_map_lookup_elem(&tracked, &tgid);
}

static __always_inline bool in_compat_call(void) {
  struct task_struct* task = (struct task_struct*)bpf_get_current_task();
  return BPF_CORE_READ(task, thread_info.status) & CLOCK_TS_COMPAT;
}

/* Argument i of the call in flight: the native and the i386 ABIs pass them in other
 * registers. */
static __always_inline long syscall_arg(struct pt_regs* regs, int i, bool compat) {
  switch (i) {
    case 0:
      return compat ? BPF_CORE_READ(regs, bx) : BPF_CORE_READ(regs, di);
    case 1:
      return compat ? BPF_CORE_READ(regs, cx) : BPF_CORE_READ(regs, si);
    case 2:
      return BPF_CORE_READ(regs, dx);
    case 3:
      return compat ? BPF_CORE_READ(regs, si) : BPF_CORE_READ(regs, r10);
    case 4:
      return compat ? BPF_CORE_READ(regs, di) : BPF_CORE_READ(regs, r8);
    default:
      return compat ? BPF_CORE_READ(regs, bp) : BPF_CORE_READ(regs, r9);
  }
}

/* The inode behind fd in the current task, so the file is known after the process is gone. */
__attribute__((noinline)) int name_file(struct inflight* s, int fd) {
  if (!s) return 0; /* a global function's pointer may be null, to the verifier */
  struct task_struct* task = (struct task_struct*)bpf_get_current_task();
  struct fdtable* fdt = BPF_CORE_READ(task, files, fdt);
  s->ino = 0;
  s->dev = 0;
  s->tag = 0;
  s->file = 0;
  if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds)) return 0;
  struct file** fds = BPF_CORE_READ(fdt, fd);
  struct file* f = 0;
  bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
  if (!f) return 0;
  struct inode* inode = BPF_CORE_READ(f, f_inode);
  s->ino = BPF_CORE_READ(inode, i_ino);
  s->dev = BPF_CORE_READ(inode, i_sb, s_dev);
  s->file = (__u64)f;
  /* Anonymous inodes share one inode (eventfd, timerfd...): their name tells them apart. */
  if ((__u32)BPF_CORE_READ(inode, i_sb, s_magic) == CLOCK_ANON_MAGIC) {
    const unsigned char* name = BPF_CORE_READ(f, f_path.dentry, d_name.name);
    bpf_probe_read_kernel_str(&s->tag, sizeof(s->tag), name);
  }
  return 0;
}

#include "file_names.bpf.h"

static __always_inline struct inflight* slot_of(__u32 tid) {
  struct inflight* s = bpf_map_lookup_elem(&inflight, &tid);
  if (s) return s;
  struct inflight zero = {};
  bpf_map_update_elem(&inflight, &tid, &zero, BPF_NOEXIST); /* once per thread */
  return bpf_map_lookup_elem(&inflight, &tid);
}

/* Counts a call of the process at its entry (exit_group never returns); the rest at exit. */
static __always_inline void count_process(__u32 tgid, __u32 key) {
  struct clock_proc_key pk = {.tgid = tgid, .key = key};
  struct clock_proc_stat* ps = bpf_map_lookup_elem(&procs, &pk);
  if (!ps) {
    struct clock_proc_stat zero = {};
    bpf_map_update_elem(&procs, &pk, &zero, BPF_NOEXIST);
    ps = bpf_map_lookup_elem(&procs, &pk);
    if (!ps) {
      __sync_fetch_and_add(&lost.process_rows, 1);
      return;
    }
  }
  __sync_fetch_and_add(&ps->calls, 1);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(clock_enter, struct pt_regs* regs, long id) {
  const __u64 pid_tgid = bpf_get_current_pid_tgid();
  const __u32 global_tgid = pid_tgid >> 32;
  __u32* ours = bpf_map_lookup_elem(&tracked, &global_tgid);
  if (!ours) {
    if (!pending_roots) return 0;
    ours = adopt_root(global_tgid);
    if (!ours) return 0;
  }
  const __u32 tgid = *ours;
  if (id < 0 || id >= CLOCK_NR_PER_ABI) return 0;
  const bool compat = in_compat_call();
  const __u32 key = (__u32)id + (compat ? CLOCK_NR_PER_ABI : 0);
  if (key >= CLOCK_KEYS) return 0;
  const __u8 flags = syscall_flags[key];
  if (!(flags & CLOCK_TRACED)) return 0;
  const __u64 began = bpf_ktime_get_ns(); /* the program's own time starts (own_ns) */
  struct clock_stat* st = bpf_map_lookup_elem(&stats, &key);
  if (st) __sync_fetch_and_add(&st->calls, 1);
  count_process(tgid, key);
  struct inflight* s = slot_of((__u32)pid_tgid);
  if (!s) {
    __sync_fetch_and_add(&lost.threads, 1);
    return 0;
  }
  s->tgid = tgid;
  s->key = key;
  s->fd = -1;
  s->fflags = 0;
  if (flags & CLOCK_PER_FILE) {
    s->fd = (int)syscall_arg(regs, fd_arg[key & (CLOCK_KEYS - 1)], compat);
    name_file(s, s->fd);
    if (flags & CLOCK_RING_ENTER) ring_check(s, regs, compat);
  }
  s->start_ns = 0; /* a preemption before the timestamp is not this call's */
  s->off_at = 0;
  s->preempted_ns = 0;
  s->blocked_ns = 0;
  s->active = 1;
  const __u64 start = bpf_ktime_get_ns();
  s->own_ns = start - began;
  s->start_ns = start; /* last: nothing of ours after it but this store */
  return 0;
}

static __always_inline void add_file(struct inflight* s, __u32 tgid, long ret, __u64 ns,
                                     bool moves) {
  struct clock_file_key fk = {.ino = s->ino,
                              .tag = s->tag,
                              .dev = s->dev,
                              .tgid = tgid,
                              .fd = s->fd,
                              .key = s->key,
                              .flags = s->fflags};
  struct clock_file_stat* fs = bpf_map_lookup_elem(&files, &fk);
  if (!fs) {
    struct clock_file_stat zero = {};
    bpf_map_update_elem(&files, &fk, &zero, BPF_NOEXIST);
    fs = bpf_map_lookup_elem(&files, &fk);
    if (!fs) {
      __sync_fetch_and_add(&lost.file_calls, 1);
      return;
    }
    /* What the fd named at entry: the call holds a reference to it until it returns. */
    struct file* f = (struct file*)s->file;
    if (f) {
      fs->mode = BPF_CORE_READ(f, f_inode, i_mode);
      fs->rdev = BPF_CORE_READ(f, f_inode, i_rdev);
      fs->f_mode = BPF_CORE_READ(f, f_mode);
      fs->named = name_once(f, &fs->name);
    }
  }
  __sync_fetch_and_add(&fs->calls, 1);
  if (ret < 0) __sync_fetch_and_add(&fs->errors, 1);
  if (ret > 0 && moves) __sync_fetch_and_add(&fs->bytes, ret);
  __sync_fetch_and_add(&fs->total_ns, ns);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(clock_exit, struct pt_regs* regs, long ret) {
  const __u64 now = bpf_ktime_get_ns(); /* first: nothing of ours before it */
  const __u64 pid_tgid = bpf_get_current_pid_tgid();
  const __u32 tid = (__u32)pid_tgid;
  struct inflight* s = bpf_map_lookup_elem(&inflight, &tid);
  if (!s || !s->active) return 0;
  s->active = 0;
  const __u64 spent = now - s->start_ns;
  const __u64 ns = spent > s->preempted_ns ? spent - s->preempted_ns : 0;
  /* A mask, not a comparison: the verifier keeps a mask's bound across a spill. */
  const __u32 key = s->key & (CLOCK_KEYS - 1);
  const __u8 flags = syscall_flags[key];
  const bool moves = flags & CLOCK_MOVES_DATA;
  struct clock_stat* st = bpf_map_lookup_elem(&stats, &key);
  if (st) {
    __sync_fetch_and_add(&st->timed, 1);
    if (ret < 0) __sync_fetch_and_add(&st->errors, 1);
    if (ret > 0 && moves) __sync_fetch_and_add(&st->bytes, ret);
    __sync_fetch_and_add(&st->total_ns, ns);
    __sync_fetch_and_add(&st->preempted_ns, s->preempted_ns);
    __sync_fetch_and_add(&st->blocked_ns, s->blocked_ns);
  }
  struct clock_proc_key pk = {.tgid = s->tgid, .key = key};
  struct clock_proc_stat* ps = bpf_map_lookup_elem(&procs, &pk);
  if (ps) {
    __sync_fetch_and_add(&ps->timed, 1);
    if (ret < 0) __sync_fetch_and_add(&ps->errors, 1);
    if (ret > 0 && moves) __sync_fetch_and_add(&ps->bytes, ret);
    __sync_fetch_and_add(&ps->total_ns, ns);
  }
  const __u32 slot = hist_slot[key & (CLOCK_KEYS - 1)];
  if (slot > 0 && slot <= CLOCK_HIST_SLOTS) {
    const __u32 index = slot - 1;
    struct clock_hist* h = bpf_map_lookup_elem(&hists, &index);
    __u64 b = bucket_of(ns);
    /* The bound in the very register that indexes: clang 14 checks a 32-bit copy otherwise,
     * and the verifier does not carry the bound over. */
    asm volatile("if %[b] < %[top] goto +1\n\t%[b] = %[top]"
                 : [b] "+r"(b)
                 : [top] "i"(CLOCK_BUCKETS - 1));
    if (h) __sync_fetch_and_add(&h->buckets[b], 1);
  }
  if (flags & CLOCK_PER_FILE) add_file(s, s->tgid, ret, ns, moves);
  s->waited_last = s->waited_ns;
  /* The programs' own time for this call, enter's and ours: taken off the run's time in user
   * space, so that "% of time" rests on what tracing cost this run, not another stretch. */
  if (st) __sync_fetch_and_add(&st->own_ns, s->own_ns + (bpf_ktime_get_ns() - now));
  return 0;
}

/* Preempted time is taken out of the call it interrupts; a voluntary sleep (a real wait in
 * the kernel) is the call's own time and stays in, counted apart so that user space can
 * also tell the call's time on CPU. */
SEC("raw_tp/sched_switch")
int BPF_PROG(clock_switch, bool preempt, struct task_struct* prev, struct task_struct* next,
             unsigned int prev_state) {
  __u64 now = 0;
  const __u32 prev_pid = BPF_CORE_READ(prev, pid);
  struct inflight* out = bpf_map_lookup_elem(&inflight, &prev_pid);
  /* Still runnable (state 0): preempted at a return to user space has preempt false. */
  const bool runnable = preempt || prev_state == 0;
  if (out && ((out->active && out->start_ns) || runnable)) {
    now = bpf_ktime_get_ns();
    out->off_at = now;
    out->off_preempt = preempt;
    out->off_runnable = runnable;
  }
  const __u32 next_pid = BPF_CORE_READ(next, pid);
  struct inflight* s = bpf_map_lookup_elem(&inflight, &next_pid);
  if (s && s->off_at) {
    if (!now) now = bpf_ktime_get_ns();
    const __u64 off = now - s->off_at;
    if (s->active && s->start_ns) {
      if (s->off_preempt)
        s->preempted_ns += off;
      else
        s->blocked_ns += off;
    }
    if (s->off_runnable) s->waited_ns += off;
    s->off_at = 0;
  }
  return 0;
}

/* Fires in the parent before the child first runs: the child is tracked before it can make
 * a call. A new thread has the parent's tgid, already tracked. */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(clock_fork, struct task_struct* parent, struct task_struct* child) {
  const __u32 parent_tgid = BPF_CORE_READ(parent, tgid);
  if (!bpf_map_lookup_elem(&tracked, &parent_tgid)) return 0;
  const __u32 child_tgid = BPF_CORE_READ(child, tgid);
  if (child_tgid == parent_tgid) return 0; /* a thread: its process is tracked */
  /* A new process leads its group: its own pid is its tgid. A child's namespace lies at or
   * below its parent's, so it has a pid in ours. */
  const __u32 ns_tgid = pid_in_our_ns(child);
  if (!ns_tgid || bpf_map_update_elem(&tracked, &child_tgid, &ns_tgid, BPF_ANY) != 0)
    __sync_fetch_and_add(&lost.processes, 1);
  return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(clock_exit_task, struct task_struct* task) {
  const __u32 global_tgid = BPF_CORE_READ(task, tgid);
  const __u32* ours = bpf_map_lookup_elem(&tracked, &global_tgid);
  if (!ours) return 0;
  const __u32 tgid = *ours;
  const __u32 tid = BPF_CORE_READ(task, pid);
  if (tid == global_tgid) {
    const struct inflight* s = bpf_map_lookup_elem(&inflight, &tid);
    if (s) bpf_map_update_elem(&waits, &tgid, &s->waited_last, BPF_ANY);
  }
  bpf_map_delete_elem(&inflight, &tid);
  /* do_exit decrements signal->live before this tracepoint: 0 means the last thread. */
  if (BPF_CORE_READ(task, signal, live.counter) == 0) {
    char comm[CLOCK_COMM_LEN] = {};
    BPF_CORE_READ_STR_INTO(&comm, task, group_leader, comm);
    bpf_map_update_elem(&comms, &tgid, &comm, BPF_ANY);
    bpf_map_delete_elem(&tracked, &global_tgid);
  }
  return 0;
}

/* Processes left when they exec'd with credentials other than the user's: tgid in iobench's
 * namespace -> their comm then (the program's name), for the warning that says so. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u32);
  __type(value, char[CLOCK_COMM_LEN]);
} privileged SEC(".maps");

/* Whether the task runs as the user iobench runs for, as ptrace would ask before attaching:
 * the same uids and gids all through, and no capability of its own. */
static __always_inline bool own_credentials(struct task_struct* task) {
  const struct cred* c = BPF_CORE_READ(task, cred);
  __u64 caps = 0;
  bpf_probe_read_kernel(&caps, sizeof(caps), &c->cap_permitted);
  return BPF_CORE_READ(c, uid.val) == own_uid && BPF_CORE_READ(c, euid.val) == own_uid &&
         BPF_CORE_READ(c, suid.val) == own_uid && BPF_CORE_READ(c, fsuid.val) == own_uid &&
         BPF_CORE_READ(c, gid.val) == own_gid && BPF_CORE_READ(c, egid.val) == own_gid &&
         BPF_CORE_READ(c, sgid.val) == own_gid && BPF_CORE_READ(c, fsgid.val) == own_gid &&
         caps == 0;
}

/* After an exec has committed the new program's credentials (a setuid or file-capability
 * binary): on borrowed capabilities, a process that no longer runs as the user is left, with
 * everything it starts; nothing it does from here on is seen. */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(clock_exec, struct task_struct* task, int old_pid, void* bprm) {
  if (!own_credentials_only) return 0;
  const __u32 global_tgid = BPF_CORE_READ(task, tgid);
  const __u32* ours = bpf_map_lookup_elem(&tracked, &global_tgid);
  if (!ours || own_credentials(task)) return 0;
  const __u32 tgid = *ours;
  char comm[CLOCK_COMM_LEN] = {};
  BPF_CORE_READ_STR_INTO(&comm, task, comm);
  bpf_map_update_elem(&privileged, &tgid, &comm, BPF_ANY);
  __sync_fetch_and_add(&lost.privileged, 1);
  const __u32 tid = BPF_CORE_READ(task, pid);
  bpf_map_delete_elem(&inflight, &tid); /* exec left it the only thread */
  bpf_map_delete_elem(&tracked, &global_tgid);
  return 0;
}

/* Who sent a SIGINT to a process of the tree (the kernel's SEND_SIG_NOINFO, 0, is a
 * kill(2)-like SI_USER from the current task; SEND_SIG_PRIV, 1, the kernel's own: a
 * terminal's Ctrl-C). Signals are rare: this costs the syscalls nothing. */
SEC("raw_tp/signal_generate")
int BPF_PROG(clock_signal, int sig, struct kernel_siginfo* info, struct task_struct* task,
             int group, int result) {
  if (sig != CLOCK_SIGINT) return 0;
  const __u32 global_tgid = BPF_CORE_READ(task, tgid);
  const __u32* ours = bpf_map_lookup_elem(&tracked, &global_tgid);
  if (!ours) return 0;
  const __u32 tgid = *ours;
  struct clock_sigint last = {};
  struct clock_sigint* old = bpf_map_lookup_elem(&sigints, &tgid);
  if (old) last.count = old->count;
  last.count += 1;
  if ((unsigned long)info == 0) {
    last.code = CLOCK_SI_USER;
    struct task_struct* sender = (struct task_struct*)bpf_get_current_task();
    last.pid = pid_in_our_ns(BPF_CORE_READ(sender, group_leader));
  } else if ((unsigned long)info == 1) {
    last.code = CLOCK_SI_KERNEL;
    last.pid = 0;
  } else {
    last.code = BPF_CORE_READ(info, si_code);
    last.pid = BPF_CORE_READ(info, _sifields._kill._pid);
  }
  bpf_map_update_elem(&sigints, &tgid, &last, BPF_ANY);
  return 0;
}
