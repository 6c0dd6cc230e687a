/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_initfail.c — two communicators per rank (world and
 * a split with the same members); the split is destroyed first. With a plugin
 * whose init fails for the second communicator (tests/stand_in_plugins/
 * bad_init_error), NCCL's refcount is decremented twice: the library is
 * dlclose'd while the world comm lives, its later events are dropped and
 * its finalize is never called (§2, §10.15).
 */
#include "scenarios/emu_scenarios.h"

static void layout_initfail(emu_layout *l, const emu_options *o) {
  (void)o;
  emu_layout_add_split(l, 0, l->comms[0].members, l->comms[0].nranks, "dup",
                       false, 7);
}

static void step_initfail(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "initfail", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE, bytes / 4, EMU_DT_FLOAT32,
                           0);
  emu_all_ranks_collective(a, 1, EMU_FUNC_ALLREDUCE, bytes / 4, EMU_DT_FLOAT32,
                           0);
}

static void teardown_initfail(emu_app *a) {
  for (int i = 0; i < a->nslots; i++)
    emu_comm_destroy(a, emu_app_comm(a, i, 1));
  /* the world comm keeps working; after a double decrement it is unseen */
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE, 1024, EMU_DT_FLOAT32, 0);
  emu_stream_sync(a);
}

const emu_scenario emu_scenario_initfail = {
    .name = "initfail",
    .summary =
        "two comms, the split destroyed first: with a failing init, "
        "NCCL's double refcount decrement dlcloses early (nccl-behaviour §2)",
    .covers = "§2, §10.15",
    .nodes = 2,
    .ranks_per_node = 1,
    .ranks_per_process = 1,
    .ops = 2,
    .layout = layout_initfail,
    .step = step_initfail,
    .teardown = teardown_initfail,
};
