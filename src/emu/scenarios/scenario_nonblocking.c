/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_nonblocking.c — non-blocking communicators
 * (config.blocking = 0, §8.8): the application thread emits GroupApi,
 * CollApi and stops the GroupApi; KernelLaunch, Group and Coll follow on a
 * new "NCCL async" job thread, with the GroupApi already stopped.
 */
#include "scenarios/emu_scenarios.h"

static void layout_nonblocking(emu_layout *l, const emu_options *o) {
  (void)o;
  l->comms[0].blocking = false;
}

static void step_nonblocking(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "nonblocking", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE, bytes / 4, EMU_DT_FLOAT32,
                           0);
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLGATHER, bytes / 8, EMU_DT_BFLOAT16,
                           0);
}

const emu_scenario emu_scenario_nonblocking = {
    .name = "nonblocking",
    .summary = "config.blocking=0: KernelLaunch/Group/Coll on an 'NCCL async' "
               "thread after the GroupApi stopped (nccl-behaviour §8.8)",
    .covers = "§8.8, §5",
    .nodes = 2,
    .ranks_per_node = 1,
    .ranks_per_process = 1,
    .ops = 3,
    .layout = layout_nonblocking,
    .step = step_nonblocking,
};
