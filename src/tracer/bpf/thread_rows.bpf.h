/* A thread's sums for its rows of the files and procs tables (clock_abi.h, clock_thread):
 * kept in its slot call after call, added to the shared rows when the thread moves to
 * another row, exits or is left; a row is made, and its file named, the first time any
 * thread of the process needs it. Part of syscall_clock.bpf.c (included after the maps,
 * name_once and struct clock_thread), not a program of its own. */
#ifndef IOBENCH_TRACER_BPF_THREAD_ROWS_BPF_H
#define IOBENCH_TRACER_BPF_THREAD_ROWS_BPF_H

/* The thread's sums for its process row, added to the row. */
static __always_inline void flush_proc(struct clock_thread* s) {
  struct clock_proc_tally* t = &s->proc;
  if (!t->row || (!t->sums.calls && !t->sums.timed)) return;
  const struct clock_proc_key pk = t->key;
  struct clock_proc_stat* ps = bpf_map_lookup_elem(&procs, &pk);
  if (ps) {
    __sync_fetch_and_add(&ps->calls, t->sums.calls);
    __sync_fetch_and_add(&ps->timed, t->sums.timed);
    __sync_fetch_and_add(&ps->errors, t->sums.errors);
    __sync_fetch_and_add(&ps->bytes, t->sums.bytes);
    __sync_fetch_and_add(&ps->total_ns, t->sums.total_ns);
  } else {
    __sync_fetch_and_add(&lost.process_rows, t->sums.calls);
  }
  t->sums.calls = 0;
  t->sums.timed = 0;
  t->sums.errors = 0;
  t->sums.bytes = 0;
  t->sums.total_ns = 0;
}

/* The thread's sums for its file row, added to the row. */
static __always_inline void flush_file(struct clock_thread* s) {
  struct clock_file_tally* t = &s->file;
  if (!t->row || !t->calls) return;
  const struct clock_file_key fk = t->key;
  struct clock_file_stat* fs = bpf_map_lookup_elem(&files, &fk);
  if (fs) {
    __sync_fetch_and_add(&fs->calls, t->calls);
    __sync_fetch_and_add(&fs->errors, t->errors);
    __sync_fetch_and_add(&fs->bytes, t->bytes);
    __sync_fetch_and_add(&fs->total_ns, t->total_ns);
  } else {
    __sync_fetch_and_add(&lost.file_calls, t->calls);
  }
  t->calls = 0;
  t->errors = 0;
  t->bytes = 0;
  t->total_ns = 0;
}

/* Both of a thread's sums into their rows: when it exits or is left. */
__attribute__((noinline)) int flush_thread(struct clock_thread* s) {
  if (!s) return 0;
  flush_proc(s);
  flush_file(s);
  return 0;
}

/* The thread's calls move to the process row of syscall key: the sums so far go to their
 * row, and the new row is made if it is the process's first such call. Rare: a thread that
 * makes one kind of call over and over comes here once. */
__attribute__((noinline)) int switch_proc_row(struct clock_thread* s, __u32 key) {
  if (!s) return 0;
  flush_proc(s);
  const struct clock_proc_key pk = {.tgid = s->tgid, .key = key};
  s->proc.key = pk;
  s->proc.row = 0;
  if (!bpf_map_lookup_elem(&procs, &pk)) {
    const struct clock_proc_stat zero = {};
    bpf_map_update_elem(&procs, &pk, &zero, BPF_NOEXIST);
    if (!bpf_map_lookup_elem(&procs, &pk)) return 0; /* procs is full */
  }
  s->proc.row = 1;
  return 0;
}

/* The thread's call that just returned moves to the file row its slot names (fd, file,
 * syscall): the sums so far go to their row, and a new row is made, and its file named,
 * while the call still holds the file it names. */
__attribute__((noinline)) int switch_file_row(struct clock_thread* s) {
  if (!s) return 0;
  flush_file(s);
  const struct clock_file_key fk = {.ino = s->ino,
                                    .tag = s->tag,
                                    .dev = s->dev,
                                    .tgid = s->tgid,
                                    .fd = s->fd,
                                    .key = s->key,
                                    .flags = s->fflags};
  s->file.key = fk;
  s->file.row = 0;
  struct clock_file_stat* fs = bpf_map_lookup_elem(&files, &fk);
  if (!fs) {
    const struct clock_file_stat zero = {};
    bpf_map_update_elem(&files, &fk, &zero, BPF_NOEXIST);
    fs = bpf_map_lookup_elem(&files, &fk);
    if (!fs) return 0; /* files is full */
    /* What the fd named at entry: the call holds a reference to it until it returns. */
    struct file* f = (struct file*)s->filp;
    if (f) {
      fs->mode = BPF_CORE_READ(f, f_inode, i_mode);
      fs->rdev = BPF_CORE_READ(f, f_inode, i_rdev);
      fs->f_mode = BPF_CORE_READ(f, f_mode);
      fs->named = name_once(f, &fs->name);
    }
  }
  s->file.row = 1;
  return 0;
}

static __always_inline bool same_file_row(const struct clock_thread* s) {
  const struct clock_file_key* k = &s->file.key;
  return s->file.row && k->ino == s->ino && k->tag == s->tag && k->dev == s->dev &&
         k->fd == s->fd && k->key == s->key && k->flags == s->fflags;
}

#endif
