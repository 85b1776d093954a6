/* The kernel clock: times every traced syscall of one process tree from sys_enter to
 * sys_exit, in the kernel, and keeps per-syscall totals, a latency histogram and per-file
 * and per-process totals in maps user space reads once, after the tree is gone
 * (tracer/bpf_clock.h).
 *
 * Raw tracepoints only: fentry/fexit, tp_btf and kprobes do not load on every kernel we run
 * on, raw_tracepoint does. The per-call path is kept short, as every traced call pays it
 * (docs/how-it-measures.md "What the kernel clock costs"): one lookup finds the thread's
 * slot, which says both that the task is traced and where its state is; the per-CPU tables
 * take plain adds; a thread's file and process rows are summed in its slot and added to the
 * shared tables only when it moves to another row or exits. Between the entry timestamp (the
 * last thing sys_enter does) and the exit timestamp (the first thing sys_exit does) there is
 * no map update: the interval holds the call and the tracepoint dispatch, not our
 * bookkeeping. */
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

/* The threads of the tree (clock_abi.h): the one lookup every syscall of every task makes. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, CLOCK_MAX_THREADS);
  __uint(map_flags, BPF_F_NO_PREALLOC); /* a slot is made at a fork, not inside a call */
  __type(key, __u32);
  __type(value, struct clock_thread);
} threads SEC(".maps");

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

/* tgid -> its leader thread's waited_last when it exits: the time the main thread of a run
 * waited for a CPU from its first call to the end of its last traced one, which user
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

/* A slot for a thread of the tree; null when threads is full (the thread is not followed,
 * and the report says its counts are incomplete). */
static __always_inline struct clock_thread* new_thread(__u32 tid, __u32 global_tgid,
                                                       __u32 tgid) {
  struct clock_thread fresh = {.global_tgid = global_tgid, .tgid = tgid};
  if (bpf_map_update_elem(&threads, &tid, &fresh, BPF_ANY) != 0) {
    __sync_fetch_and_add(&lost.threads, 1);
    return 0;
  }
  return bpf_map_lookup_elem(&threads, &tid);
}

/* The process of the current task, if it is a root user space asked for: tracked from now
 * on, and the current thread given its slot. A root is a process iobench just forked, with
 * one thread; the threads it starts get theirs at their fork. */
static __attribute__((noinline)) struct clock_thread* adopt_root(__u64 pid_tgid) {
  struct task_struct* task = (struct task_struct*)bpf_get_current_task();
  __u32 ns_tgid = pid_in_our_ns(BPF_CORE_READ(task, group_leader));
  if (!ns_tgid || !bpf_map_lookup_elem(&roots, &ns_tgid)) return 0;
  if (bpf_map_delete_elem(&roots, &ns_tgid) == 0) __sync_fetch_and_add(&pending_roots, -1);
  const __u32 tgid = pid_tgid >> 32;
  if (bpf_map_update_elem(&tracked, &tgid, &ns_tgid, BPF_ANY) != 0) {
    __sync_fetch_and_add(&lost.processes, 1);
    return 0;
  }
  return new_thread((__u32)pid_tgid, tgid, ns_tgid);
}

/* Linux 6.2's: a kernel pointer read through its BTF type, with plain loads the JIT guards,
 * instead of one bpf_probe_read_kernel (a helper call, ~30 ns here) per field. Weak: where
 * the kernel lacks it, the loader leaves the programs that use it out (direct_reads). */
extern void* bpf_rdonly_cast(const void* obj, __u32 btf_id) __ksym __weak;

static __always_inline bool in_compat_call(bool direct) {
  if (direct) return bpf_get_current_task_btf()->thread_info.status & CLOCK_TS_COMPAT;
  struct task_struct* task = (struct task_struct*)bpf_get_current_task();
  return BPF_CORE_READ(task, thread_info.status) & CLOCK_TS_COMPAT;
}

/* Argument i of the call in flight: the native and the i386 ABIs pass them in other
 * registers. */
#define CLOCK_SYSCALL_ARG(regs, i, compat, READ)              \
  ({                                                          \
    long arg_;                                                \
    switch (i) {                                              \
      case 0:                                                 \
        arg_ = compat ? READ(regs, bx) : READ(regs, di);      \
        break;                                                \
      case 1:                                                 \
        arg_ = compat ? READ(regs, cx) : READ(regs, si);      \
        break;                                                \
      case 2:                                                 \
        arg_ = READ(regs, dx);                                \
        break;                                                \
      case 3:                                                 \
        arg_ = compat ? READ(regs, si) : READ(regs, r10);     \
        break;                                                \
      case 4:                                                 \
        arg_ = compat ? READ(regs, di) : READ(regs, r8);      \
        break;                                                \
      default:                                                \
        arg_ = compat ? READ(regs, bp) : READ(regs, r9);      \
    }                                                         \
    arg_;                                                     \
  })
