/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_basic.c — the plain collective sequences of
 * nccl-behaviour §8.1-§8.4: a single-rank communicator (no events), a
 * single-node AllReduce (KernelCh, no proxy ops), a multi-node ring
 * AllReduce (ProxyOp/ProxyStep/IB NetPlugin, §8.3 step counts) and a
 * grouped set of five collectives (one GroupApi, scheduler order, per-func
 * seqNumbers, Broadcast without Coll); rooted collectives whose root is
 * not rank 0 (what converters must carry: `cclscope otf2`).
 */
#include "scenarios/emu_scenarios.h"

static void step_allreduce(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "allreduce", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE, bytes / 4, EMU_DT_FLOAT32,
                           0);
}

const emu_scenario emu_scenario_single_rank = {
    .name = "single-rank",
    .summary = "nRanks==1 AllReduce: no profiler events at all, only "
               "ProxyCtrl Sleep/Wakeup of an idle proxy (nccl-behaviour §8.1)",
    .covers = "§8.1, §10.12",
    .nodes = 1,
    .ranks_per_node = 1,
    .ranks_per_process = 1,
    .ops = 4,
    .step = step_allreduce,
};

const emu_scenario emu_scenario_single_node = {
    .name = "single-node",
    .summary =
        "AllReduce on 4 GPUs of one node over NVLink: API events, "
        "Group/Coll, KernelCh per channel, no ProxyOp (nccl-behaviour §8.2)",
    .covers = "§8.2, §6.11",
    .nodes = 1,
    .ranks_per_node = 4,
    .ranks_per_process = 1,
    .ops = 4,
    .step = step_allreduce,
};

const emu_scenario emu_scenario_multi_node = {
    .name = "multi-node",
    .summary = "ring AllReduce across 2 nodes: ProxyOp/ProxyStep step counts, "
               "IB QP NetPlugin events, KernelCh (nccl-behaviour §8.3)",
    .covers = "§8.3, §6.8, §6.9, §6.12",
    .nodes = 2,
    .ranks_per_node = 1,
    .ranks_per_process = 1,
    .ops = 3,
    .step = step_allreduce,
};

static void step_grouped(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "grouped", iteration);
  /* ncclGroupStart; AllReduce A; AllGather B; ReduceScatter C;
   * AllReduce D; Broadcast E; ncclGroupEnd (§8.4) */
  static const emu_func funcs[5] = {EMU_FUNC_ALLREDUCE, EMU_FUNC_ALLGATHER,
                                    EMU_FUNC_REDUCESCATTER, EMU_FUNC_ALLREDUCE,
                                    EMU_FUNC_BROADCAST};
  uint64_t sizes[5];
  for (int k = 0; k < 5; k++)
    sizes[k] = emu_app_pick_size(a, &rng);
  emu_group_start(a);
  for (int k = 0; k < 5; k++)
    for (int i = 0; i < a->nslots; i++) {
      emu_comm *c = emu_app_comm(a, i, 0);
      if (c != NULL)
        emu_collective(a, c, funcs[k], sizes[k] / 4, EMU_DT_FLOAT32, 0);
    }
  emu_group_end(a);
}

const emu_scenario emu_scenario_grouped = {
    .name = "grouped",
    .summary = "ncclGroupStart + 5 collectives + ncclGroupEnd: one GroupApi "
               "(depth 2), 5 CollApi, Coll in scheduler order, no Coll for "
               "Broadcast (nccl-behaviour §8.4)",
    .covers = "§8.4, §6.1, §6.6",
    .nodes = 2,
    .ranks_per_node = 2,
    .ranks_per_process = 1,
    .ops = 3,
    .step = step_grouped,
};

/* Broadcast from rank 1 (a CollApi without Coll, §8.4) and Reduce to rank
 * 2 (the last rank on fewer ranks): roots other than 0. */
static void step_rooted(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "rooted", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  int last = a->worker->layout->nranks - 1;
  emu_all_ranks_collective(a, 0, EMU_FUNC_BROADCAST, bytes / 4, EMU_DT_FLOAT32,
                           last < 1 ? last : 1);
  emu_all_ranks_collective(a, 0, EMU_FUNC_REDUCE, bytes / 4, EMU_DT_FLOAT32,
                           last < 2 ? last : 2);
}

const emu_scenario emu_scenario_rooted = {
    .name = "rooted",
    .summary = "Broadcast from rank 1 (no Coll) and Reduce to rank 2 on 4 "
               "GPUs of one node: roots other than 0 (nccl-behaviour §8.4)",
    .covers = "§8.4, §6.6",
    .nodes = 1,
    .ranks_per_node = 4,
    .ranks_per_process = 1,
    .ops = 2,
    .step = step_rooted,
};
