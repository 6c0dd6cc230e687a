/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/lanes.c — see lanes.h.
 */
#include "convert/lanes.h"

#include <stdlib.h>
#include <string.h>

void lane_group_init(lane_group *g) {
  memset(g, 0, sizeof *g);
}

void lane_group_free(lane_group *g) {
  free(g->lanes);
  memset(g, 0, sizeof *g);
}

/* Close frames of `l` that ended by `t`. */
static void close_until(lane *l, int64_t t, lane_leave_fn on_leave, void *arg) {
  while (l->depth > 0 && l->stack[l->depth - 1].end <= t) {
    const lane_frame *f = &l->stack[--l->depth];
    if (f->end > l->last_time)
      l->last_time = f->end;
    if (on_leave)
      on_leave(arg, l, f);
  }
}

static bool fits(const lane *l, int64_t start, int64_t end) {
  if (start < l->last_time || l->depth == LANE_MAX_DEPTH)
    return false;
  return l->depth == 0 || end <= l->stack[l->depth - 1].end;
}

static void push(lane *l, int64_t start, int64_t end, uint64_t user) {
  l->stack[l->depth].end = end;
  l->stack[l->depth].user = user;
  l->depth++;
  l->last_time = start;
}

int lanes_place(lane_group *g, int64_t start, int64_t end, uint64_t user,
                lane_leave_fn on_leave, void *arg, bool *created) {
  *created = false;
  for (int i = 0; i < g->n; i++) {
    lane *l = &g->lanes[i];
    if (start >= l->last_time)
      close_until(l, start, on_leave, arg);
    if (fits(l, start, end)) {
      push(l, start, end, user);
      return i;
    }
  }
  if (g->n == LANE_MAX_PER_GROUP)
    return -1;
  if (g->n == g->cap) {
    int ncap = g->cap ? g->cap * 2 : 4;
    lane *nl = realloc(g->lanes, (size_t)ncap * sizeof *nl);
    if (!nl)
      return -1;
    g->lanes = nl;
    g->cap = ncap;
  }
  lane *l = &g->lanes[g->n];
  memset(l, 0, sizeof *l);
  l->last_time = INT64_MIN;
  push(l, start, end, user);
  *created = true;
  return g->n++;
}

void lanes_close_all(lane_group *g, lane_leave_fn on_leave, void *arg) {
  for (int i = 0; i < g->n; i++)
    close_until(&g->lanes[i], INT64_MAX, on_leave, arg);
}
