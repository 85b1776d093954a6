/* The layout the kernel clock's BPF program (syscall_clock.bpf.c) and its loader
 * (tracer/bpf_clock.cc) share: map keys, values and config sizes. Plain C, fixed-width
 * types only, so one header compiles for both targets. */
#ifndef IOBENCH_TRACER_BPF_CLOCK_ABI_H
#define IOBENCH_TRACER_BPF_CLOCK_ABI_H

#ifdef __bpf__
typedef unsigned long long clock_u64;
typedef unsigned int clock_u32;
typedef int clock_s32;
#else
#include <stdint.h>
typedef uint64_t clock_u64;
typedef uint32_t clock_u32;
typedef int32_t clock_s32;
#endif

/* Syscall numbers per ABI (a power of two: the program masks keys with CLOCK_KEYS - 1); a key is
 * the number, plus CLOCK_NR_PER_ABI for an i386 call. */
#define CLOCK_NR_PER_ABI 512
#define CLOCK_KEYS (2 * CLOCK_NR_PER_ABI)

/* The buckets of tracer/latency_histogram.h: 64 per power of two, exact below 128, up to
 * 2^40 ns. bpf_clock_test checks the two stay the same. */
#define CLOCK_SUB_BITS 6
#define CLOCK_MAX_BITS 40
#define CLOCK_BUCKETS (2 * 64 + (CLOCK_MAX_BITS - CLOCK_SUB_BITS - 1) * 64)
/* Histograms kept at once: the calls user space asks a latency for (the write family). */
#define CLOCK_HIST_SLOTS 32

/* syscall_flags[key] bits. */
#define CLOCK_TRACED 1u     /* count and time this call */
#define CLOCK_MOVES_DATA 2u /* a positive return value is a byte count */
#define CLOCK_PER_FILE 4u   /* attribute it to the file behind fd_arg[key] */
#define CLOCK_RING_ENTER 8u /* io_uring_enter: look at the SQEs it submits */

/* The i386 bit of the task's thread_info.status while it runs a compat call (x86 TS_COMPAT). */
#define CLOCK_TS_COMPAT 0x0002u

/* The maps' capacities (docs/tracer.md "Limits"): past them, what did not fit is counted in
 * clock_lost and reported, never silently left out. */
#define CLOCK_MAX_PROCESSES 65536     /* processes of the tree alive at once */
#define CLOCK_MAX_THREADS 65536       /* threads of the tree alive at once */
#define CLOCK_MAX_FILES 262144        /* (process, fd, file, syscall) written to */
#define CLOCK_MAX_NAMES 32768         /* distinct file names */
#define CLOCK_MAX_PROCESS_ROWS 131072 /* (process, syscall) */

/* MAX_PID_NS_LEVEL (32) + 1: the most pid numbers a task has, one per namespace it is in. */
#define CLOCK_PIDNS_DEPTH 33

/* Per syscall key, per CPU. calls counts entries (a call that never returns, exit_group,
 * counts too); the rest are taken at exit, so timed == the calls that returned. */
struct clock_stat {
  clock_u64 calls;
  clock_u64 timed;
  clock_u64 errors;       /* returned < 0 */
  clock_u64 bytes;        /* sum of positive returns, CLOCK_MOVES_DATA calls only */
  clock_u64 total_ns;     /* entry to exit, preempted time taken out */
  clock_u64 preempted_ns; /* what was taken out */
  clock_u64 blocked_ns;   /* voluntarily off CPU inside the calls: part of total_ns */
  clock_u64 own_ns;       /* the programs' own time, between their first and last
                             timestamps, in the own_samples calls that took them */
  clock_u64 own_samples;  /* about one call in CLOCK_OWN_EVERY, drawn at random: two
                             timestamps cost as much as the rest of a call's work */
};
#define CLOCK_OWN_EVERY 8u

struct clock_hist {
  clock_u64 buckets[CLOCK_BUCKETS];
};

