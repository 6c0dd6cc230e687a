/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/ordered_reader.c — many files as one ordered stream: lock step,
 * or an external merge sort by start or end time (see ordered_reader.h).
 */
#include "read/ordered_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define RUN_BUFFER (256u << 10)

/* A record of a sorted chunk, unless lines_only, keeps what the reading
 * pass decoded, so that ord_next does not decode the line again: its
 * arena (or temporary file) bytes are a kept_head, the rec, its top-level
 * members, then the line. */
typedef struct {
  uint32_t nmembers; /* KEPT_NONE: nothing kept, decode the line again */
  uint32_t text_len;
} kept_head;

#define KEPT_NONE UINT32_MAX

/* ---- reading one file ---- */

static void note_identity(ord_file *f, const rec *r) {
  if (r->rt == RT_PROCESS_END)
    f->id.has_process_end = true;
  if (r->rt != RT_PROCESS || f->id.has_process)
    return;
  f->id.has_process = true;
  js_str_copy(js_get(r->f, K_hostname), f->id.host, sizeof f->id.host);
  if (!js_to_i64(js_get(r->f, K_pid), &f->id.pid))
    f->id.pid = -1;
  if (!js_to_i64(js_get(r->f, K_globalRank), &f->id.global_rank) ||
      f->id.global_rank < 0)
    f->id.global_rank = -1;
  uint64_t tag;
  if (js_to_hex_u64(js_get(r->f, K_handleTag), &tag)) {
    f->id.has_tag = true;
    f->id.handle_tag = (uint32_t)tag;
  }
}

/* A line that ord_open_window's second reader of its file hands out: a
 * timing record as the plugin writes it (it comes late, see the header). */
static bool late_line(const char *line, size_t len) {
  static const char prefix[] = "{\"recordType\":\"timing\"";
  return len >= sizeof prefix - 1 &&
         memcmp(line, prefix, sizeof prefix - 1) == 0;
}

/* What a reader that keeps only lines decodes of each: what its order's
 * key needs. */
static ra_decoder times_decoder(const ord_reader *o) {
  return o->mode == ORD_START ? rec_decode_start_time : rec_decode_times;
}

static int64_t key_of(const ord_reader *o, ord_file *f, const rec *r) {
  int64_t k = o->mode == ORD_START ? rec_start_time(r) : rec_write_time(r);
  if (k == INT64_MIN)
    k = f->last_key;
  else
    f->last_key = k;
  return k;
}

/* Read the next record of `f` into `r` (decoded into `s`); false at EOF. */
static bool read_record(ord_reader *o, ord_file *f, rec_scratch *s, rec *r) {
  while (!f->eof) {
    bool parsed;
    int got = ra_next(o->ra, (size_t)(f - o->files), s, r, &parsed, &f->line);
    if (got == RA_OPEN_ERROR) {
      fprintf(stderr, "cclscope: cannot open '%s': %s\n", f->path,
              tr_strerror(f->line.error));
      o->unreadable_files++;
      f->eof = true;
      break;
    }
    if (got != RA_LINE) {
      if (got == RA_READ_ERROR)
        fprintf(stderr, "cclscope: error reading '%s': %s\n", f->path,
                tr_strerror(f->line.error));
      o->text_bytes += f->line.text_bytes;
      f->eof = true;
      break;
    }
    o->bytes_done += f->line.bytes_read - f->bytes_counted;
    f->bytes_counted = f->line.bytes_read;
    progress_update(&o->prog, o->bytes_done);
    if (f->late && late_line(f->line.line, f->line.line_len) &&
        (!f->late_eof || f->line.line_no <= f->late_lines)) {
      /* the second reader hands it out; its time still passes to the
       * records after it that have none, as when sorting */
      if (parsed && r->rt != RT_PAD && r->len <= UINT32_MAX)
        key_of(o, f, r);
      continue;
    }
    if (!parsed) {
      o->invalid++;
      continue;
    }
    if (r->rt == RT_PAD)
      continue;
    note_identity(f, r);
    return true;
  }
  return false;
}

