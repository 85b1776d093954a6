/* The few kernel types the kernel clock reads, written by hand instead of a generated
 * vmlinux.h: preserve_access_index makes every field access a CO-RE relocation, resolved
 * against the running kernel's BTF at load, so only the names here must match, not the
 * layout. */
#ifndef IOBENCH_TRACER_BPF_KERNEL_TYPES_H
#define IOBENCH_TRACER_BPF_KERNEL_TYPES_H

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
#define true 1
#define false 0

enum bpf_map_type {
  BPF_MAP_TYPE_HASH = 1,
  BPF_MAP_TYPE_ARRAY = 2,
  BPF_MAP_TYPE_PERCPU_ARRAY = 6,
};
enum { BPF_F_NO_PREALLOC = 1 };
enum { BPF_ANY = 0, BPF_NOEXIST = 1 };

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct pt_regs {
  unsigned long bp;
  unsigned long bx;
  unsigned long r10;
  unsigned long r9;
  unsigned long r8;
  unsigned long cx;
  unsigned long dx;
  unsigned long si;
  unsigned long di;
};

struct thread_info {
  __u32 status;
};

typedef struct {
  int counter;
} atomic_t;

struct signal_struct {
  atomic_t live; /* threads not yet in do_exit's tail: 0 once the whole group exits */
};

struct super_block {
  __u32 s_dev;
  unsigned long s_magic;
};

struct inode {
  unsigned short i_mode;
  unsigned long i_ino;
  __u32 i_rdev;
  struct super_block* i_sb;
};

struct qstr {
  const unsigned char* name;
};

struct hlist_bl_node {
  struct hlist_bl_node* next;
  struct hlist_bl_node** pprev; /* null: unhashed (unlinked, or never in a directory) */
};

struct dentry {
  struct dentry* d_parent;
  struct qstr d_name;
  struct hlist_bl_node d_hash;
};

struct vfsmount {
  struct dentry* mnt_root;
};

/* fs/mount.h: the vfsmount a file names sits inside one of these (container_of). */
struct mount {
  struct mount* mnt_parent;
  struct dentry* mnt_mountpoint;
  struct vfsmount mnt;
};

struct path {
  struct vfsmount* mnt;
  struct dentry* dentry;
};

struct file {
  struct inode* f_inode;
  struct path f_path;
  unsigned int f_mode;
  void* private_data;
};

/* io_uring/: where a ring keeps its SQ (io_uring/fdinfo.c reads the same). */
struct io_uring {
  __u32 head;
  __u32 tail;
};
struct io_rings {
  struct io_uring sq;
};
struct io_ring_ctx {
  unsigned int flags;
  struct io_rings* rings;
  __u32* sq_array;
  void* sq_sqes;
  unsigned int sq_entries;
};

struct fdtable {
  unsigned int max_fds;
  struct file** fd;
};

struct files_struct {
  struct fdtable* fdt;
};

/* The kernel wraps these in an anonymous struct: CO-RE finds a field through it. */
union __sifields {
  struct {
    int _pid;
  } _kill;
};
struct kernel_siginfo {
  int si_code;
  union __sifields _sifields;
};

/* include/linux/ns_common.h, pid_namespace.h, pid.h: a task's pid in each namespace from
 * the root's (numbers[0]) down to its own (numbers[level]). */
struct ns_common {
  unsigned int inum;
};
struct pid_namespace {
  struct ns_common ns;
};
struct upid {
  int nr;
  struct pid_namespace* ns;
};
struct pid {
  unsigned int level;
  struct upid numbers[];
};

typedef struct {
  unsigned int val;
} kuid_t;
typedef struct {
  unsigned int val;
} kgid_t;

/* include/linux/cred.h. A kernel_cap_t holds a u64 since 6.3, two u32 before: read as 8 raw
 * bytes, 0 when the process holds no capability. */
typedef struct {
  __u64 val;
} kernel_cap_t;

struct cred {
  kuid_t uid;
  kgid_t gid;
  kuid_t suid;
  kgid_t sgid;
  kuid_t euid;
  kgid_t egid;
  kuid_t fsuid;
  kgid_t fsgid;
  kernel_cap_t cap_permitted;
};

struct task_struct {
  struct thread_info thread_info;
  int pid;
  int tgid;
  struct pid* thread_pid;
  const struct cred* cred;
  char comm[16];
  struct task_struct* group_leader;
  struct files_struct* files;
  struct signal_struct* signal;
};

#pragma clang attribute pop

#endif
