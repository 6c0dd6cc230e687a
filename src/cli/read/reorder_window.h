/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/reorder_window.h — lines waiting to be handed out in key
 * order, within a memory budget.
 *
 * Owns: a ring of line copies (in the order they came), linked into
 * ascending piles, and a min-heap of the piles' first lines, by (key, file,
 * line number): the order of the external sort in ordered_reader.c (ties
 * keep files by name, then lines). A line joins the pile with the largest
 * last line below it, or starts a pile when there is none (as in patience
 * sorting): lines that come in order make one pile, each group of lines
 * that comes late one more, so the heap holds a few piles, not every line.
 * The ordered reader puts each record it reads in the window and takes
 * the smallest out only when the next one does not fit: a trace whose
 * records come at most a window's worth of bytes late (each file is nearly
 * in time order) then comes out sorted without any temporary file.
 *
 * Memory: the ring's bytes in use (each line rounded up to 8 bytes, a
 * 40-byte head each, and the space left at its end when it wraps) plus the
 * piles' arrays (RW_PILE_BYTES a pile, as allocated) never exceed
 * `memory_bytes`; the ring is allocated once (its pages are touched as it
 * fills).
 */
#ifndef CCLSCOPE_CLI_REORDER_WINDOW_H
#define CCLSCOPE_CLI_REORDER_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One line in the window: its place in the order and in the ring. */
typedef struct {
  int64_t key;
  uint32_t file;
  uint32_t len;     /* of the text */
  uint64_t line_no; /* in its file: ties keep line order */
  size_t at;        /* of its entry in the ring */
} rw_node;

/* Lines in ascending order, linked through their ring entries. */
typedef struct {
  size_t first, last; /* ring entries */
  rw_node tail;       /* the last line's place in the order */
} rw_pile;

/* A pile's first line, in the heap. */
typedef struct {
  rw_node head;
  uint32_t pile;
} rw_head;

/* What a pile costs in the arrays: the pile, its heap slot, its place in
 * by_tail and on the free list. */
#define RW_PILE_BYTES (sizeof(rw_pile) + sizeof(rw_head) + 2 * sizeof(uint32_t))

typedef struct {
  char *ring;
  size_t cap;          /* of the ring: memory_bytes */
  size_t memory_bytes; /* the budget: ring span + piles */
  size_t head, tail;   /* the next entry goes at head; the oldest is at tail */
  size_t span;         /* bytes from tail to head, waste included */
  size_t entries;      /* in the ring, handed out or not */
  /* piles: `cap_piles` of each array allocated */
  rw_pile *piles;
  uint32_t *by_tail; /* live piles, their last lines descending */
  uint32_t *free_piles;
  rw_head *heads; /* min-heap of the live piles' first lines */
  size_t npiles, nfree, cap_piles, used_piles;
  bool has_out;  /* a line was taken out and is still in the ring */
  size_t out_at; /* its entry */
  size_t peak;   /* most bytes in use (span + piles), for tests */
} reorder_window;

/* The window, empty; false when out of memory. */
bool rw_init(reorder_window *w, size_t memory_bytes);
void rw_free(reorder_window *w);

/* Would an entry of `len` bytes fit now (budget and ring)? */
bool rw_fits(const reorder_window *w, size_t len);

/* Copy an entry in (only after rw_fits said yes for head_len + len): `head`
 * (what the caller keeps with the line, head_len bytes, may be 0) then the
 * line. The node's len and the text rw_pop gives cover both. False when
 * out of memory (the piles' arrays grow). */
bool rw_push(reorder_window *w, int64_t key, uint32_t file, uint64_t line_no,
             const void *head, size_t head_len, const char *text, size_t len);

/* The smallest line, or NULL when the window is empty. */
const rw_node *rw_min(const reorder_window *w);

/* Take the smallest line out (the window is not empty): *text stays valid
 * until rw_release. */
void rw_pop(reorder_window *w, rw_node *out, const char **text);

/* The line taken out last is done with: its room can be used again. */
void rw_release(reorder_window *w);

/* (key, file, line number) order: negative, 0 or positive. */
int rw_compare(int64_t key_a, uint32_t file_a, uint64_t line_a, int64_t key_b,
               uint32_t file_b, uint64_t line_b);

#endif