/* ---- generic binary heap of indexes ---- */

typedef bool (*less_fn)(const ord_reader *o, size_t a, size_t b);

static void heap_push(ord_reader *o, size_t v, less_fn less) {
  size_t i = o->nheap++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!less(o, v, o->heap[parent]))
      break;
    o->heap[i] = o->heap[parent];
    i = parent;
  }
  o->heap[i] = v;
}

static size_t heap_pop(ord_reader *o, less_fn less) {
  size_t top = o->heap[0];
  size_t last = o->heap[--o->nheap];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    size_t best = last;
    if (l < o->nheap && less(o, o->heap[l], best)) {
      m = l;
      best = o->heap[l];
    }
    if (r < o->nheap && less(o, o->heap[r], best))
      m = r;
    if (m == i)
      break;
    o->heap[i] = o->heap[m];
    i = m;
  }
  if (o->nheap > 0)
    o->heap[i] = last;
  return top;
}

/* ---- ORD_LOCKSTEP ---- */

static bool file_less(const ord_reader *o, size_t a, size_t b) {
  const ord_file *fa = &o->files[a], *fb = &o->files[b];
  if (fa->cur_key != fb->cur_key)
    return fa->cur_key < fb->cur_key;
  return a < b;
}

static void lockstep_advance(ord_reader *o, size_t fi) {
  ord_file *f = &o->files[fi];
  f->has_cur = read_record(o, f, f->scratch, &f->cur);
  if (!f->has_cur)
    return;
  f->cur_key = key_of(o, f, &f->cur);
  heap_push(o, fi, file_less);
}

/* ---- ORD_START / ORD_END: sorting chunks ---- */

static int cmp_items(const void *a, const void *b) {
  const ord_item *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* qsort's base must not be NULL, even for zero items (C11 7.22.5): the
 * items array is not allocated until the first record arrives. */
static void sort_chunk(ord_reader *o) {
  if (o->nitems > 1)
    qsort(o->items, o->nitems, sizeof *o->items, cmp_items);
}

static ord_run *new_run(ord_reader *o) {
  if (o->nruns == o->cap_runs) {
    size_t ncap = o->cap_runs ? o->cap_runs * 2 : 8;
    ord_run *nr = realloc(o->runs, ncap * sizeof *nr);
    if (!nr)
      return NULL;
    o->runs = nr;
    o->cap_runs = ncap;
  }
  ord_run *r = &o->runs[o->nruns++];
  memset(r, 0, sizeof *r);
  r->fd = -1;
  return r;
}

static int temp_file(void) {
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/cclscope-sort-XXXXXX",
           dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) {
    fprintf(stderr, "cclscope: cannot create a temporary file in '%s': %s\n",
            dir && *dir ? dir : "/tmp", strerror(errno));
    return -1;
  }
  unlink(path); /* gone when closed, whatever happens */
  return fd;
}

/* Sort the chunk in memory and write it to a temporary file. */
static bool spill(ord_reader *o) {
  if (o->nitems == 0)
    return true;
  sort_chunk(o);
  ord_run *r = new_run(o);
  int fd = r ? temp_file() : -1;
  if (fd < 0)
    return false;
  r->fd = fd;
  FILE *out = fdopen(dup(fd), "w");
  if (!out) {
    fprintf(stderr, "cclscope: cannot write a temporary file: %s\n",
            strerror(errno));
    return false;
  }
  static char buf[1 << 20];
  setvbuf(out, buf, _IOFBF, sizeof buf);
  for (size_t i = 0; i < o->nitems; i++) {
    const ord_item *it = &o->items[i];
    fwrite(it, sizeof *it, 1, out);
    fwrite(o->arena + it->off, 1, it->len, out);
    o->spilled_bytes += sizeof *it + it->len;
  }
  bool ok = fflush(out) == 0 && !ferror(out);
  int err = errno;
  fclose(out);
  if (!ok) {
    fprintf(stderr,
            "cclscope: writing a temporary file failed: %s (set "
            "TMPDIR to a folder with room, or raise --memory-mb)\n",
            strerror(err));
    return false;
  }
  if (lseek(fd, 0, SEEK_SET) < 0)
    return false;
  r->cap = RUN_BUFFER;
  r->buf = malloc(r->cap);
  o->nitems = 0;
  o->arena_used = 0;
  return r->buf != NULL;
}