/* A written-to file: the fd of a process and the inode behind it when the call began (the
 * process is gone by the time user space reads this, so the kernel names the file). */
struct clock_file_key {
  clock_u64 ino;
  clock_u64 tag; /* an anonymous inode's first 8 bytes of name ("[eventfd"): they share one */
  clock_u32 dev; /* the kernel's dev_t: major << 20 | minor */
  clock_u32 tgid;
  clock_s32 fd;
  clock_u32 key;   /* the syscall key; CLOCK_NAME_KEY in the names map */
  clock_u32 flags; /* CLOCK_FILE_*: an io_uring_enter's ring, as ptrace tells it (0 in names) */
  clock_u32 pad;
};
#define CLOCK_FILE_WRITING_RING 1u    /* a ring seen submitting a write to a file */
#define CLOCK_FILE_REGISTERED_RING 2u /* IORING_ENTER_REGISTERED_RING: no fd to look at */
#define CLOCK_NAME_KEY 0xffffffffu

/* A name in the names map: what d_path builds one from (the dentry in its mount) and whether
 * it was unlinked then; the inode keeps a dentry reused for another file apart. Many
 * processes writing one file share its name. */
struct clock_name_key {
  clock_u64 dentry;
  clock_u64 mnt;
  clock_u64 ino;
  clock_u32 dev;
  clock_u32 deleted; /* d_unlinked: /proc shows " (deleted)" after the path */
};

struct clock_file_stat {
  clock_u64 calls;
  clock_u64 errors;
  clock_u64 bytes;
  clock_u64 total_ns;
  clock_u32 mode;   /* i_mode: regular file, pipe, socket, char device... */
  clock_u32 rdev;   /* i_rdev of a device node (a terminal), kernel encoding */
  clock_u32 f_mode; /* FMODE_* of the open file */
  clock_u32 named;  /* name is in the names map (0: the map was full) */
  struct clock_name_key name;
};

/* What the maps had no room for (a bss global): each count that could have come out smaller. */
struct clock_lost {
  clock_u64 processes;    /* forks not followed (tracked full): their calls not counted */
  clock_u64 threads;      /* threads not followed (threads full): their calls not counted */
  clock_u64 file_calls;   /* calls filed under no file (files full) */
  clock_u64 names;        /* files left unnamed (names full) */
  clock_u64 process_rows; /* calls counted under no process (procs full) */
  clock_u64 privileged;   /* processes no longer followed: they exec'd with other credentials */
};

/* What the kernel says of a file, read once per name (clock_name_key) when first written to:
 * the dentry names from the file up to the root, crossing mounts. */
#define CLOCK_NAME_LEN 128           /* longer names are cut (truncated says so) */
#define CLOCK_NAME_DEPTH 16          /* a power of two: components kept, the file's first */
#define CLOCK_WALK_STEPS 32          /* components plus mount crossings walked */
#define CLOCK_FMODE_WRITE 0x2u       /* the kernel's FMODE_WRITE in file->f_mode */
#define CLOCK_ANON_MAGIC 0x09041934u /* ANON_INODE_FS_MAGIC: eventfd, timerfd, io_uring */
#define CLOCK_PIPE_MAGIC 0x50495045u /* PIPEFS_MAGIC: /proc shows pipe:[ino] */
#define CLOCK_SOCK_MAGIC 0x534F434Bu /* SOCKFS_MAGIC: socket:[ino] */
struct clock_file_name {
  clock_u32 magic;     /* the filesystem's s_magic (low 32 bits) */
  clock_u32 depth;     /* components filled, comp[0] the file's own name */
  clock_u32 truncated; /* a name cut or components left out: the path is not whole */
  clock_u32 pseudo;    /* a dentry of its own in no directory (memfd): "/NAME (deleted)" */
  char comp[CLOCK_NAME_DEPTH][CLOCK_NAME_LEN];
};

