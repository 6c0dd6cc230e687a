/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_pxn.c — PXN across processes (§8.9, §6.14,
 * §10.10): on each node, the rank of one process sends its network data through
 * the NIC of a rank in another process. That proxy starts ProxyOp/ProxyStep/
 * NetPlugin events with the ORIGINATING process's context and Coll handle
 * values and proxyOp.pid = the originator's pid. With --check those values
 * fault when dereferenced in the proxy's process.
 */
#include "scenarios/emu_scenarios.h"

static void configure_pxn(emu_options *o) {
  o->pxn = true;
}

static void step_pxn(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "pxn", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE, bytes / 4, EMU_DT_FLOAT32,
                           0);
  emu_all_ranks_collective(a, 0, EMU_FUNC_REDUCESCATTER, bytes / 4,
                           EMU_DT_FLOAT32, 0);
}

const emu_scenario emu_scenario_pxn = {
    .name = "pxn",
    .summary = "PXN between processes: proxy-side events carry the other "
               "process's context/parent and pid (nccl-behaviour §8.9)",
    .covers = "§8.9, §6.14, §10.10",
    .nodes = 2,
    .ranks_per_node = 2,
    .ranks_per_process = 1,
    .ops = 3,
    .configure = configure_pxn,
    .step = step_pxn,
};