#define CLOCK_LOAD(p, field) ((p)->field)

static __always_inline long syscall_arg(struct pt_regs* regs, int i, bool compat, bool direct) {
  if (direct) {
    struct pt_regs* r = bpf_rdonly_cast(regs, bpf_core_type_id_kernel(struct pt_regs));
    return CLOCK_SYSCALL_ARG(r, i, compat, CLOCK_LOAD);
  }
  return CLOCK_SYSCALL_ARG(regs, i, compat, BPF_CORE_READ);
}

/* The inode behind fd in the current task, so the file is known after the process is gone:
 * a walk from the task through its fd table to the file, its inode and its superblock. */
static __always_inline void clear_file(struct clock_thread* s) {
  s->ino = 0;
  s->dev = 0;
  s->tag = 0;
  s->filp = 0;
}

/* Anonymous inodes share one inode (eventfd, timerfd...): their name tells them apart. */
static __always_inline void tag_anon(struct clock_thread* s, struct file* f) {
  const unsigned char* name = BPF_CORE_READ(f, f_path.dentry, d_name.name);
  bpf_probe_read_kernel_str(&s->tag, sizeof(s->tag), name);
}

/* The walk with plain loads (bpf_rdonly_cast): what a call pays for its file. */
__attribute__((noinline)) int name_file_direct(struct clock_thread* s, int fd) {
  if (!s) return 0; /* a global function's pointer may be null, to the verifier */
  clear_file(s);
  struct files_struct* files = bpf_get_current_task_btf()->files;
  if (!files) return 0;
  struct fdtable* fdt = files->fdt;
  if (!fdt || fd < 0 || (unsigned int)fd >= fdt->max_fds) return 0;
  struct file** fds = fdt->fd;
  struct file* raw = 0;
  bpf_probe_read_kernel(&raw, sizeof(raw), &fds[fd]); /* an index: no plain load does it */
  if (!raw) return 0;
  struct file* f = bpf_rdonly_cast(raw, bpf_core_type_id_kernel(struct file));
  struct inode* inode = f->f_inode;
  struct super_block* sb = inode ? inode->i_sb : 0;
  if (!sb) return 0;
  s->ino = inode->i_ino;
  s->dev = sb->s_dev;
  s->filp = (__u64)raw;
  if ((__u32)sb->s_magic == CLOCK_ANON_MAGIC) tag_anon(s, raw);
  return 0;
}

/* The same walk one bpf_probe_read_kernel per field, where the kernel has no bpf_rdonly_cast. */
__attribute__((noinline)) int name_file(struct clock_thread* s, int fd) {
  if (!s) return 0;
  clear_file(s);
  struct task_struct* task = (struct task_struct*)bpf_get_current_task();
  struct fdtable* fdt = BPF_CORE_READ(task, files, fdt);
  if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds)) return 0;
  struct file** fds = BPF_CORE_READ(fdt, fd);
  struct file* f = 0;
  bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
  if (!f) return 0;
  struct inode* inode = BPF_CORE_READ(f, f_inode);
  struct super_block* sb = BPF_CORE_READ(inode, i_sb);
  s->ino = BPF_CORE_READ(inode, i_ino);
  s->dev = BPF_CORE_READ(sb, s_dev);
  s->filp = (__u64)f;
  if ((__u32)BPF_CORE_READ(sb, s_magic) == CLOCK_ANON_MAGIC) tag_anon(s, f);
  return 0;
}

#include "file_names.bpf.h"

#include "thread_rows.bpf.h"

