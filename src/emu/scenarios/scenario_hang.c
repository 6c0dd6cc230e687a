/*
 * src/emu/scenarios/scenario_hang.c — one rank stops progressing (for hang
 * detection tests): from its second AllReduce on, the --hang-rank's proxy posts
 * a few steps and then never completes them, its KernelCh never stops; the
 * other ranks wait for it with steps in flight. After --duration seconds every
 * process aborts (events stay open) and finalizes. Also used with
 * --delay-rank/--delay-us for stragglers.
 */
#include "emu_scenarios.h"

static void configure_hang(emu_options *o) {
  if (o->duration <= 0)
    o->duration = 2.0;
  if (o->ops < 100)
    o->ops = 100;
}

static void step_hang(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "hang", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE, bytes / 4, EMU_DT_FLOAT32,
                           0);
  emu_stream_sync(a);
}

const emu_scenario emu_scenario_hang = {
    .name = "hang",
    .summary = "--hang-rank stops progressing in its 2nd AllReduce: steps "
               "and KernelCh never complete until --duration ends",
    .covers = "hang/straggler detection; §6.9 in-flight steps",
    .nodes = 2,
    .ranks_per_node = 1,
    .ranks_per_process = 1,
    .ops = 100,
    .configure = configure_hang,
    .step = step_hang,
};
