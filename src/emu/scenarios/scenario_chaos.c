/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_chaos.c — randomised interleavings and every quirk
 * of nccl-behaviour §10, driven by the script rng (same operations on every
 * rank) and the per-thread rngs (same order per thread for a --seed):
 *   double CollApi stop after a run-time mask change (§10.6, §10.14);
 *   NetPlugin stop(NULL)/stale handles while NetPlugin is off, late
 *   NetPlugin updates (§10.7); restarted recv steps and repeated peer
 *   waits (§10.4); never-stopped ProxyOps of SHM-memcpy transports (§10.3);
 *   PXN across processes (§10.10); non-blocking launches after the GroupApi
 *   stopped (§10.1); ring-overwrite KernelCh stamps (§10.13); Broadcast and
 *   count==0 (§10.12); CE collectives; graph replays with the stale
 *   capture-time parent on the cuda-cb thread (§10.11); concurrent inits
 *   (§10.15) and the parent comm finalized while the shared proxy emits
 *   ProxyCtrl (§10.15).
 */
#include "scenarios/emu_scenarios.h"

#include <stdio.h>

static void configure_chaos(emu_options *o) {
  o->pxn = true;
  if (o->chaos_level <= 0)
    o->chaos_level = 0.3;
  if (o->ring_anomaly_rate < 0.05)
    o->ring_anomaly_rate = 0.05;
}

/* comm 1 + node: node-local split sharing the proxy; then a non-blocking
 * "rail" split per local index. */
static int rail_base;

static void layout_chaos(emu_layout *l, const emu_options *o) {
  (void)o;
  int members[EMU_MAX_RANKS];
  char name[32];
  for (int node = 0; node < l->nodes; node++) {
    for (int k = 0; k < l->ranks_per_node; k++)
      members[k] = node * l->ranks_per_node + k;
    snprintf(name, sizeof name, "node%d", node);
    emu_layout_add_split(l, 0, members, l->ranks_per_node, name, true,
                         (uint64_t)node);
  }
  rail_base = l->ncomms;
  for (int local = 0; local < l->ranks_per_node; local++) {
    for (int node = 0; node < l->nodes; node++)
      members[node] = node * l->ranks_per_node + local;
    snprintf(name, sizeof name, "rail%d-nb", local);
    int ci = emu_layout_add_split(l, 0, members, l->nodes, name, false,
                                  (uint64_t)(100 + local));
    l->comms[ci].blocking = false;
  }
}

static int node_comm(const emu_app *a, int i) {
  return 1 +
         emu_node_of(a->worker->layout, a->worker->first_rank + a->slots[i]);
}

static int rail_comm(const emu_app *a, int i) {
  return rail_base +
         emu_local_of(a->worker->layout, a->worker->first_rank + a->slots[i]);
}

static void setup_chaos(emu_app *a) {
  a->stuck_intra = true;
  for (int ci = 0; ci < a->worker->layout->ncomms; ci++)
    emu_app_init_comms(a, ci);
}

static void on_each_rank(emu_app *a, int which, emu_func f, size_t count) {
  if (a->nslots > 1)
    emu_group_start(a);
  for (int i = 0; i < a->nslots; i++) {
    int ci = which == 0 ? 0 : which == 1 ? node_comm(a, i) : rail_comm(a, i);
    emu_collective(a, emu_app_comm(a, i, ci), f, count, EMU_DT_FLOAT32, 0);
  }
  if (a->nslots > 1)
    emu_group_end(a);
}

static emu_graph chaos_graphs[EMU_MAX_APP_THREADS];