/* How many members of r are kept with it (see kept_head), or KEPT_NONE
 * when one of them is not inside its line. */
static uint32_t members_to_keep(const rec *r) {
  const js_fields *top = r->f;
  for (uint32_t i = 0; i < top->nfound; i++) {
    const js_value *v = &top->v[top->found[i]];
    if (v->ptr < r->line || v->len > r->len ||
        (size_t)(v->ptr - r->line) > r->len - v->len)
      return KEPT_NONE;
  }
  return top->nfound;
}

/* Write what ord_next needs of r (kept_head, rec, members) at `to`. */
static void keep_decoded(char *to, const rec *r, uint32_t nmembers) {
  kept_head head = {nmembers, (uint32_t)r->len};
  memcpy(to, &head, sizeof head);
  to += sizeof head;
  if (nmembers == KEPT_NONE)
    return;
  memcpy(to, r, sizeof *r);
  to += sizeof *r;
  for (uint32_t i = 0; i < nmembers; i++) {
    js_member_at m = js_member_at_of(r->f, i, r->line);
    memcpy(to, &m, sizeof m);
    to += sizeof m;
  }
}

static size_t kept_bytes(uint32_t nmembers) {
  if (nmembers == KEPT_NONE)
    return sizeof(kept_head);
  return sizeof(kept_head) + sizeof(rec) + nmembers * sizeof(js_member_at);
}

/* Add one record to the chunk being collected, spilling when full. */
static bool collect(ord_reader *o, size_t fi, const rec *r, uint64_t line_no,
                    int64_t key) {
  uint32_t nmembers = 0;
  size_t kept = 0;
  if (!o->lines_only) {
    nmembers = members_to_keep(r);
    kept = kept_bytes(nmembers);
  }
  size_t bytes = kept + r->len;
  size_t item_bytes = (o->nitems + 1) * sizeof(ord_item);
  if (o->arena_used + bytes + item_bytes > o->memory_bytes && o->nitems > 0 &&
      !spill(o))
    return false;
  if (o->arena_used + bytes > o->arena_cap) {
    /* only a line longer than the whole budget gets here */
    size_t ncap = o->arena_used + bytes;
    char *na = realloc(o->arena, ncap);
    if (!na)
      return false;
    o->arena = na;
    o->arena_cap = ncap;
  }
  if (o->nitems == o->cap_items) {
    size_t ncap = o->cap_items ? o->cap_items * 2 : 4096;
    ord_item *ni = realloc(o->items, ncap * sizeof *ni);
    if (!ni)
      return false;
    o->items = ni;
    o->cap_items = ncap;
  }
  ord_item *it = &o->items[o->nitems++];
  it->key = key;
  it->seq = o->seq++;
  it->line_no = line_no;
  it->file = (uint32_t)fi;
  it->len = (uint32_t)bytes;
  it->off = o->arena_used;
  if (!o->lines_only)
    keep_decoded(o->arena + o->arena_used, r, nmembers);
  memcpy(o->arena + o->arena_used + kept, r->line, r->len);
  o->arena_used += bytes;
  return true;
}

/* Read every input into sorted chunks. */
static bool sort_inputs(ord_reader *o) {
  rec r;
  for (size_t fi = 0; fi < o->n; fi++) {
    ord_file *f = &o->files[fi];
    while (read_record(o, f, o->out_scratch, &r)) {
      size_t kept = o->lines_only ? 0 : kept_bytes(r.f->nfound);
      if (r.len > UINT32_MAX - kept)
        continue;
      if (!collect(o, fi, &r, f->line.line_no, key_of(o, f, &r)))
        return false;
    }
  }
  /* the last chunk stays in memory (it is empty when nothing was read) */
  sort_chunk(o);
  ord_run *last = new_run(o);
  if (!last)
    return false;
  last->in_memory = true;
  last->items = o->items;
  last->n = o->nitems;
  return true;
}