/* sys_enter's work; `direct` a constant, so each program below holds one walk only. */
static __always_inline int enter(struct pt_regs* regs, long id, bool direct) {
  const __u64 pid_tgid = bpf_get_current_pid_tgid();
  const __u32 tid = (__u32)pid_tgid;
  struct clock_thread* s = bpf_map_lookup_elem(&threads, &tid);
  if (!s) {
    if (!pending_roots) return 0;
    s = adopt_root(pid_tgid);
    if (!s) return 0;
  }
  if (id < 0 || id >= CLOCK_NR_PER_ABI) return 0;
  const bool compat = in_compat_call(direct);
  const __u32 key = (__u32)id + (compat ? CLOCK_NR_PER_ABI : 0);
  if (key >= CLOCK_KEYS) return 0;
  const __u8 flags = syscall_flags[key];
  if (!(flags & CLOCK_TRACED)) return 0;
  /* The program's own time starts (own_ns), in one call in CLOCK_OWN_EVERY, drawn from the
   * last call's timestamp (its low bits are noise): a fixed stride would alias with a
   * program's own pattern of calls. Never a thread's first, whose cold start is no call's
   * steady cost and would weigh CLOCK_OWN_EVERY times. */
  const bool sampled =
      s->start_ns && (s->start_ns * 0x9E3779B97F4A7C15ull) >> 60 < 16 / CLOCK_OWN_EVERY;
  const __u64 began = sampled ? bpf_ktime_get_ns() : 0;
  /* Per CPU, and a program runs to its end on its CPU: plain adds. */
  struct clock_stat* st = bpf_map_lookup_elem(&stats, &key);
  if (st) st->calls += 1;
  if (s->proc.key.key != key || !s->proc.row) switch_proc_row(s, key);
  if (s->proc.row)
    s->proc.sums.calls += 1; /* its own slot: only this thread writes it */
  else
    __sync_fetch_and_add(&lost.process_rows, 1);
  s->key = key;
  s->fd = -1;
  s->fflags = 0;
  if (flags & CLOCK_PER_FILE) {
    s->fd = (int)syscall_arg(regs, fd_arg[key & (CLOCK_KEYS - 1)], compat, direct);
    if (direct)
      name_file_direct(s, s->fd);
    else
      name_file(s, s->fd);
    if (flags & CLOCK_RING_ENTER) ring_check(s, regs, compat, direct);
  }
  s->start_ns = 0; /* a preemption before the timestamp is not this call's */
  s->off_at = 0;
  s->preempted_ns = 0;
  s->blocked_ns = 0;
  s->active = 1;
  const __u64 start = bpf_ktime_get_ns();
  s->own_ns = sampled ? start - began : 0;
  s->start_ns = start; /* last: nothing of ours after it but this store */
  return 0;
}

/* One of the two is loaded (BpfLoader::load): the first where the kernel has
 * bpf_rdonly_cast. */
SEC("raw_tp/sys_enter")
int BPF_PROG(clock_enter, struct pt_regs* regs, long id) { return enter(regs, id, true); }

