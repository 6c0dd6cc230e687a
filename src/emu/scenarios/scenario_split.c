/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_split.c — communicators created by ncclCommSplit
 * that share the parent's resources: one proxy thread per rank serves the world
 * comm and both children (ProxyCtrl always with the creator's context,
 * nccl-behaviour §6.10), split hashes derived from the parent's. At teardown
 * the parent is destroyed first: its context is finalized while the shared
 * proxy keeps emitting ProxyCtrl for the children (§2, §10.15).
 */
#include "scenarios/emu_scenarios.h"

#include <stdio.h>

static void layout_split(emu_layout *l, const emu_options *o) {
  (void)o;
  int members[EMU_MAX_RANKS];
  for (int node = 0; node < l->nodes; node++) { /* color = node */
    for (int k = 0; k < l->ranks_per_node; k++)
      members[k] = node * l->ranks_per_node + k;
    char name[32];
    snprintf(name, sizeof name, "node%d", node);
    emu_layout_add_split(l, 0, members, l->ranks_per_node, name, true,
                         (uint64_t)node);
  }
  for (int local = 0; local < l->ranks_per_node; local++) { /* color=local */
    for (int node = 0; node < l->nodes; node++)
      members[node] = node * l->ranks_per_node + local;
    char name[32];
    snprintf(name, sizeof name, "rail%d", local);
    emu_layout_add_split(l, 0, members, l->nodes, name, true,
                         (uint64_t)(100 + local));
  }
}

static int node_comm(const emu_app *a, int i) {
  const emu_layout *l = a->worker->layout;
  return 1 + emu_node_of(l, a->worker->first_rank + a->slots[i]);
}

static int rail_comm(const emu_app *a, int i) {
  const emu_layout *l = a->worker->layout;
  return 1 + l->nodes + emu_local_of(l, a->worker->first_rank + a->slots[i]);
}

static void children_ops(emu_app *a, uint64_t bytes) {
  if (a->nslots > 1)
    emu_group_start(a);
  for (int i = 0; i < a->nslots; i++)
    emu_collective(a, emu_app_comm(a, i, node_comm(a, i)), EMU_FUNC_ALLGATHER,
                   bytes / 8, EMU_DT_FLOAT32, 0);
  if (a->nslots > 1)
    emu_group_end(a);
  if (a->nslots > 1)
    emu_group_start(a);
  for (int i = 0; i < a->nslots; i++)
    emu_collective(a, emu_app_comm(a, i, rail_comm(a, i)), EMU_FUNC_ALLREDUCE,
                   bytes / 4, EMU_DT_FLOAT32, 0);
  if (a->nslots > 1)
    emu_group_end(a);
}

static void step_split(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "split", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE, bytes / 4, EMU_DT_FLOAT32,
                           0);
  children_ops(a, bytes);
}

static void teardown_split(emu_app *a) {
  /* The parent goes first; the children keep using its proxy thread. */
  for (int i = 0; i < a->nslots; i++)
    emu_comm_destroy(a, emu_app_comm(a, i, 0));
  children_ops(a, 65536);
  emu_stream_sync(a);
}

const emu_scenario emu_scenario_split = {
    .name = "split",
    .summary = "ncclCommSplit children sharing the parent's proxy; parent "
               "finalized first while the proxy still emits ProxyCtrl",
    .covers = "§2, §6.10, §10.15",
    .nodes = 2,
    .ranks_per_node = 2,
    .ranks_per_process = 2,
    .ops = 3,
    .layout = layout_split,
    .step = step_split,
    .teardown = teardown_split,
};
