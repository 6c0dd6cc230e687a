/* SPDX-License-Identifier: Apache-2.0 */
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
 *    sender's step k completed (its head is past k), the sender's step k
 *    is still in SendWait although the receiver got it (its head is past
 *    k), or the sender's step k waits in SendPeerWait for a buffer the
 *    receiver posted (its head is step k, in RecvWait): the data or the
 *    buffer moved, the rank's proxy thread never noticed. A send that runs
 *    in a node-mate's proxy (PXN) blames that proxy, the node-mate's;
 *  - a GPU that took nothing: a receive's first step (0) arrived and its
 *    GPU does not take it. A kernel held up by a node-mate downstream
 *    (no free buffer to send into) has taken steps first: it can send at
 *    most sliceSteps·chunkSteps more than it took, fewer than the buffers
 *    (NCCL_STEPS / sliceSteps), so with nothing taken it is not held up.
 *    Unless its proxy recorded nothing after that arrival: a proxy thread
 *    that stopped right then leaves the same picture (proxy_quiet);
 *  - a node that holds data: on a channel, the rank where the ring enters
 *    a node has taken (or received) k steps, and the rank where it leaves
 *    has not produced step k for the next node (SendGPUWait). Healthy GPUs
 *    pass on everything they take plus a first chunk of their own, so a
 *    GPU of that node stalled; the transfers inside a node are not
 *    profiled, so which one is what the other channels' nodes say
 *    (candidates of every holding node intersected). The entry rank is
 *    not a candidate when it took all that arrived (RecvWait), unless it
 *    is also the exit rank. A link between two GPUs of the node that
 *    stopped leaves the same picture (nothing inside a node is profiled);
 *  - evidence whose channel continues inside the node: a GPU that stopped
 *    taking data but whose channel goes on to a node-mate, or one that does
 *    not produce data whose channel comes from a node-mate, may be held up
 *    inside its node (inside_node).
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

/* Whether rank `r` runs in the process `pid` of `origin`'s host. */
static bool runs_in(const hang_group *g, int64_t r, int64_t pid,
                    int64_t origin) {
  return g->ranks[r].src && g->ranks[r].src->pid == pid &&
         same_host(g, r, origin);
}

/* A stopped sending proxy, seen on `sender`'s send `sh`. With PXN the
 * proxy is the node-mate's whose process runs the send (sh->runner_pid):
 * its ranks of the communicator, or those of them that show a stopped
 * proxy of their own, are the suspects, never the sender. */
static void sender_proxy(hang_group *g, int64_t sender, const hang_head *sh) {
  if (sh->runner_pid < 0) {
    propose(&g->ranks[sender], HE_PROXY, sh, sh->peer);
    return;
  }
  bool own = false; /* a runner whose own pipelines say so already */
  for (int64_t r = 0; r < g->nranks; r++)
    own |= runs_in(g, r, sh->runner_pid, sender) &&
           g->ranks[r].evidence == HE_PROXY;
  for (int64_t r = 0; r < g->nranks && !own; r++)
    if (runs_in(g, r, sh->runner_pid, sender)) {
      propose(&g->ranks[r], HE_PROXY, sh, sh->peer);
      if (g->ranks[r].evidence_head == sh)
        g->ranks[r].proxy_for = sender;
    }
}

/* What a pair of heads (a sender's, its receiver's of the same channel)
 * says, and whether it holds. Snapshots are taken at each rank's own
 * warning, up to a timeout apart (more on a loaded machine, and a slow
 * rank may still move after its own): evidence from both ends holds only
 * when the snapshot of the end that waits was taken after the other end
 * had moved — the data handed to the network (a stalled link), the send
 * completed (a stopped receiving proxy), the data received or the buffer
 * posted (a stopped sending proxy). Otherwise that snapshot may show a
 * wait that ended after it: the evidence is stale, set aside. */
typedef enum {
  PAIR_NOTHING = 0,
  PAIR_LINK,           /* SendWait, and RecvWait for that very step */
  PAIR_SENDER_PROXY,   /* SendWait for a step the receiver got, or
                          SendPeerWait for a buffer the receiver posted */
  PAIR_RECEIVER_PROXY, /* RecvWait for a step the sender completed */
} pair_kind;

