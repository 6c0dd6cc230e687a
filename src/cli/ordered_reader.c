/*
 * src/cli/ordered_reader.c — many files as one ordered stream (see
 * ordered_reader.h for the two modes and their guarantees).
 */
#include "ordered_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void note_identity(ord_file *f, const rec *r) {
  if (r->rt == RT_PROCESS_END)
    f->id.has_process_end = true;
  if (r->rt != RT_PROCESS || f->id.has_process)
    return;
  f->id.has_process = true;
  js_str_copy(js_get(r->f, K_hostname), f->id.host, sizeof f->id.host);
  if (!js_to_i64(js_get(r->f, K_pid), &f->id.pid))
    f->id.pid = -1;
  uint64_t tag;
  if (js_to_hex_u64(js_get(r->f, K_handleTag), &tag)) {
    f->id.has_tag = true;
    f->id.handle_tag = (uint32_t)tag;
  }
}

/* Read the next record of `f` into `r` (decoded with `s`); false at EOF. */
static bool read_record(ord_reader *o, ord_file *f, rec_scratch *s, rec *r) {
  while (!f->eof) {
    int got = tr_next(&f->tf);
    if (got <= 0) {
      if (got < 0)
        fprintf(stderr, "cclscope: error reading '%s': %s\n", f->path,
                strerror(f->tf.error));
      f->eof = true;
      break;
    }
    if (!rec_decode(r, s, f->tf.line, f->tf.line_len)) {
      o->invalid++;
      continue;
    }
    if (r->rt == RT_PAD)
      continue;
    note_identity(f, r);
    o->bytes_done += f->tf.bytes_read - f->bytes_counted;
    f->bytes_counted = f->tf.bytes_read;
    progress_update(&o->prog, o->bytes_done);
    return true;
  }
  return false;
}

static int64_t key_of(const ord_reader *o, ord_file *f, const rec *r) {
  int64_t k = o->mode == ORD_START ? rec_start_time(r) : rec_write_time(r);
  if (k == INT64_MIN)
    k = f->last_key;
  else
    f->last_key = k;
  return k;
}

/* ---- per-file window heap (ORD_START) ---- */

static bool item_less(const ord_item *a, const ord_item *b) {
  return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static bool window_push(ord_file *f, ord_item *it) {
  if (f->nheap == f->cap_heap) {
    size_t ncap = f->cap_heap ? f->cap_heap * 2 : 64;
    ord_item **nh = realloc(f->heap, ncap * sizeof *nh);
    if (!nh)
      return false;
    f->heap = nh;
    f->cap_heap = ncap;
  }
  size_t i = f->nheap++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!item_less(it, f->heap[parent]))
      break;
    f->heap[i] = f->heap[parent];
    i = parent;
  }
  f->heap[i] = it;
  f->window_used += sizeof *it + it->len + 1;
  return true;
}

static ord_item *window_pop(ord_file *f) {
  ord_item *top = f->heap[0];
  ord_item *last = f->heap[--f->nheap];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    const ord_item *best = last;
    if (l < f->nheap && item_less(f->heap[l], best)) {
      m = l;
      best = f->heap[l];
    }
    if (r < f->nheap && item_less(f->heap[r], best))
      m = r;
    if (m == i)
      break;
    f->heap[i] = f->heap[m];
    i = m;
  }
  if (f->nheap > 0)
    f->heap[i] = last;
  f->window_used -= sizeof *top + top->len + 1;
  return top;
}

/* Fill the window of `f` up to its budget (always at least one line). */
static bool window_fill(ord_reader *o, ord_file *f) {
  rec r;
  while (!f->eof && (f->nheap == 0 || f->window_used < o->window_per_file)) {
    if (!read_record(o, f, o->out_scratch, &r))
      break;
    ord_item *it = malloc(sizeof *it + r.len + 1);
    if (!it)
      return false;
    it->key = key_of(o, f, &r);
    it->seq = o->seq++;
    it->line_no = f->tf.line_no;
    it->len = r.len;
    memcpy(it->text, r.line, r.len);
    it->text[r.len] = '\0';
    if (!window_push(f, it)) {
      free(it);
      return false;
    }
  }
  return true;
}

/* ---- the heap of files ---- */

static bool file_less(const ord_reader *o, size_t a, size_t b) {
  const ord_file *fa = &o->files[a], *fb = &o->files[b];
  if (o->mode == ORD_LOCKSTEP) {
    if (fa->cur_key != fb->cur_key)
      return fa->cur_key < fb->cur_key;
    return a < b;
  }
  return item_less(fa->heap[0], fb->heap[0]);
}

