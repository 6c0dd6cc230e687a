/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_proxyctrl.c — the ProxyCtrl lifecycle (§8.10,
 * §6.10): with the activation mask set to ProxyCtrl only (unless --mask is
 * given), the proxy thread shows Sleep/Wakeup, Append/AppendEnd(n) and
 * Active/Idle markers around otherwise invisible network collectives.
 */
#include "scenarios/emu_scenarios.h"

static void configure_proxyctrl(emu_options *o) {
  if (!o->mask_set) {
    o->mask_set = true;
    o->mask = ncclProfileProxyCtrl;
  }
}

static void step_proxyctrl(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "proxyctrl", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  emu_all_ranks_collective(a, 0, EMU_FUNC_ALLREDUCE, bytes / 4, EMU_DT_FLOAT32,
                           0);
  emu_stream_sync(a);
  /* an idle gap: the proxy goes to sleep */
  if (a->worker->opts->pace == EMU_PACE_MODEL)
    emu_sleep_ns(2000000);
}

const emu_scenario emu_scenario_proxyctrl = {
    .name = "proxyctrl",
    .summary = "mask=ProxyCtrl: Sleep/Wakeup, Append/AppendEnd(n), "
               "Active/Idle markers of the proxy thread (nccl-behaviour §8.10)",
    .covers = "§8.10, §6.10",
    .nodes = 2,
    .ranks_per_node = 1,
    .ranks_per_process = 1,
    .ops = 4,
    .configure = configure_proxyctrl,
    .step = step_proxyctrl,
};
