/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_graph.c — the wait-for graph of `cclscope hang`: an edge
 * from a stuck rank to each peer the head of one of its pipelines waits on
 * (RecvWait: the peer's data; SendPeerWait: the peer's buffer). How many
 * stuck ranks reach a candidate through it orders the candidates; when
 * nobody is a candidate, the cycle the stuck ranks wait in.
 */
#include <stdlib.h>
#include <string.h>

#include "hang/hang.h"

bool hang_waits_on_peer(const hang_head *h, int64_t self, int64_t n) {
  return (h->wait == HW_PEER_DATA || h->wait == HW_PEER_BUFFER) &&
         h->peer >= 0 && h->peer < n && h->peer != self;
}

bool hang_graph_build(hang_group *g, hang_graph *gr) {
  size_t n = (size_t)g->nranks, nedges = 0;
  gr->start = calloc(n + 1, sizeof *gr->start);
  if (!gr->start)
    return false;
  for (size_t r = 0; r < n; r++) {
    hang_rank *hr = &g->ranks[r];
    for (size_t i = 0; i < hr->nheads; i++)
      if (hang_waits_on_peer(hr->heads[i], hr->rank, g->nranks)) {
        gr->start[hr->heads[i]->peer + 1]++;
        nedges++;
      }
  }
  for (size_t r = 0; r < n; r++)
    gr->start[r + 1] += gr->start[r];
  gr->from = malloc((nedges ? nedges : 1) * sizeof *gr->from);
  size_t *fill = calloc(n, sizeof *fill);
  if (!gr->from || !fill) {
    free(fill);
    return false;
  }
  for (size_t r = 0; r < n; r++) {
    hang_rank *hr = &g->ranks[r];
    for (size_t i = 0; i < hr->nheads; i++)
      if (hang_waits_on_peer(hr->heads[i], hr->rank, g->nranks)) {
        size_t to = (size_t)hr->heads[i]->peer;
        gr->from[gr->start[to] + fill[to]++] = hr->rank;
      }
  }
  free(fill);
  /* waited_by: distinct ranks waiting directly */
  for (size_t to = 0; to < n; to++) {
    size_t distinct = 0;
    for (size_t e = gr->start[to]; e < gr->start[to + 1]; e++) {
      bool seen = false;
      for (size_t f = gr->start[to]; f < e && !seen; f++)
        seen = gr->from[f] == gr->from[e];
      distinct += !seen;
    }
    g->ranks[to].waited_by = distinct;
  }
  return true;
}

size_t hang_graph_reach(const hang_group *g, const hang_graph *gr,
                        int64_t target, bool *seen, int64_t *queue) {
  size_t n = (size_t)g->nranks, head = 0, tail = 0, count = 0;
  memset(seen, 0, n * sizeof *seen);
  seen[target] = true;
  queue[tail++] = target;
  while (head < tail) {
    int64_t to = queue[head++];
    for (size_t e = gr->start[to]; e < gr->start[to + 1]; e++) {
      int64_t f = gr->from[e];
      if (seen[f])
        continue;
      seen[f] = true;
      queue[tail++] = f;
      count++;
    }
  }
  return count;
}

void hang_graph_cycle(hang_group *g) {
  int64_t start = -1;
  for (int64_t r = 0; r < g->nranks && start < 0; r++)
    if (g->ranks[r].waits_on_peer)
      start = r;
  if (start < 0)
    return;
  size_t n = (size_t)g->nranks;
  int64_t *order = malloc(n * sizeof *order);
  size_t *pos = malloc(n * sizeof *pos);
  if (!order || !pos) {
    free(order);
    free(pos);
    return;
  }
  for (size_t i = 0; i < n; i++)
    pos[i] = SIZE_MAX;
  size_t len = 0;
  int64_t cur = start;
  while (cur >= 0 && pos[cur] == SIZE_MAX) {
    pos[cur] = len;
    order[len++] = cur;
    int64_t next = -1;
    const hang_rank *hr = &g->ranks[cur];
    for (size_t i = 0; i < hr->nheads && next < 0; i++)
      if (hang_waits_on_peer(hr->heads[i], cur, g->nranks))
        next = hr->heads[i]->peer;
    cur = next;
  }
  if (cur >= 0) {
    g->ncycle = len - pos[cur];
    memmove(order, order + pos[cur], g->ncycle * sizeof *order);
    g->cycle = order;
  } else {
    free(order);
  }
  free(pos);
}

void hang_graph_free(hang_graph *gr) {
  free(gr->start);
  free(gr->from);
  gr->start = NULL;
  gr->from = NULL;
}