/* Next record of a run into run->cur; false at its end. */
static bool run_next(ord_reader *o, ord_run *r) {
  if (r->in_memory) {
    if (r->pos >= r->n)
      return false;
    r->cur = r->items[r->pos++];
    r->cur_text = o->arena + r->cur.off;
    return true;
  }
  for (;;) {
    size_t avail = r->fill - r->at;
    if (avail >= sizeof(ord_item)) {
      ord_item head;
      memcpy(&head, r->buf + r->at, sizeof head);
      if (avail >= sizeof head + head.len) {
        r->cur = head;
        r->cur_text = r->buf + r->at + sizeof head;
        r->at += sizeof head + head.len;
        return true;
      }
      if (sizeof head + head.len > r->cap) {
        char *nb = realloc(r->buf, sizeof head + head.len);
        if (!nb) {
          o->failed = true;
          return false;
        }
        r->buf = nb;
        r->cap = sizeof head + head.len;
      }
    }
    if (r->eof)
      return false;
    memmove(r->buf, r->buf + r->at, avail);
    r->fill = avail;
    r->at = 0;
    ssize_t got = read(r->fd, r->buf + r->fill, r->cap - r->fill);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      fprintf(stderr, "cclscope: reading a temporary file failed: %s\n",
              strerror(errno));
      o->failed = true;
      return false;
    }
    if (got == 0)
      r->eof = true;
    r->fill += (size_t)got;
  }
}

static bool run_less(const ord_reader *o, size_t a, size_t b) {
  const ord_item *x = &o->runs[a].cur, *y = &o->runs[b].cur;
  return cmp_items(x, y) < 0;
}

/* ---- public ---- */

bool ord_inputs_empty(const tr_inputs *in, uint64_t *invalid_lines) {
  *invalid_lines = 0;
  rec_scratch *s = malloc(sizeof *s);
  if (!s)
    return false; /* cannot tell: let the reading pass decide */
  rec_scratch_init(s);
  bool empty = true;
  for (size_t i = 0; i < in->n && empty; i++) {
    tr_file tf;
    int err = tr_open(&tf, in->paths[i], 64u << 10);
    if (err == TR_ERR_EMPTY || err == TR_ERR_NOT_TRACE)
      continue; /* no record in it either */
    if (err != 0) {
      empty = false; /* the reading pass reports it */
      break;
    }
    if (tf.format == TR_FORMAT_MINIMAL_PROFILER) {
      /* its first line is a record (that is how it was recognised): no
       * need to read the whole file for its converted first line */
      empty = false;
      tr_close(&tf);
      break;
    }
    rec r;
    int got = 0;
    while (empty && (got = tr_next(&tf)) > 0) {
      if (!rec_decode(&r, s, tf.line, tf.line_len))
        (*invalid_lines)++;
      else if (r.rt != RT_PAD)
        empty = false;
    }
    if (got < 0)
      empty = false; /* a read error: the reading pass reports it */
    tr_close(&tf);
  }
  free(s);
  return empty;
}

/* Window streams: file i's records are stream i, its late reader's
 * stream n + i; the next record is read from the stream whose largest key
 * so far is the smallest. */
static bool stream_less(const ord_reader *o, size_t a, size_t b) {
  if (o->frontier[a] != o->frontier[b])
    return o->frontier[a] < o->frontier[b];
  return a < b;
}

/* Does `path` start as a plain JSONL trace (not compressed, not another
 * format)? Then a second reader of it is cheap and reads the same lines. */
