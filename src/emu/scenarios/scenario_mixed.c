/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_mixed.c — a realistic training step on N nodes x G
 * GPUs with tensor (tp), pipeline (pp) and data (dp) parallelism (Megatron rank
 * order: tp fastest, then dp, then pp): per micro-batch and layer a TP
 * AllGather + ReduceScatter, pipeline send/recv of activations (forward)
 * and gradients (backward) between stages, data-parallel AllReduce of
 * gradient buckets, and a tiny world AllReduce (loss). Sizes follow a
 * mid-size transformer unless --sizes is given: then round-robin over the
 * roles (tp, pp, dp, world) and the iterations, so that with k sizes every
 * role moves each of them once in k iterations (a network link then sees
 * several sizes: what its latency and bandwidth fit needs).
 */
#include "scenarios/emu_scenarios.h"

#include <stdio.h>

#define MICROBATCHES 2
#define LAYERS 2
#define BUCKETS 4

typedef struct mixed_dims {
  int tp, pp, dp;
} mixed_dims;

static mixed_dims dims_of(const emu_layout *l, const emu_options *o) {
  mixed_dims d;
  d.tp = o->tp > 0 ? o->tp : 2;
  if (l->ranks_per_node % d.tp != 0)
    d.tp = 1;
  d.pp = o->pp > 0 ? o->pp : 2;
  if ((l->nranks / d.tp) % d.pp != 0)
    d.pp = 1;
  d.dp = l->nranks / (d.tp * d.pp);
  return d;
}

/* rank = t + tp * (d + dp * s) */
static int rank_of(mixed_dims m, int t, int d, int s) {
  return t + m.tp * (d + m.dp * s);
}

static int base_tp, base_dp, base_pp;

static void layout_mixed(emu_layout *l, const emu_options *o) {
  mixed_dims m = dims_of(l, o);
  int members[EMU_MAX_RANKS];
  char name[40];
  base_tp = l->ncomms;
  for (int s = 0; s < m.pp; s++)
    for (int d = 0; d < m.dp; d++) {
      for (int t = 0; t < m.tp; t++)
        members[t] = rank_of(m, t, d, s);
      snprintf(name, sizeof name, "tp.d%d.s%d", d, s);
      emu_layout_add_split(l, 0, members, m.tp, name, true,
                           (uint64_t)(1000 + s * m.dp + d));
    }
  base_dp = l->ncomms;
  for (int s = 0; s < m.pp; s++)
    for (int t = 0; t < m.tp; t++) {
      for (int d = 0; d < m.dp; d++)
        members[d] = rank_of(m, t, d, s);
      snprintf(name, sizeof name, "dp.t%d.s%d", t, s);
      emu_layout_add_split(l, 0, members, m.dp, name, true,
                           (uint64_t)(2000 + s * m.tp + t));
    }
  base_pp = l->ncomms;
  for (int d = 0; d < m.dp; d++)
    for (int t = 0; t < m.tp; t++) {
      for (int s = 0; s < m.pp; s++)
        members[s] = rank_of(m, t, d, s);
      snprintf(name, sizeof name, "pp.t%d.d%d", t, d);
      emu_layout_add_split(l, 0, members, m.pp, name, true,
                           (uint64_t)(3000 + d * m.tp + t));
    }
}

/* The comm in [base, end) that thread slot i belongs to. */
static emu_comm *member_comm(emu_app *a, int i, int base, int end) {
  for (int ci = base; ci < end; ci++) {
    emu_comm *c = emu_app_comm(a, i, ci);
    if (c != NULL)
      return c;
  }
  return NULL;
}

/* The message size of `role` at `iteration`: `dflt`, or the --sizes entry
 * the round-robin gives. */
static uint64_t size_for(emu_app *a, int role, int iteration, uint64_t dflt) {
  const emu_options *o = a->worker->opts;
  if (!o->sizes_set)
    return dflt;
  return o->sizes[((unsigned)role + (unsigned)iteration) % (unsigned)o->nsizes];
}