static void files_push(ord_reader *o, size_t fi) {
  size_t i = o->nheap++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!file_less(o, fi, o->heap[parent]))
      break;
    o->heap[i] = o->heap[parent];
    i = parent;
  }
  o->heap[i] = fi;
}

static size_t files_pop(ord_reader *o) {
  size_t top = o->heap[0];
  size_t last = o->heap[--o->nheap];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    size_t best = last;
    if (l < o->nheap && file_less(o, o->heap[l], best)) {
      m = l;
      best = o->heap[l];
    }
    if (r < o->nheap && file_less(o, o->heap[r], best))
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

/* Make file `fi` ready (its next record known) and queue it. */
static bool advance(ord_reader *o, size_t fi) {
  ord_file *f = &o->files[fi];
  if (o->mode == ORD_LOCKSTEP) {
    f->has_cur = read_record(o, f, f->scratch, &f->cur);
    if (!f->has_cur)
      return true;
    f->cur_key = key_of(o, f, &f->cur);
  } else {
    if (!window_fill(o, f))
      return false;
    if (f->nheap == 0)
      return true;
  }
  files_push(o, fi);
  return true;
}

bool ord_open(ord_reader *o, const tr_inputs *in, ord_mode mode,
              size_t window_bytes, const char *progress_label) {
  memset(o, 0, sizeof *o);
  o->mode = mode;
  o->n = in->n;
  o->last_emitted = INT64_MIN;
  o->files = calloc(in->n, sizeof *o->files);
  o->heap = calloc(in->n, sizeof *o->heap);
  o->out_scratch = malloc(sizeof *o->out_scratch);
  if (!o->files || !o->heap || !o->out_scratch)
    return false;
  rec_scratch_init(o->out_scratch);
  /* at least one line per file, whatever the budget */
  o->window_per_file = window_bytes / (in->n ? in->n : 1);
  progress_start(&o->prog, progress_label, in->total_bytes);
  /* Smaller read buffers when there are many files. */
  size_t bufsize = in->n > 64 ? (256u << 10) : (1u << 20);
  for (size_t i = 0; i < in->n; i++) {
    ord_file *f = &o->files[i];
    f->path = in->paths[i];
    f->last_key = INT64_MIN;
    f->id.pid = -1;
    int err = tr_open(&f->tf, f->path, bufsize);
    if (err) {
      fprintf(stderr, "cclscope: cannot open '%s': %s\n", f->path,
              strerror(err));
      o->unreadable_files++;
      f->eof = true;
      f->tf.fd = -1;
      continue;
    }
    f->opened = true;
    if (mode == ORD_LOCKSTEP) {
      f->scratch = malloc(sizeof *f->scratch);
      if (!f->scratch)
        return false;
      rec_scratch_init(f->scratch);
    }
    if (!advance(o, i))
      return false;
  }
  return true;
}

const rec *ord_next(ord_reader *o, ord_where *where) {
  free(o->out_item);
  o->out_item = NULL;
  if (o->has_pending) {
    /* The file whose record was returned last reads its next one now. */
    o->has_pending = false;
    if (!advance(o, o->pending_advance))
      fprintf(stderr, "cclscope: out of memory\n");
  }
  if (o->nheap == 0)
    return NULL;
  size_t fi = files_pop(o);
  ord_file *f = &o->files[fi];
  o->records++;
  if (o->mode == ORD_LOCKSTEP) {
    /* Hand out a copy of the decoded record; its spans stay valid until
     * this file reads again, which happens on the next call. */
    o->out = f->cur;
    where->file = fi;
    where->line_no = f->tf.line_no;
    where->key = f->cur_key;
    o->pending_advance = fi;
    o->has_pending = true;
    return &o->out;
  }
  ord_item *it = window_pop(f);
  o->out_item = it;
  where->file = fi;
  where->line_no = it->line_no;
  where->key = it->key;
  if (o->last_emitted != INT64_MIN && it->key < o->last_emitted)
    o->late++;
  else
    o->last_emitted = it->key;
  if (!window_fill(o, f))
    fprintf(stderr, "cclscope: out of memory reading '%s'\n", f->path);
  if (f->nheap > 0)
    files_push(o, fi);
  rec_decode(&o->out, o->out_scratch, it->text, it->len);
  return &o->out;
}

void ord_close(ord_reader *o) {
  progress_finish(&o->prog);
  for (size_t i = 0; i < o->n; i++) {
    ord_file *f = &o->files[i];
    if (f->opened)
      tr_close(&f->tf);
    for (size_t k = 0; k < f->nheap; k++)
      free(f->heap[k]);
    free(f->heap);
    free(f->scratch);
  }
  free(o->files);
  free(o->heap);
  free(o->out_scratch);
  free(o->out_item);
  memset(o, 0, sizeof *o);
}