static bool plain_jsonl(const char *path) {
  static const char start[] = "{\"recordType\":";
  char head[sizeof start - 1];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t got = read(fd, head, sizeof head);
  close(fd);
  return got == (ssize_t)sizeof head && memcmp(head, start, sizeof head) == 0;
}

bool ord_window_suits(const tr_inputs *in) {
  struct rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 &&
      files.rlim_cur != RLIM_INFINITY && 2 * in->n + 32 > files.rlim_cur)
    return false;
  for (size_t i = 0; i < in->n; i++)
    if (!plain_jsonl(in->paths[i]))
      return false;
  return true;
}

/* Window: every file takes part, none read yet (before the reading
 * threads start: nothing is shared yet). */
static bool open_window(ord_reader *o, size_t memory_bytes) {
  o->window = malloc(sizeof *o->window);
  o->heap = calloc(2 * o->n + 1, sizeof *o->heap);
  o->frontier = malloc((2 * o->n + 1) * sizeof *o->frontier);
  if (!o->window || !o->heap || !o->frontier)
    return false;
  if (!rw_init(o->window, memory_bytes)) {
    free(o->window);
    o->window = NULL;
    return false;
  }
  for (size_t i = 0; i < o->n; i++) {
    ord_file *f = &o->files[i];
    o->frontier[i] = o->frontier[o->n + i] = INT64_MIN;
    heap_push(o, i, stream_less);
    if (!plain_jsonl(f->path))
      continue;
    f->late = malloc(sizeof *f->late);
    if (!f->late)
      return false;
    if (tr_open_deferring(f->late, f->path, 64u << 10) != 0 ||
        f->late->format != TR_FORMAT_CCLSCOPE || f->late->codec) {
      if (f->late->fd >= 0)
        tr_close(f->late);
      free(f->late->deferred);
      free(f->late);
      f->late = NULL;
      continue;
    }
    heap_push(o, o->n + i, stream_less);
  }
  return true;
}

static bool open_inputs(ord_reader *o, const tr_inputs *in, ord_mode mode,
                        size_t memory_bytes, const char *progress_label,
                        bool lines_only, bool window) {
  memset(o, 0, sizeof *o);
  o->mode = mode;
  o->lines_only = lines_only && mode != ORD_LOCKSTEP;
  o->n = in->n;
  o->files = calloc(in->n ? in->n : 1, sizeof *o->files);
  o->out_scratch = malloc(sizeof *o->out_scratch);
  if (!o->files || !o->out_scratch)
    return false;
  rec_scratch_init(o->out_scratch);
  progress_start(&o->prog, progress_label, in->total_bytes);
  for (size_t i = 0; i < in->n; i++) {
    ord_file *f = &o->files[i];
    f->path = in->paths[i];
    f->last_key = INT64_MIN;
    f->id.pid = -1;
    f->id.global_rank = -1;
  }
  if (window && !open_window(o, memory_bytes))
    return false;
  /* a reader that only copies lines needs only what orders them */
  o->ra = o->lines_only
              ? ra_open_decoding(in->paths, in->n, tr_jobs, times_decoder(o))
              : ra_open(in->paths, in->n, tr_jobs);
  if (!o->ra)
    return false;
  if (mode == ORD_LOCKSTEP) {
    o->heap = calloc(in->n ? in->n : 1, sizeof *o->heap);
    if (!o->heap)
      return false;
    for (size_t i = 0; i < in->n; i++) {
      ord_file *f = &o->files[i];
      f->scratch = malloc(sizeof *f->scratch);
      if (!f->scratch)
        return false;
      rec_scratch_init(f->scratch);
      lockstep_advance(o, i);
    }
    return true;
  }
  if (window)
    return true;
  o->memory_bytes = memory_bytes; /* tiny budgets (tests) just spill often */
  o->arena_cap = memory_bytes < 4096 ? 4096 : memory_bytes;
  o->arena = malloc(o->arena_cap);
  if (!o->arena || !sort_inputs(o)) {
    o->failed = true;
    return false;
  }
  /* every file has been read: the threads are not needed any more */
  ra_close(o->ra);
  o->ra = NULL;
  o->heap = calloc(o->nruns, sizeof *o->heap);
  if (!o->heap)
    return false;
  for (size_t i = 0; i < o->nruns; i++)
    if (run_next(o, &o->runs[i]))
      heap_push(o, i, run_less);
  return !o->failed;
}

