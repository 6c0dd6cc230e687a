/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_socket.c — the socket network transport (§6.12):
 * data moves on "NCCL Sock" helper threads that emit NetPlugin start/stop with
 * a parent captured once (unreliable, possibly stopped) and stops that can come
 * after the ProxyStep stop.
 */
#include "scenarios/emu_scenarios.h"

static void configure_socket(emu_options *o) {
  o->net = EMU_NET_SOCKET;
}

static void step_socket(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "socket", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE, bytes / 4, EMU_DT_FLOAT32,
                           0);
  emu_group_start(a);
  for (int i = 0; i < a->nslots; i++) {
    emu_comm *c = emu_app_comm(a, i, 0);
    if (c == NULL)
      continue;
    int peer = (c->rank + c->nranks / 2) % c->nranks;
    emu_send(a, c, peer, bytes / 4, EMU_DT_FLOAT32);
    emu_recv(a, c, peer, bytes / 4, EMU_DT_FLOAT32);
  }
  emu_group_end(a);
}

const emu_scenario emu_scenario_socket = {
    .name = "socket",
    .summary = "socket transport: NetPlugin events on 'NCCL Sock' helper "
               "threads with unreliable, possibly stopped parents "
               "(nccl-behaviour §6.12)",
    .covers = "§6.12, §10.7",
    .nodes = 2,
    .ranks_per_node = 1,
    .ranks_per_process = 1,
    .ops = 3,
    .configure = configure_socket,
    .step = step_socket,
};
