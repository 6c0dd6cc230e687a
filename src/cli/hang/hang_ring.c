/*
 * src/cli/hang/hang_ring.c — evidence that needs both ends of a link or a
 * whole node of a ring channel, where one rank's own pipeline heads cannot
 * decide (docs/hang.md, "The culprit"; nccl-behaviour §6.9). A rank's
 * pipeline head is its lowest ProxyStep in flight: the steps before it
 * are done (sent; received and taken by its GPU).
 *
 *  - a stalled link: the sender's step k is in SendWait (handed to the
 *    network) and the receiver's step k from it is in RecvWait (not
 *    arrived). A stopped receiving proxy would not keep the send from
 *    completing, a stopped sending proxy would not keep the data from
 *    arriving: the network between them lost it;
 *  - a stopped proxy: the receiver's step k is in RecvWait although the
 *    sender's step k completed (its head is past k), or the sender's step k
 *    is still in SendWait although the receiver got it (its head is past
 *    k): the data moved, the rank's proxy thread never noticed;
 *  - a GPU that took nothing: a receive's first step (0) arrived and its
 *    GPU does not take it. A kernel held up by a node-mate downstream
 *    (no free buffer to send into) has taken steps first: it can send at
 *    most sliceSteps·chunkSteps more than it took, fewer than the buffers
 *    (NCCL_STEPS / sliceSteps), so with nothing taken it is not held up;
 *  - a node that holds data: on a channel, the rank where the ring enters
 *    a node has taken (or received) k steps, and the rank where it leaves
 *    has not produced step k for the next node (SendGPUWait). Healthy GPUs
 *    pass on everything they take plus a first chunk of their own, so a
 *    GPU of that node stalled; the transfers inside a node are not
 *    profiled, so which one is what the other channels' nodes say
 *    (candidates of every holding node intersected). The entry rank is
 *    not a candidate when it took all that arrived (RecvWait), unless it
 *    is also the exit rank.
 */
#include <stdlib.h>
#include <string.h>

#include "hang/hang.h"

static const char *host_of(const hang_group *g, int64_t r) {
  if (r < 0 || r >= g->nranks || !g->ranks[r].src)
    return NULL;
  return g->ranks[r].src->hostname;
}

static bool other_host(const hang_group *g, int64_t a, int64_t b) {
  const char *ha = host_of(g, a), *hb = host_of(g, b);
  return ha && hb && strcmp(ha, hb) != 0;
}

static bool same_host(const hang_group *g, int64_t a, int64_t b) {
  const char *ha = host_of(g, a), *hb = host_of(g, b);
  return ha && hb && strcmp(ha, hb) == 0;
}

/* The head of `r`'s pipeline on `channel` to (is_send) or from `peer`. */
static const hang_head *head_of(const hang_group *g, int64_t r, int64_t channel,
                                bool is_send, int64_t peer) {
  if (r < 0 || r >= g->nranks || g->ranks[r].status != HS_STUCK)
    return NULL;
  const hang_rank *hr = &g->ranks[r];
  for (size_t i = 0; i < hr->nheads; i++) {
    const hang_head *h = hr->heads[i];
    if (h->channel == channel && h->is_send == is_send && h->peer == peer)
      return h;
  }
  return NULL;
}

/* Sets `e` when it is stronger than what the rank has. */
static void propose(hang_rank *hr, hang_evidence e, const hang_head *h,
                    int64_t link_peer) {
  if (hr->evidence != HE_NONE && hr->evidence <= e)
    return;
  hr->evidence = e;
  hr->evidence_head = h;
  hr->link_peer = link_peer;
}

static void links_and_proxies(hang_group *g) {
  for (int64_t s = 0; s < g->nranks; s++) {
    hang_rank *sender = &g->ranks[s];
    if (sender->status != HS_STUCK)
      continue;
    for (size_t i = 0; i < sender->nheads; i++) {
      const hang_head *sh = sender->heads[i];
      if (!sh->is_send || sh->peer < 0 || sh->peer >= g->nranks)
        continue;
      const hang_head *rh = head_of(g, sh->peer, sh->channel, false, s);
      if (!rh)
        continue;
      hang_rank *receiver = &g->ranks[sh->peer];
      if (sh->wait == HW_NETWORK && rh->wait == HW_PEER_DATA &&
          rh->step == sh->step)
        propose(sender, HE_LINK, sh, sh->peer);
      else if (sh->wait == HW_NETWORK && rh->step > sh->step)
        propose(sender, HE_PROXY, sh, sh->peer);
      else if (rh->wait == HW_PEER_DATA && sh->step > rh->step)
        propose(receiver, HE_PROXY, rh, s);
    }
  }
}

