/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_ce.c — copy-engine collectives (v6+, §8.6, §6.13):
 * AllGather and AlltoAll with CTAPolicy ZERO on one NVLink node: GroupApi,
 * CollApi, then CeColl with CeSync "ready"/"complete" barriers around a
 * CeBatch (nested CeSync when graph-captured); no KernelLaunch, Group, Coll,
 * KernelCh or ProxyOp, no recordEventState. v5 and older plugins receive
 * nothing for them (the adapter nulls the handle and clears the CE bits).
 */
#include "scenarios/emu_scenarios.h"

static void step_ce(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "ce", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  for (int i = 0; i < a->nslots; i++) {
    emu_comm *c = emu_app_comm(a, i, 0);
    if (c == NULL)
      continue;
    emu_ce_collective(a, c, EMU_FUNC_ALLGATHER, bytes / 4, EMU_DT_FLOAT32);
    emu_ce_collective(a, c, EMU_FUNC_ALLTOALL, bytes / 4, EMU_DT_FLOAT32);
  }
  if (iteration == 0) {
    /* one captured CE collective: intra-batch syncs nest inside CeBatch */
    emu_graph g;
    emu_graph_capture_begin(a, &g);
    for (int i = 0; i < a->nslots; i++)
      emu_ce_collective(a, emu_app_comm(a, i, 0), EMU_FUNC_ALLGATHER, bytes / 4,
                        EMU_DT_FLOAT32);
    emu_graph_capture_end(a);
  }
}

const emu_scenario emu_scenario_ce = {
    .name = "ce",
    .summary = "copy-engine AllGather/AlltoAll (v6+): CeColl > CeSync, "
               "CeBatch (> nested CeSync when captured), no Coll "
               "(nccl-behaviour §8.6)",
    .covers = "§8.6, §6.13",
    .nodes = 1,
    .ranks_per_node = 4,
    .ranks_per_process = 2,
    .ops = 3,
    .step = step_ce,
};
