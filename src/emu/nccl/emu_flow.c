/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_flow.c — the GPU side of the data-flow model (emu_flow.h):
 * one rank's ring program per channel, its inputs and buffers read from
 * its neighbours' shared counters (intra-node) or its own proxy subs
 * (across nodes), its progress published for the neighbours.
 */
#include "nccl/emu_flow.h"

emu_flow_link *emu_flow_link_of(emu_shared *sh, int rank, int ch) {
  if (rank < 0 || rank >= EMU_MAX_RANKS || ch < 0 || ch >= EMU_MAX_CHANNELS)
    return NULL;
  return &sh->flow[rank][ch];
}

/* One action of the ring program (prims.h, per loop of L steps in chunks
 * of C): C sends without input, L - C steps received and sent on, C steps
 * only received. -1 where the action has no such half. */
typedef struct ring_action {
  int take;    /* step received, -1 */
  int produce; /* step sent, -1 */
} ring_action;

static ring_action ring_action_at(const emu_flow_channel *f, int a) {
  int per_loop = f->loop_steps + f->chunk_steps;
  int loop = a / per_loop, i = a % per_loop;
  int base = loop * f->loop_steps;
  ring_action r = {-1, -1};
  if (i < f->chunk_steps) {
    r.produce = base + i;
  } else if (i < f->loop_steps) {
    r.take = base + i - f->chunk_steps;
    r.produce = base + i;
  } else {
    r.take = base + i - f->chunk_steps;
  }
  return r;
}

static int actions_total(const emu_flow_channel *f) {
  int loops = f->loop_steps > 0 ? f->nsteps / f->loop_steps : 0;
  return loops * (f->loop_steps + f->chunk_steps);
}

bool emu_flow_gpu_done(const emu_flow_channel *f) {
  return f->actions >= actions_total(f);
}

/* Whether the data of step `t` from the predecessor is here. */
static bool arrived(const emu_flow_channel *f, emu_shared *sh,
                    const emu_flow_local *local, int t) {
  if (f->prev_net)
    return local->recv_delivered > t;
  const emu_flow_link *prev = emu_flow_link_of(sh, f->prev, f->channel);
  return prev != NULL && EMU_LOAD_ACQUIRE(&prev->produced) > t;
}

/* Whether a buffer is free for step `k` toward the successor. */
static bool room(const emu_flow_channel *f, emu_shared *sh,
                 const emu_flow_local *local, int k) {
  if (f->next_net)
    return k < local->send_done + f->depth;
  const emu_flow_link *next = emu_flow_link_of(sh, f->next, f->channel);
  return next != NULL && k < EMU_LOAD_ACQUIRE(&next->taken) + f->depth;
}

bool emu_flow_gpu_advance(emu_flow_channel *f, emu_shared *sh,
                          const emu_flow_local *local) {
  emu_flow_link *me = emu_flow_link_of(sh, f->rank, f->channel);
  if (me == NULL)
    return false;
  bool did = false;
  int total = actions_total(f);
  while (f->actions < total &&
         (f->gpu_limit < 0 || f->actions < f->gpu_limit)) {
    ring_action r = ring_action_at(f, f->actions);
    if (r.take >= 0 && !arrived(f, sh, local, r.take))
      break;
    if (r.produce >= 0 && !room(f, sh, local, r.produce))
      break;
    if (r.take >= 0) {
      f->taken = r.take + 1;
      EMU_STORE_RELEASE(&me->taken, f->taken);
    }
    if (r.produce >= 0) {
      f->produced = r.produce + 1;
      /* a stalled link: the data never reaches the successor's GPU */
      if (!(f->link_out_stalled && !f->next_net))
        EMU_STORE_RELEASE(&me->produced, f->produced);
    }
    f->actions++;
    did = true;
  }
  return did;
}
