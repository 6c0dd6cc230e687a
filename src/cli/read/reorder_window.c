/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/reorder_window.c — a ring of lines in ascending piles and a
 * heap of the piles' first lines (see reorder_window.h).
 *
 * A ring entry is an entry_head and the line's text, rounded up to 8
 * bytes. Entries are handed out in key order, which is nearly the order
 * they came in, so the room of one handed out is used again once every
 * entry before it is handed out too (the tail moves over them). An entry
 * that does not fit between the head and the ring's end starts again at
 * the ring's start; the bytes left at the end count as used until the tail
 * passes them (a WRAP head marks them, when there is room for one).
 *
 * by_tail keeps the live piles by their last line, descending: a new pile
 * starts only below every last line, so it goes at the end, and a line
 * joining a pile keeps the order (it stays below the last line before
 * that pile's). Most lines join the first pile (one comparison).
 */
#include "read/reorder_window.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  int64_t key;
  uint64_t line_no;
  size_t next; /* the next entry of its pile, or NO_ENTRY */
  uint32_t file;
  uint32_t len;   /* of the text */
  uint32_t state; /* ENTRY_LIVE, ENTRY_DONE or ENTRY_WRAP */
  uint32_t unused;
} entry_head;

enum { ENTRY_LIVE = 0, ENTRY_DONE = 1, ENTRY_WRAP = 2 };
#define NO_ENTRY SIZE_MAX

static size_t entry_bytes(size_t len) {
  return sizeof(entry_head) + ((len + 7) & ~(size_t)7);
}

static entry_head *entry_at(const reorder_window *w, size_t at) {
  return (entry_head *)(void *)(w->ring + at);
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
  free(w->piles);
  free(w->by_tail);
  free(w->free_piles);
  free(w->heads);
  memset(w, 0, sizeof *w);
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

/* The piles' arrays when they hold `n` piles (allocated as they grow). */
static size_t pile_bytes(const reorder_window *w, size_t n) {
  size_t cap = w->cap_piles;
  while (cap < n)
    cap = cap ? cap * 2 : 16;
  return cap * RW_PILE_BYTES;
}

bool rw_fits(const reorder_window *w, size_t len) {
  size_t growth = ring_growth(w, entry_bytes(len));
  if (growth == 0)
    return false;
  return w->span + growth + pile_bytes(w, w->used_piles + 1) <= w->memory_bytes;
}

static void note_peak(reorder_window *w) {
  size_t used = w->span + w->cap_piles * RW_PILE_BYTES;
  if (used > w->peak)
    w->peak = used;
}

static bool grow_piles(reorder_window *w) {
  size_t ncap = w->cap_piles ? w->cap_piles * 2 : 16;
  rw_pile *np = realloc(w->piles, ncap * sizeof *np);
  if (np)
    w->piles = np;
  uint32_t *nb = realloc(w->by_tail, ncap * sizeof *nb);
  if (nb)
    w->by_tail = nb;
  uint32_t *nf = realloc(w->free_piles, ncap * sizeof *nf);
  if (nf)
    w->free_piles = nf;
  rw_head *nh = realloc(w->heads, ncap * sizeof *nh);
  if (nh)
    w->heads = nh;
  if (!np || !nb || !nf || !nh)
    return false;
  w->cap_piles = ncap;
  return true;
}

/* ---- the heap of the piles' first lines ---- */

static void heads_sift_down(reorder_window *w, size_t i) {
  rw_head v = w->heads[i];
  size_t n = w->npiles;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    const rw_node *best = &v.head;
    if (l < n && node_less(&w->heads[l].head, best)) {
      m = l;
      best = &w->heads[l].head;
    }
    if (r < n && node_less(&w->heads[r].head, best))
      m = r;
    if (m == i)
      break;
    w->heads[i] = w->heads[m];
    i = m;
  }
  w->heads[i] = v;
}

static void heads_push(reorder_window *w, rw_head v) {
  size_t i = w->npiles++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!node_less(&v.head, &w->heads[parent].head))
      break;
    w->heads[i] = w->heads[parent];
    i = parent;
  }
  w->heads[i] = v;
}

/* ---- piles by their last line ---- */

/* The first place in by_tail (descending) whose last line is below `x`
 * (npiles when none is). */