static void gpus_that_took_nothing(hang_group *g) {
  for (int64_t r = 0; r < g->nranks; r++) {
    hang_rank *hr = &g->ranks[r];
    for (size_t i = 0; hr->status == HS_STUCK && i < hr->nheads; i++) {
      const hang_head *h = hr->heads[i];
      if (!h->is_send && h->wait == HW_GPU_CONSUME && h->step == 0)
        propose(hr, HE_GPU_IDLE, h, -1);
    }
  }
}

/* The exit of `entry`'s node on `channel`: a send to another node. */
static const hang_head *node_exit(const hang_group *g, int64_t entry,
                                  int64_t channel, int64_t *exit_rank) {
  for (int64_t d = 0; d < g->nranks; d++) {
    if (!same_host(g, d, entry) || g->ranks[d].status != HS_STUCK)
      continue;
    const hang_rank *hr = &g->ranks[d];
    for (size_t i = 0; i < hr->nheads; i++) {
      const hang_head *h = hr->heads[i];
      if (h->is_send && h->channel == channel && other_host(g, d, h->peer)) {
        *exit_rank = d;
        return h;
      }
    }
  }
  return NULL;
}

/* Steps that arrived at least, by a receive's head. -1: unknown. */
static int64_t arrived_at_least(const hang_head *h) {
  if (h->wait == HW_PEER_DATA)
    return h->step;
  if (h->wait == HW_GPU_CONSUME || h->wait == HW_GPU_FLUSH)
    return h->step + 1;
  return -1;
}

/* Intersects the candidates of every node that holds data (see the top);
 * false when none does. */
static bool holding_nodes(const hang_group *g, bool *cand) {
  bool any = false;
  for (int64_t r = 0; r < g->nranks; r++)
    cand[r] = true;
  for (int64_t a = 0; a < g->nranks; a++) {
    const hang_rank *entry = &g->ranks[a];
    for (size_t i = 0; entry->status == HS_STUCK && i < entry->nheads; i++) {
      const hang_head *in = entry->heads[i];
      if (in->is_send || !other_host(g, a, in->peer))
        continue;
      int64_t d = -1;
      const hang_head *out = node_exit(g, a, in->channel, &d);
      int64_t arrived = arrived_at_least(in);
      if (!out || out->wait != HW_GPU_PRODUCE || arrived < 0 ||
          out->step > arrived)
        continue;
      any = true;
      bool entry_ran = in->wait == HW_PEER_DATA && d != a;
      for (int64_t r = 0; r < g->nranks; r++)
        if (!same_host(g, r, a) || (r == a && entry_ran))
          cand[r] = false;
    }
  }
  return any;
}

/* The lowest SendGPUWait head of a rank: where its GPU stopped producing. */
static const hang_head *lowest_produce(const hang_rank *hr) {
  const hang_head *best = NULL;
  for (size_t i = 0; i < hr->nheads; i++)
    if (hr->heads[i]->wait == HW_GPU_PRODUCE &&
        (!best || hr->heads[i]->step < best->step))
      best = hr->heads[i];
  return best;
}

static void nodes_that_hold_data(hang_group *g) {
  if (g->nranks <= 0)
    return;
  bool *cand = calloc((size_t)g->nranks, sizeof *cand);
  if (!cand)
    return;
  if (holding_nodes(g, cand)) {
    for (int64_t r = 0; r < g->nranks; r++) {
      hang_rank *hr = &g->ranks[r];
      if (cand[r] && hr->status == HS_STUCK) {
        /* a GPU of the node that does not take data may be held up by a
         * node-mate (it took steps, so it may have run out of buffers):
         * no stronger than the other suspects of the node */
        if (hr->evidence == HE_GPU_CONSUME)
          hr->evidence = HE_NONE;
        propose(hr, HE_GPU_HELD, lowest_produce(hr), -1);
      } else if (hr->evidence == HE_GPU_CONSUME ||
                 hr->evidence == HE_GPU_PRODUCE) {
        /* its GPU waits because of the node that holds the data */
        hr->evidence = HE_NONE;
        hr->evidence_head = NULL;
      }
    }
  }
  free(cand);
}

void hang_ring_evidence(hang_group *g) {
  for (int64_t r = 0; r < g->nranks; r++)
    g->ranks[r].link_peer = -1;
  links_and_proxies(g);
  gpus_that_took_nothing(g);
  nodes_that_hold_data(g);
}
