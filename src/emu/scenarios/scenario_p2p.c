/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_p2p.c — point-to-point sequences: send/recv
 * between nodes (network ProxyOps, one args for all channels), within a node
 * and to self (no proxy ops, KernelCh only) (§8.5); and ncclAlltoAll,
 * decomposed into 2N P2pApi "Send"/"Recv" events (§6.3).
 */
#include "scenarios/emu_scenarios.h"

/* One ncclGroupStart/End with a send to and a receive from `delta` ranks
 * away (0 = self) for every rank of this thread. */
static void exchange(emu_app *a, int delta, uint64_t bytes) {
  emu_group_start(a);
  for (int i = 0; i < a->nslots; i++) {
    emu_comm *c = emu_app_comm(a, i, 0);
    if (c == NULL)
      continue;
    int n = c->nranks;
    int to = (c->rank + delta) % n;
    int from = (c->rank - delta % n + n) % n;
    emu_send(a, c, to, bytes / 4, EMU_DT_FLOAT32);
    emu_recv(a, c, from, bytes / 4, EMU_DT_FLOAT32);
  }
  emu_group_end(a);
}

static void step_p2p(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "p2p", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  int rpn = a->worker->layout->ranks_per_node;
  exchange(a, rpn, bytes); /* across nodes */
  if (rpn > 1)
    exchange(a, 1, bytes); /* inside a node */
  exchange(a, 0, bytes);   /* self */
}

const emu_scenario emu_scenario_p2p = {
    .name = "sendrecv",
    .summary = "grouped ncclSend/ncclRecv across nodes (ProxyOps), inside a "
               "node and to self (KernelCh only) (nccl-behaviour §8.5)",
    .covers = "§8.5, §6.3, §6.7",
    .nodes = 2,
    .ranks_per_node = 2,
    .ranks_per_process = 1,
    .ops = 3,
    .step = step_p2p,
};

static void step_alltoall(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "alltoall", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  int members = 0;
  for (int i = 0; i < a->nslots; i++)
    members += emu_app_comm(a, i, 0) != NULL;
  if (members > 1)
    emu_group_start(a);
  for (int i = 0; i < a->nslots; i++) {
    emu_comm *c = emu_app_comm(a, i, 0);
    if (c != NULL)
      emu_alltoall(a, c, bytes / 4 / (uint64_t)c->nranks, EMU_DT_FLOAT32);
  }
  if (members > 1)
    emu_group_end(a);
}

const emu_scenario emu_scenario_alltoall = {
    .name = "alltoall",
    .summary = "ncclAlltoAll on 2 nodes x 2 GPUs: 2N P2pApi Send/Recv, P2p "
               "tasks, network ProxyOps to remote peers (nccl-behaviour §6.3)",
    .covers = "§6.3, §8.5",
    .nodes = 2,
    .ranks_per_node = 2,
    .ranks_per_process = 1,
    .ops = 3,
    .step = step_alltoall,
};
