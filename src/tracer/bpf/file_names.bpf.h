/* The files of the kernel clock (syscall_clock.bpf.c, which includes this after struct
 * clock_thread, syscall_arg and name_file): each (process, fd, file) named by its dentries the
 * first time it is written to, and io_uring rings told apart as ptrace tells them
 * (tracer/session_files.cc). Part of that one program, not a program of its own. The loops
 * (a path's walk, a ring's SQEs) sit in global functions, which the verifier checks once
 * each rather than once per path into them: 116,000 instructions walked at load became
 * 32,000, and the load's 100-130 ms in the verifier 12-20 ms. */
#ifndef IOBENCH_TRACER_BPF_FILE_NAMES_BPF_H
#define IOBENCH_TRACER_BPF_FILE_NAMES_BPF_H

/* What the kernel calls each file: named the first time it is written to. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, CLOCK_MAX_NAMES);
  __uint(map_flags, BPF_F_NO_PREALLOC); /* 2 KB a value: allocated as files are seen */
  __type(key, struct clock_name_key);
  __type(value, struct clock_file_name);
} names SEC(".maps");

/* Where a name is built (too big for the stack) before it is copied into names. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct clock_file_name);
} name_scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, CLOCK_STREAMS);
  __type(key, __u32);
  __type(value, struct clock_stream);
} streams SEC(".maps");

/* A ring (by its inode, as ptrace keeps them) once it submitted a write to a file. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, struct clock_ring_id);
  __type(value, __u8);
} writing_rings SEC(".maps");

/* One dentry's name into n->comp[n->depth]; false when there is no room left. */
static __always_inline bool add_component(struct clock_file_name* n, struct dentry* d) {
  const __u32 at = n->depth;
  if (at >= CLOCK_NAME_DEPTH) {
    n->truncated = 1;
    return false;
  }
  const unsigned char* name = BPF_CORE_READ(d, d_name.name);
  const long len =
      bpf_probe_read_kernel_str(n->comp[at & (CLOCK_NAME_DEPTH - 1)], CLOCK_NAME_LEN, name);
  if (len >= CLOCK_NAME_LEN) n->truncated = 1;
  n->depth = at + 1;
  return true;
}

/* The path of f as d_path builds it: dentry names up to the mount's root, then on from the
 * mountpoint in the parent mount, up to the namespace's root. Cannot see a chroot (the path
 * is from the namespace's root); an unlink is in the name's key. Pseudo files (pipes,
 * sockets, anonymous inodes) keep their own dentry name only: user space names them. */
__attribute__((noinline)) int name_walk(struct clock_file_name* n, __u64 file) {
  struct file* f = (struct file*)file;
  if (!n) return 0; /* a global function's pointer may be null, to the verifier */
  struct inode* inode = BPF_CORE_READ(f, f_inode);
  n->magic = (__u32)BPF_CORE_READ(inode, i_sb, s_magic);
  n->depth = 0;
  n->truncated = 0;
  n->pseudo = 0;
  struct dentry* d = BPF_CORE_READ(f, f_path.dentry);
  if (n->magic == CLOCK_ANON_MAGIC || n->magic == CLOCK_PIPE_MAGIC ||
      n->magic == CLOCK_SOCK_MAGIC) {
    add_component(n, d);
    return 0;
  }
  struct mount* m = (struct mount*)((char*)BPF_CORE_READ(f, f_path.mnt) -
                                    bpf_core_field_offset(struct mount, mnt));
  /* A pseudo file (memfd, secretmem): its dentry is in no directory and is not its mount's
   * root; d_path gives "/NAME (deleted)" for it (simple_dname). */
  if (BPF_CORE_READ(d, d_parent) == d && d != BPF_CORE_READ(m, mnt.mnt_root)) {
    add_component(n, d);
    n->pseudo = 1;
    return 0;
  }
  for (int i = 0; i < CLOCK_WALK_STEPS; ++i) {
    if (d == BPF_CORE_READ(m, mnt.mnt_root)) {
      struct mount* parent = BPF_CORE_READ(m, mnt_parent);
      if (parent == m) return 0; /* the namespace's root: whole */
      d = BPF_CORE_READ(m, mnt_mountpoint);
      m = parent;
      continue;
    }
    struct dentry* up = BPF_CORE_READ(d, d_parent);
    if (up == d) return 0; /* a root mounted nowhere we can see */
    if (!add_component(n, d)) return 0;
    d = up;
  }
  n->truncated = 1;
  return 0;
}

/* The name of f: its key, filled in k, and the name itself put in names the first time any
 * process writes to that file. False when names had no room for it. */
static __always_inline bool name_once(struct file* f, struct clock_name_key* k) {
  struct dentry* d = BPF_CORE_READ(f, f_path.dentry);
  struct clock_name_key key = {.dentry = (__u64)d,
                               .mnt = (__u64)BPF_CORE_READ(f, f_path.mnt),
                               .ino = BPF_CORE_READ(f, f_inode, i_ino),
                               .dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev)};
  /* d_unlinked: unhashed, and not a dentry of its own (a root, a pseudo file's) */
  key.deleted = !BPF_CORE_READ(d, d_hash.pprev) && BPF_CORE_READ(d, d_parent) != d;
  *k = key;
  if (bpf_map_lookup_elem(&names, &key)) return true;
  const __u32 zero = 0;
  struct clock_file_name* n = bpf_map_lookup_elem(&name_scratch, &zero);
  if (!n) return false;
  name_walk(n, (__u64)f);
  const long err = bpf_map_update_elem(&names, &key, n, BPF_NOEXIST);
  if (err == 0 || err == -17 /* EEXIST: named on another CPU meanwhile */) return true;
  __sync_fetch_and_add(&lost.names, 1);
  return false;
}