SEC("raw_tp/sys_enter")
int BPF_PROG(clock_enter_probed, struct pt_regs* regs, long id) {
  return enter(regs, id, false);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(clock_exit, struct pt_regs* regs, long ret) {
  const __u64 now = bpf_ktime_get_ns(); /* first: nothing of ours before it */
  const __u32 tid = (__u32)bpf_get_current_pid_tgid();
  struct clock_thread* s = bpf_map_lookup_elem(&threads, &tid);
  if (!s || !s->active) return 0;
  s->active = 0;
  const __u64 spent = now - s->start_ns;
  const __u64 ns = spent > s->preempted_ns ? spent - s->preempted_ns : 0;
  /* A mask, not a comparison: the verifier keeps a mask's bound across a spill. */
  const __u32 key = s->key & (CLOCK_KEYS - 1);
  const __u8 flags = syscall_flags[key];
  const bool moves = flags & CLOCK_MOVES_DATA;
  const __u64 moved = ret > 0 && moves ? (__u64)ret : 0;
  const __u64 failed = ret < 0 ? 1 : 0;
  struct clock_stat* st = bpf_map_lookup_elem(&stats, &key);
  if (st) {
    st->timed += 1;
    st->errors += failed;
    st->bytes += moved;
    st->total_ns += ns;
    st->preempted_ns += s->preempted_ns;
    st->blocked_ns += s->blocked_ns;
  }
  if (s->proc.row) {
    s->proc.sums.timed += 1;
    s->proc.sums.errors += failed;
    s->proc.sums.bytes += moved;
    s->proc.sums.total_ns += ns;
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
    if (h) h->buckets[b] += 1;
  }
  if (flags & CLOCK_PER_FILE) {
    if (!same_file_row(s)) switch_file_row(s);
    if (s->file.row) {
      s->file.calls += 1;
      s->file.errors += failed;
      s->file.bytes += moved;
      s->file.total_ns += ns;
    } else {
      __sync_fetch_and_add(&lost.file_calls, 1);
    }
  }
  s->waited_last = s->waited_ns;
  /* The programs' own time for this call, enter's and ours: taken off the run's time in user
   * space, so that "% of time" rests on what tracing cost this run, not another stretch. */
  if (st && s->own_ns) {
    st->own_ns += s->own_ns + (bpf_ktime_get_ns() - now);
    st->own_samples += 1;
  }
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
  struct clock_thread* out = bpf_map_lookup_elem(&threads, &prev_pid);
  /* Still runnable (state 0): preempted at a return to user space has preempt false. */
  const bool runnable = preempt || prev_state == 0;
  if (out && ((out->active && out->start_ns) || runnable)) {
    now = bpf_ktime_get_ns();
    out->off_at = now;
    out->off_preempt = preempt;
    out->off_runnable = runnable;
  }
  const __u32 next_pid = BPF_CORE_READ(next, pid);
  struct clock_thread* s = bpf_map_lookup_elem(&threads, &next_pid);
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

/* Fires in the parent (the current task) before the child first runs: the child, a thread
 * or a process, has its slot before it can make a call. */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(clock_fork, struct task_struct* parent, struct task_struct* child) {
  const __u32 parent_tid = (__u32)bpf_get_current_pid_tgid();
  const struct clock_thread* p = bpf_map_lookup_elem(&threads, &parent_tid);
  if (!p) return 0;
  const __u32 parent_tgid = p->global_tgid;
  __u32 ns_tgid = p->tgid;
  const __u32 child_tgid = BPF_CORE_READ(child, tgid);
  if (child_tgid != parent_tgid) {
    /* A new process leads its group: its own pid is its tgid. A child's namespace lies at
     * or below its parent's, so it has a pid in ours. */
    ns_tgid = pid_in_our_ns(child);
    if (!ns_tgid || bpf_map_update_elem(&tracked, &child_tgid, &ns_tgid, BPF_ANY) != 0) {
      __sync_fetch_and_add(&lost.processes, 1);
      return 0;
    }
  }
  new_thread(BPF_CORE_READ(child, pid), child_tgid, ns_tgid);
  return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(clock_exit_task, struct task_struct* task) {
  const __u32 global_tgid = BPF_CORE_READ(task, tgid);
  const __u32* ours = bpf_map_lookup_elem(&tracked, &global_tgid);
  if (!ours) return 0;
  const __u32 tgid = *ours;
  const __u32 tid = BPF_CORE_READ(task, pid);
  struct clock_thread* s = bpf_map_lookup_elem(&threads, &tid);
  if (s) {
    flush_thread(s);
    if (tid == global_tgid) bpf_map_update_elem(&waits, &tgid, &s->waited_last, BPF_ANY);
    bpf_map_delete_elem(&threads, &tid);
  }
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

/* After an exec has committed the new program. A thread other than the leader that execs
 * takes the leader's pid (de_thread, after the leader's exit): its slot moves with it, so the
 * execve's return is timed and its sums kept. Then, on borrowed capabilities, a process that
 * no longer runs as the user (a setuid or file-capability binary) is left, with everything it
 * starts; nothing it does from here on is seen. */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(clock_exec, struct task_struct* task, int old_pid, void* bprm) {
  __u32 tid = BPF_CORE_READ(task, pid);
  const __u32 old_tid = (__u32)old_pid;
  if (old_tid != tid) {
    struct clock_thread* moved = bpf_map_lookup_elem(&threads, &old_tid);
    if (moved) {
      if (bpf_map_update_elem(&threads, &tid, moved, BPF_ANY) != 0) {
        flush_thread(moved); /* no room for the copy: its sums go to their rows now */
        __sync_fetch_and_add(&lost.threads, 1);
      }
      bpf_map_delete_elem(&threads, &old_tid);
    }
  }
  if (!own_credentials_only) return 0;
  const __u32 global_tgid = BPF_CORE_READ(task, tgid);
  const __u32* ours = bpf_map_lookup_elem(&tracked, &global_tgid);
  if (!ours || own_credentials(task)) return 0;
  const __u32 tgid = *ours;
  char comm[CLOCK_COMM_LEN] = {};
  BPF_CORE_READ_STR_INTO(&comm, task, comm);
  bpf_map_update_elem(&privileged, &tgid, &comm, BPF_ANY);
  __sync_fetch_and_add(&lost.privileged, 1);
  struct clock_thread* s = bpf_map_lookup_elem(&threads, &tid);
  if (s) {
    flush_thread(s);
    bpf_map_delete_elem(&threads, &tid); /* exec left it the only thread */
  }
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
