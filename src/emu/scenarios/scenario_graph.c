/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_graph.c — CUDA graph capture and replay (§8.7,
 * §10.11): a network AllReduce on the world comm and an intra-node AllReduce on
 * a node-local split are captured once (graphCaptured=1, KernelLaunch once);
 * every replay runs Group/Coll on the "cuda-cb" host-callback thread with
 * the capture-time CollApi as (stale) parent; seqNumber advances only with
 * KernelCh; intra-node replays are invisible without KernelCh.
 */
#include "scenarios/emu_scenarios.h"

#include <stdio.h>

static void layout_graph(emu_layout *l, const emu_options *o) {
  (void)o;
  for (int node = 0; node < l->nodes; node++) {
    int members[EMU_MAX_RANKS];
    for (int k = 0; k < l->ranks_per_node; k++)
      members[k] = node * l->ranks_per_node + k;
    char name[32];
    snprintf(name, sizeof name, "node%d", node);
    emu_layout_add_split(l, 0, members, l->ranks_per_node, name, true,
                         (uint64_t)node);
  }
}

/* The node comm of this thread's ranks has index 1 + node. */
static int node_comm(const emu_app *a, int i) {
  const emu_layout *l = a->worker->layout;
  return 1 + emu_node_of(l, a->worker->first_rank + a->slots[i]);
}

static emu_graph graphs[EMU_MAX_APP_THREADS][2];

static void step_graph(emu_app *a, int iteration) {
  emu_graph *net = &graphs[a->index][0];
  emu_graph *intra = &graphs[a->index][1];
  if (iteration == 0) {
    emu_rng rng;
    emu_script_rng(&rng, a, "graph", 0);
    uint64_t bytes = emu_app_pick_size(a, &rng);
    emu_graph_capture_begin(a, net);
    emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE, bytes / 4,
                             EMU_DT_FLOAT32, 0);
    emu_graph_capture_end(a);
    emu_graph_capture_begin(a, intra);
    if (a->nslots > 1)
      emu_group_start(a);
    for (int i = 0; i < a->nslots; i++)
      emu_collective(a, emu_app_comm(a, i, node_comm(a, i)), EMU_FUNC_ALLREDUCE,
                     bytes / 4, EMU_DT_FLOAT32, 0);
    if (a->nslots > 1)
      emu_group_end(a);
    emu_graph_capture_end(a);
  }
  emu_graph_launch(a, net);
  emu_graph_launch(a, intra);
}

const emu_scenario emu_scenario_graph = {
    .name = "graph",
    .summary = "CUDA graph capture once, replay every iteration: Group/Coll "
               "on the cuda-cb thread with a stale capture-time parent "
               "(nccl-behaviour §8.7)",
    .covers = "§8.7, §10.11",
    .nodes = 2,
    .ranks_per_node = 2,
    .ranks_per_process = 2,
    .ops = 4,
    .layout = layout_graph,
    .step = step_graph,
};