static bool open_or_close(ord_reader *o, const tr_inputs *in, ord_mode mode,
                          size_t memory_bytes, const char *progress_label,
                          bool lines_only, bool window) {
  if (open_inputs(o, in, mode, memory_bytes, progress_label, lines_only,
                  window))
    return true;
  ra_close(o->ra); /* no thread outlives a failed open */
  o->ra = NULL;
  return false;
}

bool ord_open(ord_reader *o, const tr_inputs *in, ord_mode mode,
              size_t memory_bytes, const char *progress_label) {
  return open_or_close(o, in, mode, memory_bytes, progress_label, false, false);
}

bool ord_open_lines(ord_reader *o, const tr_inputs *in, ord_mode mode,
                    size_t memory_bytes, const char *progress_label) {
  return open_or_close(o, in, mode, memory_bytes, progress_label, true, false);
}

bool ord_open_window(ord_reader *o, const tr_inputs *in, ord_mode mode,
                     size_t memory_bytes, const char *progress_label) {
  if (mode == ORD_LOCKSTEP)
    return false;
  return open_or_close(o, in, mode, memory_bytes, progress_label, true, true);
}

bool ord_open_window_records(ord_reader *o, const tr_inputs *in, ord_mode mode,
                             size_t memory_bytes, const char *progress_label) {
  if (mode == ORD_LOCKSTEP)
    return false;
  return open_or_close(o, in, mode, memory_bytes, progress_label, false, true);
}

/* The record of a sorted chunk at `area` (see kept_head) into o->out: as
 * the reading pass decoded it, or decoded again when nothing was kept. */
static const rec *kept_record_text(ord_reader *o, const char *area,
                                   const char *text) {
  kept_head head;
  memcpy(&head, area, sizeof head);
  if (!text)
    text = area + kept_bytes(head.nmembers);
  if (head.nmembers == KEPT_NONE) {
    rec_decode(&o->out, o->out_scratch, text, head.text_len);
    return &o->out;
  }
  const char *at = area + sizeof head;
  memcpy(&o->out, at, sizeof o->out);
  at += sizeof o->out;
  js_fields *fields = &o->out_scratch->top;
  js_fields_reset(fields);
  for (uint32_t i = 0; i < head.nmembers; i++) {
    js_member_at m;
    memcpy(&m, at, sizeof m);
    at += sizeof m;
    js_fields_add_member(fields, &m, text);
  }
  o->out.line = text;
  o->out.len = head.text_len;
  o->out.f = fields;
  return &o->out;
}

static const rec *kept_record(ord_reader *o, const char *area) {
  return kept_record_text(o, area, NULL);
}

/* ---- ord_open_window ---- */

/* How a record is decoded: the line's (rec_decode), or for a reader that
 * keeps only lines, what orders it. */
static ra_decoder line_decoder(const ord_reader *o) {
  return o->lines_only ? times_decoder(o) : rec_decode;
}

/* Unless lines_only: what ord_next needs of o->staged (see kept_head),
 * kept now, as the reader's scratch is used again before it goes out. */
static bool keep_staged(ord_reader *o) {
  o->staged_kept_len = 0;
  if (o->lines_only)
    return true;
  uint32_t nmembers = members_to_keep(&o->staged);
  size_t bytes = kept_bytes(nmembers);
  if (bytes > o->staged_kept_cap) {
    char *nb = realloc(o->staged_kept, bytes);
    if (!nb)
      return false;
    o->staged_kept = nb;
    o->staged_kept_cap = bytes;
  }
  keep_decoded(o->staged_kept, &o->staged, nmembers);
  o->staged_kept_len = bytes;
  return true;
}

