/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/reorder_window.c — a ring of lines and a heap of their keys
 * (see reorder_window.h).
 *
 * A ring entry is an entry_head and the line's text, rounded up to 8
 * bytes. Entries are handed out in key order, which is nearly the order
 * they came in, so the room of one handed out is used again once every
 * entry before it is handed out too (the tail moves over them). An entry
 * that does not fit between the head and the ring's end starts again at
 * the ring's start; the bytes left at the end count as used until the tail
 * passes them (a WRAP head marks them when there is room for one).
 */
#include "read/reorder_window.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  uint32_t len;   /* of the text */
  uint32_t state; /* ENTRY_LIVE, ENTRY_DONE or ENTRY_WRAP */
} entry_head;

enum { ENTRY_LIVE = 0, ENTRY_DONE = 1, ENTRY_WRAP = 2 };

static size_t entry_bytes(size_t len) {
  return sizeof(entry_head) + ((len + 7) & ~(size_t)7);
}

bool rw_init(reorder_window *w, size_t memory_bytes) {
  memset(w, 0, sizeof *w);
  w->memory_bytes = memory_bytes;
  w->cap = memory_bytes < 4096 ? 4096 : memory_bytes;
  w->cap &= ~(size_t)7;
  w->ring = malloc(w->cap);
  return w->ring != NULL;
}

void rw_free(reorder_window *w) {
  free(w->ring);
  free(w->heap);
  memset(w, 0, sizeof *w);
}

/* Bytes the ring's span grows by if an entry of `need` bytes goes in now
 * (the end skipped when it wraps), or 0 when it does not fit. */
static size_t ring_growth(const reorder_window *w, size_t need) {
  if (w->entries == 0)
    return need <= w->cap ? need : 0;
  if (w->head > w->tail) {
    if (w->cap - w->head >= need)
      return need;
    return w->tail >= need ? (w->cap - w->head) + need : 0;
  }
  if (w->head < w->tail)
    return w->tail - w->head >= need ? need : 0;
  return 0; /* full */
}

bool rw_fits(const reorder_window *w, size_t len) {
  size_t growth = ring_growth(w, entry_bytes(len));
  if (growth == 0)
    return false;
  size_t heap_bytes = (w->nheap + 1) * sizeof(rw_node);
  return w->span + growth + heap_bytes <= w->memory_bytes;
}

int rw_compare(int64_t key_a, uint32_t file_a, uint64_t line_a, int64_t key_b,
               uint32_t file_b, uint64_t line_b) {
  if (key_a != key_b)
    return key_a < key_b ? -1 : 1;
  if (file_a != file_b)
    return file_a < file_b ? -1 : 1;
  return line_a < line_b ? -1 : line_a > line_b;
}

static bool node_less(const rw_node *a, const rw_node *b) {
  return rw_compare(a->key, a->file, a->line_no, b->key, b->file, b->line_no) <
         0;
}

static void note_peak(reorder_window *w) {
  size_t used = w->span + w->nheap * sizeof(rw_node);
  if (used > w->peak)
    w->peak = used;
}

bool rw_push(reorder_window *w, int64_t key, uint32_t file, uint64_t line_no,
             const char *text, size_t len) {
  if (w->nheap == w->cap_heap) {
    size_t ncap = w->cap_heap ? w->cap_heap * 2 : 1024;
    rw_node *nh = realloc(w->heap, ncap * sizeof *nh);
    if (!nh)
      return false;
    w->heap = nh;
    w->cap_heap = ncap;
  }
  size_t need = entry_bytes(len);
  if (w->entries == 0) {
    w->head = w->tail = 0;
    w->span = 0;
  } else if (w->head > w->tail && w->cap - w->head < need) {
    /* wrap: the end of the ring stays unused until the tail passes it */
    if (w->cap - w->head >= sizeof(entry_head)) {
      entry_head wrap = {0, ENTRY_WRAP};
      memcpy(w->ring + w->head, &wrap, sizeof wrap);
    }
    w->span += w->cap - w->head;
    w->head = 0;
  }
  size_t at = w->head;
  entry_head h = {(uint32_t)len, ENTRY_LIVE};
  memcpy(w->ring + at, &h, sizeof h);
  memcpy(w->ring + at + sizeof h, text, len);
  w->head = at + need;
  if (w->head == w->cap)
    w->head = 0;
  w->span += need;
  w->entries++;
  /* sift up: a line that comes in order stays at the bottom */
  rw_node v = {key, file, (uint32_t)len, line_no, at};
  size_t i = w->nheap++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!node_less(&v, &w->heap[parent]))
      break;
    w->heap[i] = w->heap[parent];
    i = parent;
  }
  w->heap[i] = v;
  note_peak(w);
  return true;
}

const rw_node *rw_min(const reorder_window *w) {
  return w->nheap ? &w->heap[0] : NULL;
}

void rw_pop(reorder_window *w, rw_node *out, const char **text) {
  *out = w->heap[0];
  *text = w->ring + out->at + sizeof(entry_head);
  w->has_out = true;
  w->out_at = out->at;
  rw_node last = w->heap[--w->nheap];
  size_t n = w->nheap, i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    const rw_node *best = &last;
    if (l < n && node_less(&w->heap[l], best)) {
      m = l;
      best = &w->heap[l];
    }
    if (r < n && node_less(&w->heap[r], best))
      m = r;
    if (m == i)
      break;
    w->heap[i] = w->heap[m];
    i = m;
  }
  if (n > 0)
    w->heap[i] = last;
}

void rw_release(reorder_window *w) {
  if (!w->has_out)
    return;
  w->has_out = false;
  entry_head h;
  memcpy(&h, w->ring + w->out_at, sizeof h);
  h.state = ENTRY_DONE;
  memcpy(w->ring + w->out_at, &h, sizeof h);
  /* the tail moves over every entry handed out (and the end of the ring
   * where an entry wrapped) */
  while (w->entries > 0) {
    if (w->cap - w->tail < sizeof(entry_head)) {
      w->span -= w->cap - w->tail;
      w->tail = 0;
      continue;
    }
    memcpy(&h, w->ring + w->tail, sizeof h);
    if (h.state == ENTRY_WRAP) {
      w->span -= w->cap - w->tail;
      w->tail = 0;
      continue;
    }
    if (h.state != ENTRY_DONE)
      break;
    size_t bytes = entry_bytes(h.len);
    w->tail += bytes;
    if (w->tail == w->cap)
      w->tail = 0;
    w->span -= bytes;
    w->entries--;
  }
  if (w->entries == 0) {
    w->head = w->tail = 0;
    w->span = 0;
  }
}