/* The first 8 bytes of a ring's dentry name, "[io_uri", as name_file keeps them in tag. */
#define RING_TAG 0x6972755f6f695bull
#define IORING_ENTER_REGISTERED_RING 16u
#define IORING_SETUP_SQE128 (1u << 10)
#define IOSQE_FIXED_FILE 1u
#define S_IFMT 0170000
#define S_IFCHR 0020000
#define S_IFIFO 0010000
#define S_IFSOCK 0140000

static __always_inline bool is_write_opcode(__u8 op) {
  /* IORING_OP_WRITEV, WRITE_FIXED, WRITE, WRITEV_FIXED: io_uring_get_opcode's WRITE* names. */
  return op == 2 || op == 5 || op == 23 || op == 61;
}

static __always_inline bool is_stream(__u64 ino, __u32 dev) {
  for (__u32 i = 0; i < CLOCK_STREAMS; ++i) {
    const __u32 k = i;
    const struct clock_stream* st = bpf_map_lookup_elem(&streams, &k);
    if (st && st->used && st->ino == ino && st->dev == dev) return true;
  }
  return false;
}

/* Whether fd of the current task is what fd_kind.cc's kind_of_file calls kFile (a write
 * there counts): the same tests, on what the kernel holds. */
__attribute__((noinline)) int is_counted_file(int fd) {
  struct task_struct* task = (struct task_struct*)bpf_get_current_task();
  struct fdtable* fdt = BPF_CORE_READ(task, files, fdt);
  if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds)) return 0;
  struct file** fds = BPF_CORE_READ(fdt, fd);
  struct file* f = 0;
  bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
  if (!f) return 0;
  struct inode* inode = BPF_CORE_READ(f, f_inode);
  const __u32 mode = BPF_CORE_READ(inode, i_mode) & S_IFMT;
  if (mode == 0 || mode == S_IFIFO || mode == S_IFSOCK) return 0; /* anon, pipe, socket */
  if (is_stream(BPF_CORE_READ(inode, i_ino), BPF_CORE_READ(inode, i_sb, s_dev))) return 0;
  if (mode == S_IFCHR) {
    const __u32 rdev = BPF_CORE_READ(inode, i_rdev);
    const __u32 major = rdev >> 20;
    if (rdev == ((1u << 20) | 3u)) return 0;                                  /* /dev/null */
    if (major == 4 || major == 5 || (major >= 136 && major <= 143)) return 0; /* terminal */
  }
  return (BPF_CORE_READ(f, f_mode) & CLOCK_FMODE_WRITE) != 0;
}

/* Whether the SQEs between the kernel's head and the program's tail hold a write to a file,
 * as ptrace reads them from the ring's fdinfo at the call's entry. */
__attribute__((noinline)) int ring_submits_write(__u64 file) {
  struct file* ring = (struct file*)file;
  struct io_ring_ctx* ctx = BPF_CORE_READ(ring, private_data);
  const __u32 head = BPF_CORE_READ(ctx, rings, sq.head);
  const __u32 tail = BPF_CORE_READ(ctx, rings, sq.tail);
  const __u32 entries = BPF_CORE_READ(ctx, sq_entries);
  const __u32 shift = BPF_CORE_READ(ctx, flags) & IORING_SETUP_SQE128 ? 7 : 6;
  const __u32* sq_array = BPF_CORE_READ(ctx, sq_array);
  const char* sqes = BPF_CORE_READ(ctx, sq_sqes);
  const __u32 mask = entries - 1;
  const __u32 pending = tail - head < entries ? tail - head : entries;
  for (__u32 i = 0; i < CLOCK_RING_SQES && i < pending; ++i) {
    const __u32 entry = (head + i) & mask;
    __u32 index = entry; /* IORING_SETUP_NO_SQARRAY: no indirection */
    if (sq_array) {
      bpf_probe_read_kernel(&index, sizeof(index), &sq_array[entry]);
      if (index > mask) continue;
    }
    struct {
      __u8 opcode;
      __u8 flags;
      __u16 ioprio;
      __s32 fd;
    } sqe = {};
    bpf_probe_read_kernel(&sqe, sizeof(sqe), sqes + ((__u64)index << shift));
    if (!is_write_opcode(sqe.opcode)) continue;
    if ((sqe.flags & IOSQE_FIXED_FILE) || is_counted_file(sqe.fd)) return true;
  }
  return false;
}

/* An io_uring_enter: kept apart as a writing ring once its ring submitted a write to a file. */
static __always_inline void ring_check(struct clock_thread* s, struct pt_regs* regs, bool compat,
                                       bool direct) {
  if ((__u32)syscall_arg(regs, 3, compat, direct) & IORING_ENTER_REGISTERED_RING) {
    /* The fd indexes the ring's own table: nothing to look at; it counts, as it may write. */
    s->ino = 0;
    s->dev = 0;
    s->tag = 0;
    s->filp = 0;
    s->fflags = CLOCK_FILE_REGISTERED_RING;
    return;
  }
  if (!s->filp || s->tag != RING_TAG) return;
  struct clock_ring_id id = {.ino = s->ino, .dev = s->dev};
  if (!bpf_map_lookup_elem(&writing_rings, &id)) {
    if (!ring_submits_write(s->filp)) return;
    const __u8 one = 1;
    bpf_map_update_elem(&writing_rings, &id, &one, BPF_ANY);
  }
  s->fflags = CLOCK_FILE_WRITING_RING;
}

#endif