/* Unless lines_only: is every file's identity (ord_identity: its first
 * process record) what the sort would have found, before the first record
 * goes out? It is once a file's process record or its end was read. */
static bool identities_known(const ord_reader *o) {
  if (o->lines_only)
    return true;
  for (size_t i = 0; i < o->n; i++)
    if (!o->files[i].id.has_process && !o->files[i].eof)
      return false;
  return true;
}

/* The next timing record of `f`'s late reader into o->staged: true, or
 * false at its end (a read error is the first reader's to say). A timing
 * record without a time would take the time of the record before it,
 * which this reader does not see: the window gives up. */
static bool late_read(ord_reader *o, ord_file *f, int64_t *key) {
  tr_file *tf = f->late;
  while (!f->late_eof) {
    if (tr_next(tf) <= 0 || tf->line_unterminated) {
      /* its end: a file still being written may have more, or the rest
       * of a line cut here, when the first reader gets there. Its file
       * is not needed any more (ord_close closes it again: harmless). */
      f->late_eof = true;
      f->late_lines = tf->line_unterminated ? tf->line_no - 1 : tf->line_no;
      tr_close(tf);
      break;
    }
    if (!late_line(tf->line, tf->line_len))
      continue;
    if (!line_decoder(o)(&o->staged, o->out_scratch, tf->line, tf->line_len)) {
      o->invalid++; /* the first reader passed over it */
      continue;
    }
    if (o->staged.rt == RT_PAD || o->staged.len > UINT32_MAX)
      continue;
    *key = o->mode == ORD_START ? rec_start_time(&o->staged)
                                : rec_write_time(&o->staged);
    if (*key == INT64_MIN)
      o->out_of_window = true;
    return true;
  }
  return false;
}

/* Read the next record of the stream whose largest key so far is the
 * smallest into o->staged; false when every stream is read (or
 * o->out_of_window). */
static bool window_read(ord_reader *o) {
  while (o->nheap > 0) {
    size_t s = heap_pop(o, stream_less);
    bool late = s >= o->n;
    size_t fi = late ? s - o->n : s;
    ord_file *f = &o->files[fi];
    int64_t key;
    if (late) {
      if (!late_read(o, f, &key))
        continue; /* read to its end: it leaves the heap */
      if (o->out_of_window)
        return false;
      o->staged_line = f->late->line_no;
    } else {
      if (!read_record(o, f, o->out_scratch, &o->staged))
        continue;
      if (o->staged.len > UINT32_MAX) {
        heap_push(o, s, stream_less);
        continue; /* as the sort: such a line is left out */
      }
      key = key_of(o, f, &o->staged);
      o->staged_line = f->line.line_no;
    }
    if (!keep_staged(o)) {
      o->failed = true;
      return false;
    }
    o->staged_key = key;
    o->staged_file = fi;
    if (key > o->frontier[s])
      o->frontier[s] = key;
    heap_push(o, s, stream_less);
    o->has_staged = true;
    return true;
  }
  return false;
}

/* Hand out the record of file `file` at `line_no` with `key`: its line
 * `text` of `len` bytes, or unless lines_only its kept area `kept`
 * (followed by its line when `text` is NULL). */
static const rec *window_out(ord_reader *o, ord_where *where, int64_t key,
                             size_t file, uint64_t line_no, const char *kept,
                             const char *text, size_t len) {
  o->has_last = true;
  o->last_key = key;
  o->last_file = (uint32_t)file;
  o->last_line = line_no;
  o->records++;
  where->file = file;
  where->line_no = line_no;
  where->key = key;
  if (!o->lines_only)
    return kept_record_text(o, kept, text);
  memset(&o->out, 0, sizeof o->out);
  o->out.line = text;
  o->out.len = len;
  o->out.rank = -1;
  return &o->out;
}