static pair_kind pair_of(const hang_head *sh, const hang_head *rh,
                         bool *stale) {
  *stale = false;
  if (sh->wait == HW_NETWORK && rh->wait == HW_PEER_DATA &&
      rh->step == sh->step) {
    *stale = rh->seen_ns < sh->since_ns;
    return PAIR_LINK;
  }
  if (sh->wait == HW_NETWORK && rh->step > sh->step) {
    *stale = sh->seen_ns < rh->op_last_ns; /* it got the step by then */
    return PAIR_SENDER_PROXY;
  }
  if (sh->wait == HW_PEER_BUFFER && rh->wait == HW_PEER_DATA &&
      rh->step == sh->step) {
    *stale = sh->seen_ns < rh->since_ns; /* posted then */
    return PAIR_SENDER_PROXY;
  }
  if (rh->wait == HW_PEER_DATA && sh->step > rh->step) {
    *stale = rh->seen_ns < sh->op_last_ns; /* it completed the step by then */
    return PAIR_RECEIVER_PROXY;
  }
  return PAIR_NOTHING;
}

/* `own`: the pipelines a rank's own proxy runs; else those a node-mate's
 * runs for it (PXN), judged once every rank's own evidence is known. */
static void links_and_proxies(hang_group *g, bool own) {
  for (int64_t s = 0; s < g->nranks; s++) {
    hang_rank *sender = &g->ranks[s];
    if (sender->status != HS_STUCK)
      continue;
    for (size_t i = 0; i < sender->nheads; i++) {
      const hang_head *sh = sender->heads[i];
      if (!sh->is_send || sh->peer < 0 || sh->peer >= g->nranks ||
          (sh->runner_pid < 0) != own)
        continue;
      const hang_head *rh = head_of(g, sh->peer, sh->channel, false, s);
      if (!rh)
        continue;
      bool stale;
      pair_kind k = pair_of(sh, rh, &stale);
      if (k != PAIR_NOTHING && stale) {
        g->nstale++; /* the end that waits, with the older snapshot */
        g->stale_rank = k == PAIR_SENDER_PROXY ? s : sh->peer;
        g->stale_peer = k == PAIR_SENDER_PROXY ? sh->peer : s;
        continue;
      }
      if (k == PAIR_LINK)
        propose(sender, HE_LINK, sh, sh->peer);
      else if (k == PAIR_SENDER_PROXY)
        sender_proxy(g, s, sh);
      else if (k == PAIR_RECEIVER_PROXY)
        propose(&g->ranks[sh->peer], HE_PROXY, rh, s);
    }
  }
}

/* A receive's first step arrived and its GPU took none of it; the
 * evidence is the earliest such arrival. Its proxy is quiet when it
 * recorded nothing after that but other first arrivals. */
static void gpus_that_took_nothing(hang_group *g) {
  for (int64_t r = 0; r < g->nranks; r++) {
    hang_rank *hr = &g->ranks[r];
    const hang_head *first = NULL;
    for (size_t i = 0; hr->status == HS_STUCK && i < hr->nheads; i++) {
      const hang_head *h = hr->heads[i];
      if (!h->is_send && h->wait == HW_GPU_CONSUME && h->step == 0 &&
          (!first || h->since_ns < first->since_ns))
        first = h;
    }
    if (!first)
      continue;
    propose(hr, HE_GPU_IDLE, first, -1);
    if (hr->evidence == HE_GPU_IDLE)
      hr->proxy_quiet =
          !hr->stuck || hr->stuck->last_other_step_ns <= first->since_ns;
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

/* Whether `hr` has a network transfer on `channel` in that direction. */
static bool net_pipeline(const hang_group *g, const hang_rank *hr,
                         int64_t channel, bool is_send) {
  for (size_t i = 0; i < hr->nheads; i++) {
    const hang_head *h = hr->heads[i];
    if (h->channel == channel && h->is_send == is_send &&
        other_host(g, hr->rank, h->peer))
      return true;
  }
  return false;
}

/* A GPU that stopped taking data whose channel goes on to a node-mate
 * (its kernel may wait for room there), or that does not produce data
 * whose channel comes from a node-mate (it may wait for its input): the
 * cause may be inside the node, where nothing is profiled. */
static void evidence_inside_nodes(hang_group *g) {
  for (int64_t r = 0; r < g->nranks; r++) {
    hang_rank *hr = &g->ranks[r];
    const hang_head *h = hr->evidence_head;
    if (!hr->node_mates || !h ||
        (hr->evidence != HE_GPU_CONSUME && hr->evidence != HE_GPU_PRODUCE))
      continue;
    hr->inside_node = !net_pipeline(g, hr, h->channel, !h->is_send);
  }
}

void hang_ring_evidence(hang_group *g) {
  for (int64_t r = 0; r < g->nranks; r++)
    g->ranks[r].link_peer = g->ranks[r].proxy_for = -1;
  links_and_proxies(g, true);
  links_and_proxies(g, false);
  gpus_that_took_nothing(g);
  nodes_that_hold_data(g);
  evidence_inside_nodes(g);
}