static size_t first_below(const reorder_window *w, const rw_node *x) {
  size_t lo = 0, hi = w->npiles;
  if (hi > 0 && node_less(&w->piles[w->by_tail[0]].tail, x))
    return 0; /* the usual case: x comes after every pile */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (node_less(&w->piles[w->by_tail[mid]].tail, x))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

static void remove_by_tail(reorder_window *w, uint32_t id) {
  /* the live piles but this one are in by_tail: npiles + 1 of them */
  size_t n = w->npiles + 1;
  const rw_node *t = &w->piles[id].tail;
  size_t lo = 0, hi = n;
  while (lo < hi) { /* the first whose last line is not above t */
    size_t mid = lo + (hi - lo) / 2;
    if (node_less(t, &w->piles[w->by_tail[mid]].tail))
      lo = mid + 1;
    else
      hi = mid;
  }
  memmove(&w->by_tail[lo], &w->by_tail[lo + 1],
          (n - lo - 1) * sizeof *w->by_tail);
}

bool rw_push(reorder_window *w, int64_t key, uint32_t file, uint64_t line_no,
             const void *head, size_t head_len, const char *text,
             size_t text_len) {
  size_t len = head_len + text_len;
  if (w->npiles + 1 > w->cap_piles && !grow_piles(w))
    return false;
  size_t need = entry_bytes(len);
  if (w->entries == 0) {
    w->head = w->tail = 0;
    w->span = 0;
  } else if (w->head > w->tail && w->cap - w->head < need) {
    /* wrap: the end of the ring stays unused until the tail passes it
     * (marked when a head fits there; else the tail knows it by size) */
    if (w->cap - w->head >= sizeof(entry_head)) {
      entry_head *wrap = entry_at(w, w->head);
      memset(wrap, 0, sizeof *wrap);
      wrap->state = ENTRY_WRAP;
    }
    w->span += w->cap - w->head;
    w->head = 0;
  }
  size_t at = w->head;
  entry_head *e = entry_at(w, at);
  e->key = key;
  e->line_no = line_no;
  e->next = NO_ENTRY;
  e->file = file;
  e->len = (uint32_t)len;
  e->state = ENTRY_LIVE;
  e->unused = 0;
  if (head_len)
    memcpy(w->ring + at + sizeof *e, head, head_len);
  memcpy(w->ring + at + sizeof *e + head_len, text, text_len);
  w->head = at + need;
  if (w->head == w->cap)
    w->head = 0;
  w->span += need;
  w->entries++;

  rw_node x = {key, file, (uint32_t)len, line_no, at};
  size_t i = first_below(w, &x);
  if (i < w->npiles) { /* joins that pile, at its end */
    rw_pile *p = &w->piles[w->by_tail[i]];
    entry_at(w, p->last)->next = at;
    p->last = at;
    p->tail = x;
  } else { /* below every pile: a new one, last in by_tail */
    uint32_t id =
        w->nfree ? w->free_piles[--w->nfree] : (uint32_t)w->used_piles++;
    rw_pile *p = &w->piles[id];
    p->first = p->last = at;
    p->tail = x;
    w->by_tail[w->npiles] = id;
    rw_head h = {x, id};
    heads_push(w, h);
  }
  note_peak(w);
  return true;
}

const rw_node *rw_min(const reorder_window *w) {
  return w->npiles ? &w->heads[0].head : NULL;
}

void rw_pop(reorder_window *w, rw_node *out, const char **text) {
  rw_head top = w->heads[0];
  *out = top.head;
  *text = w->ring + out->at + sizeof(entry_head);
  w->has_out = true;
  w->out_at = out->at;
  rw_pile *p = &w->piles[top.pile];
  if (p->first == p->last) { /* its last line: the pile goes */
    w->heads[0] = w->heads[--w->npiles];
    if (w->npiles > 0)
      heads_sift_down(w, 0);
    remove_by_tail(w, top.pile);
    w->free_piles[w->nfree++] = top.pile;
    return;
  }
  size_t next = entry_at(w, p->first)->next;
  p->first = next;
  const entry_head *e = entry_at(w, next);
  rw_node h = {e->key, e->file, e->len, e->line_no, next};
  w->heads[0].head = h;
  heads_sift_down(w, 0);
}

void rw_release(reorder_window *w) {
  if (!w->has_out)
    return;
  w->has_out = false;
  entry_at(w, w->out_at)->state = ENTRY_DONE;
  /* the tail moves over every entry handed out (and the end of the ring
   * where an entry wrapped) */
  while (w->entries > 0) {
    if (w->cap - w->tail < sizeof(entry_head)) { /* an unmarked end */
      w->span -= w->cap - w->tail;
      w->tail = 0;
      continue;
    }
    const entry_head *e = entry_at(w, w->tail);
    if (e->state == ENTRY_WRAP) {
      w->span -= w->cap - w->tail;
      w->tail = 0;
      continue;
    }
    if (e->state != ENTRY_DONE)
      break;
    size_t bytes = entry_bytes(e->len);
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