static const rec *window_next(ord_reader *o, ord_where *where) {
  reorder_window *w = o->window;
  rw_release(w); /* the record handed out last time */
  for (;;) {
    if (!o->has_staged && !window_read(o) && o->out_of_window)
      return NULL;
    if (o->has_staged && o->has_last &&
        rw_compare(o->staged_key, (uint32_t)o->staged_file, o->staged_line,
                   o->last_key, o->last_file, o->last_line) < 0) {
      o->out_of_window = true; /* it belonged before what was handed out */
      o->has_staged = false;
      return NULL;
    }
    if (o->has_staged && rw_fits(w, o->staged_kept_len + o->staged.len)) {
      if (!rw_push(w, o->staged_key, (uint32_t)o->staged_file, o->staged_line,
                   o->staged_kept, o->staged_kept_len, o->staged.line,
                   o->staged.len)) {
        o->failed = true;
        return NULL;
      }
      o->has_staged = false;
      continue;
    }
    const rw_node *min = rw_min(w);
    if (!identities_known(o) && (o->has_staged || min)) {
      o->out_of_window = true; /* a file without its process record yet */
      return NULL;
    }
    if (o->has_staged &&
        (!min ||
         rw_compare(o->staged_key, (uint32_t)o->staged_file, o->staged_line,
                    min->key, min->file, min->line_no) < 0)) {
      /* smaller than everything waiting (or too long for the window):
       * straight out, from where it was read */
      o->has_staged = false;
      return window_out(o, where, o->staged_key, o->staged_file, o->staged_line,
                        o->staged_kept, o->staged.line, o->staged.len);
    }
    if (!min)
      return NULL; /* everything read and handed out */
    rw_node n;
    const char *text;
    rw_pop(w, &n, &text);
    /* an entry is the line, or its kept area followed by the line */
    return window_out(o, where, n.key, n.file, n.line_no,
                      o->lines_only ? NULL : text, o->lines_only ? text : NULL,
                      n.len);
  }
}

const rec *ord_next(ord_reader *o, ord_where *where) {
  if (o->window)
    return window_next(o, where);
  less_fn less = o->mode == ORD_LOCKSTEP ? file_less : run_less;
  if (o->has_pending) {
    /* what was handed out last time stays valid until now */
    o->has_pending = false;
    if (o->mode == ORD_LOCKSTEP)
      lockstep_advance(o, o->pending);
    else if (run_next(o, &o->runs[o->pending]))
      heap_push(o, o->pending, less);
  }
  if (o->nheap == 0)
    return NULL;
  size_t top = heap_pop(o, less);
  o->pending = top;
  o->has_pending = true;
  o->records++;
  if (o->mode == ORD_LOCKSTEP) {
    ord_file *f = &o->files[top];
    o->out = f->cur;
    where->file = top;
    where->line_no = f->line.line_no;
    where->key = f->cur_key;
    return &o->out;
  }
  const ord_run *r = &o->runs[top];
  where->file = r->cur.file;
  where->line_no = r->cur.line_no;
  where->key = r->cur.key;
  if (o->lines_only) {
    memset(&o->out, 0, sizeof o->out);
    o->out.line = r->cur_text;
    o->out.len = r->cur.len;
    o->out.rank = -1;
    return &o->out;
  }
  return kept_record(o, r->cur_text);
}

void ord_close(ord_reader *o) {
  progress_finish(&o->prog);
  ra_close(o->ra);
  for (size_t i = 0; i < o->n; i++) {
    ord_file *f = &o->files[i];
    free(f->scratch);
    if (f->late) {
      tr_close(f->late);
      free(f->late->deferred);
      free(f->late);
    }
  }
  for (size_t i = 0; i < o->nruns; i++) {
    if (o->runs[i].fd >= 0)
      close(o->runs[i].fd);
    free(o->runs[i].buf);
  }
  free(o->runs);
  free(o->files);
  free(o->heap);
  free(o->items);
  free(o->arena);
  free(o->out_scratch);
  if (o->window)
    rw_free(o->window);
  free(o->window);
  free(o->frontier);
  free(o->staged_kept);
  memset(o, 0, sizeof *o);
}