static void step_chaos(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "chaos", iteration);
  int saved = EMU_LOAD_RELAXED(&emu_activation_mask);
  emu_graph *graph = &chaos_graphs[a->index];
  if (iteration == 0) {
    /* NetPlugin off before any IB request was used: stops get NULL
     * (later switches give stale handles) (§3.2, §10.7) */
    emu_set_mask(a, saved & ~ncclProfileNetPlugin,
                 "plugin starts without NetPlugin events");
    on_each_rank(a, 0, EMU_FUNC_ALLREDUCE, 65536);
    emu_stream_sync(a);
    emu_set_mask(a, saved, "plugin enables NetPlugin events");
    /* a captured network AllReduce, replayed below (§10.11) */
    emu_graph_capture_begin(a, graph);
    on_each_rank(a, 0, EMU_FUNC_ALLREDUCE, 65536);
    emu_graph_capture_end(a);
  }
  for (int k = 0; k < 4; k++) {
    uint64_t bytes = emu_app_pick_size(a, &rng);
    size_t count = bytes / 4;
    switch (emu_rng_below(&rng, 10)) {
    case 0:
      on_each_rank(a, 0, EMU_FUNC_ALLREDUCE, count);
      break;
    case 1: /* grouped: several funcs, Broadcast without Coll, count 0 */
      emu_group_start(a);
      for (int i = 0; i < a->nslots; i++) {
        emu_comm *c = emu_app_comm(a, i, 0);
        emu_collective(a, c, EMU_FUNC_ALLGATHER, count / 8, EMU_DT_FLOAT32, 0);
        emu_collective(a, c, EMU_FUNC_BROADCAST, count, EMU_DT_FLOAT32, 0);
        emu_collective(a, c, EMU_FUNC_ALLREDUCE, 0, EMU_DT_FLOAT32, 0);
        emu_collective(a, c, EMU_FUNC_REDUCESCATTER, count, EMU_DT_FLOAT32, 0);
      }
      emu_group_end(a);
      break;
    case 2: /* send/recv to the mirror rank on the other node */
      emu_group_start(a);
      for (int i = 0; i < a->nslots; i++) {
        emu_comm *c = emu_app_comm(a, i, 0);
        if (c == NULL)
          continue;
        int peer = (c->rank + c->nranks / 2) % c->nranks;
        emu_send(a, c, peer, count, EMU_DT_FLOAT32);
        emu_recv(a, c, peer, count, EMU_DT_FLOAT32);
      }
      emu_group_end(a);
      break;
    case 3: /* intra-node over SHM memcpy: never-stopped ProxyOps */
      on_each_rank(a, 1, EMU_FUNC_ALLGATHER, count / 8);
      break;
    case 4: { /* the plugin turns CollApi-related bits off at run time */
      int off = (saved & ncclProfileProxyCtrl) | ncclProfileGroupApi |
                ncclProfileP2pApi | ncclProfileKernelLaunch | ncclProfileGroup |
                ncclProfileP2p;
      emu_set_mask(a, off, "plugin stops CollApi/Coll/Proxy events");
      on_each_rank(a, 0, EMU_FUNC_ALLREDUCE, count); /* double CollApi stop */
      emu_set_mask(a, saved, "plugin restores its mask");
      break;
    }
    case 5: /* non-blocking comm: launch on an async thread */
      on_each_rank(a, 2, EMU_FUNC_ALLREDUCE, count);
      break;
    case 6:
      if (a->nslots > 1)
        emu_group_start(a);
      for (int i = 0; i < a->nslots; i++)
        emu_alltoall(a, emu_app_comm(a, i, 0),
                     count / (size_t)a->worker->layout->nranks, EMU_DT_FLOAT32);
      if (a->nslots > 1)
        emu_group_end(a);
      break;
    case 7:
      for (int i = 0; i < a->nslots; i++)
        emu_ce_collective(a, emu_app_comm(a, i, node_comm(a, i)),
                          EMU_FUNC_ALLGATHER, count / 8, EMU_DT_FLOAT32);
      break;
    case 8: /* graph replay: Group/Coll on cuda-cb, stale parent */
      emu_graph_launch(a, graph);
      break;
    default: /* NetPlugin off while IB keeps calling stop: NULL/stale */
      emu_set_mask(a, saved & ~ncclProfileNetPlugin,
                   "plugin stops NetPlugin events");
      on_each_rank(a, 0, EMU_FUNC_ALLREDUCE, count);
      emu_stream_sync(a);
      emu_set_mask(a, saved, "plugin restores its mask");
      break;
    }
  }
}

static void teardown_chaos(emu_app *a) {
  /* parent first: its context is finalized while the shared proxy of the
   * node comm still emits ProxyCtrl with it */
  for (int i = 0; i < a->nslots; i++)
    emu_comm_destroy(a, emu_app_comm(a, i, 0));
  on_each_rank(a, 1, EMU_FUNC_ALLREDUCE, 65536);
  emu_stream_sync(a);
}

const emu_scenario emu_scenario_chaos = {
    .name = "chaos",
    .summary = "randomised mix with every quirk of nccl-behaviour §10: "
               "double stop, NULL/stale NetPlugin stops, restarts, "
               "never-stopped ops, PXN, mask flips",
    .covers = "§10.1-§10.17, §11",
    .nodes = 2,
    .ranks_per_node = 4,
    .ranks_per_process = 2,
    .ops = 4,
    .configure = configure_chaos,
    .layout = layout_chaos,
    .setup = setup_chaos,
    .step = step_chaos,
    .teardown = teardown_chaos,
};