/* The traced program's stdout and stderr (fd_kind.h's standard_streams()): a write to them
 * through a ring does not make it a writing ring. */
#define CLOCK_STREAMS 2
struct clock_stream {
  clock_u64 ino;
  clock_u32 dev; /* kernel encoding */
  clock_u32 used;
};
struct clock_ring_id {
  clock_u64 ino;
  clock_u32 dev;
  clock_u32 pad;
};
/* SQEs looked at per io_uring_enter, at most. */
#define CLOCK_RING_SQES 64

/* Per (process, syscall key): what trace --per-process shows. */
struct clock_proc_key {
  clock_u32 tgid;
  clock_u32 key;
};
struct clock_proc_stat {
  clock_u64 calls; /* at entry */
  clock_u64 timed; /* at exit: the calls that returned */
  clock_u64 errors;
  clock_u64 bytes;
  clock_u64 total_ns;
};
#define CLOCK_COMM_LEN 16

/* A thread's running sums for one row of the files or the procs table. A thread adds its
 * calls here, in its own slot, and to the shared row only when it moves to another row or
 * exits, so that a thread writing one file over and over touches no shared map and takes no
 * lock. User space adds the sums of the threads still alive when it reads (BpfLoader). */
struct clock_file_tally {
  struct clock_file_key key;
  clock_u64 calls;
  clock_u64 errors;
  clock_u64 bytes;
  clock_u64 total_ns;
  clock_u32 row; /* key's row is in files: the sums belong to it */
  clock_u32 pad;
};
struct clock_proc_tally {
  struct clock_proc_key key;
  struct clock_proc_stat sums;
  clock_u32 row; /* key's row is in procs */
  clock_u32 pad;
};

/* One per thread of the tree, from its fork (or a root's first call) to its exit, keyed by
 * its global tid: being in the map is being traced. Reused call after call, so that nothing
 * is allocated between the entry and the exit timestamps. */
struct clock_thread {
  clock_u64 start_ns;     /* 0 until the entry timestamp is taken */
  clock_u64 off_at;       /* when it left the CPU inside the call, 0 while on CPU */
  clock_u64 preempted_ns; /* preempted time inside this call: taken out */
  clock_u64 blocked_ns;   /* voluntarily off CPU (a real wait): kept in, reported apart */
  clock_u64 ino;
  clock_u64 tag;    /* clock_file_key.tag */
  clock_u64 filp;   /* the struct file the fd named at entry: its row named once, at exit */
  clock_u64 own_ns; /* the enter program's own time, from its first timestamp to start_ns;
                       0 in a call not sampled (clock_stat.own_samples) */
  clock_u64 waited_ns;   /* runnable but off CPU, in calls or not: the thread's wait for a CPU */
  clock_u64 waited_last; /* waited_ns at its last traced call's exit: none of its exit's waits */
  clock_u32 dev;
  clock_u32 key;
  clock_s32 fd;
  clock_u32 fflags;       /* clock_file_key.flags */
  clock_u32 active;       /* between enter and exit of a traced call */
  clock_u32 off_preempt;  /* off_at was a preemption, not a wait */
  clock_u32 off_runnable; /* off_at left it runnable (preempted, in a call or in user space) */
  clock_u32 tgid;         /* its process's tgid in iobench's namespace: the tables' key */
  clock_u32 global_tgid;  /* the kernel's: a slot is only ever its own thread's */
  clock_u32 pad;
  struct clock_proc_tally proc;
  struct clock_file_tally file;
};

/* The last SIGINT sent to a process of the tree, and who sent it as siginfo says (si_code,
 * si_pid): `trace` passes its first Ctrl-C on only when the command has not had the same. */
#define CLOCK_SIGINT 2
#define CLOCK_SI_USER 0
#define CLOCK_SI_KERNEL 0x80
struct clock_sigint {
  clock_u64 count;
  clock_s32 code;
  clock_s32 pid;
};

#endif