typedef enum { ROLE_TP = 0, ROLE_PP, ROLE_DP, ROLE_WORLD } role;

static void tp_layer(emu_app *a, uint64_t bytes) {
  const emu_layout *l = a->worker->layout;
  emu_func funcs[2] = {EMU_FUNC_ALLGATHER, EMU_FUNC_REDUCESCATTER};
  for (int k = 0; k < 2; k++) {
    if (a->nslots > 1)
      emu_group_start(a);
    for (int i = 0; i < a->nslots; i++) {
      emu_comm *c = member_comm(a, i, base_tp, base_dp);
      if (c == NULL)
        continue;
      size_t count = funcs[k] == EMU_FUNC_ALLGATHER
                         ? bytes / 2 / (size_t)c->nranks
                         : bytes / 2;
      emu_collective(a, c, funcs[k], count, EMU_DT_BFLOAT16, 0);
    }
    if (a->nslots > 1)
      emu_group_end(a);
  }
  (void)l;
}

/* Pipeline exchange: direction +1 (forward) or -1 (backward). */
static void pp_exchange(emu_app *a, int direction, bool receive,
                        uint64_t bytes) {
  emu_group_start(a);
  for (int i = 0; i < a->nslots; i++) {
    emu_comm *c = member_comm(a, i, base_pp, a->worker->layout->ncomms);
    if (c == NULL)
      continue;
    int peer = receive ? c->rank - direction : c->rank + direction;
    if (peer < 0 || peer >= c->nranks)
      continue;
    if (receive)
      emu_recv(a, c, peer, bytes / 2, EMU_DT_BFLOAT16);
    else
      emu_send(a, c, peer, bytes / 2, EMU_DT_BFLOAT16);
  }
  emu_group_end(a);
}

static void step_mixed(emu_app *a, int iteration) {
  uint64_t tp_bytes = size_for(a, ROLE_TP, iteration, 8u << 20);
  uint64_t pp_bytes = size_for(a, ROLE_PP, iteration, 4u << 20);
  uint64_t dp_bytes = size_for(a, ROLE_DP, iteration, 25u << 20);
  a->user_tag = 0x66776400ULL; /* "fwd" */
  for (int m = 0; m < MICROBATCHES; m++) {
    pp_exchange(a, +1, true, pp_bytes);
    for (int layer = 0; layer < LAYERS; layer++)
      tp_layer(a, tp_bytes);
    pp_exchange(a, +1, false, pp_bytes);
  }
  a->user_tag = 0x62776400ULL; /* "bwd" */
  for (int m = 0; m < MICROBATCHES; m++) {
    pp_exchange(a, -1, true, pp_bytes);
    for (int layer = 0; layer < LAYERS; layer++)
      tp_layer(a, tp_bytes);
    pp_exchange(a, -1, false, pp_bytes);
  }
  a->user_tag = 0x6f707400ULL; /* "opt" */
  emu_group_start(a);          /* gradient buckets, bucketed in one group */
  for (int b = 0; b < BUCKETS; b++)
    for (int i = 0; i < a->nslots; i++)
      emu_collective(a, member_comm(a, i, base_dp, base_pp), EMU_FUNC_ALLREDUCE,
                     dp_bytes / 2, EMU_DT_BFLOAT16, 0);
  emu_group_end(a);
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE,
                           size_for(a, ROLE_WORLD, iteration, 4) / 4,
                           EMU_DT_FLOAT32, 0);
}

const emu_scenario emu_scenario_mixed = {
    .name = "mixed",
    .summary = "training step on N nodes x G GPUs: TP AllGather/ReduceScatter,"
               " PP send/recv, DP AllReduce buckets, world AllReduce",
    .covers = "§8.2-§8.5 combined, §6.6 seqNumbers per comm and func",
    .nodes = 2,
    .ranks_per_node = 4,
    .ranks_per_process = 2,
    .ops = 2,
    .layout = layout_mixed,
    .step = step_mixed,
};
