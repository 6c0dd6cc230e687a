/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/emu_scenarios.c — owns the scenario registry (--list,
 * --scenario) and the helpers scenarios share: grouped "every rank of this
 * thread" collectives and the script rng that makes all ranks issue the same
 * operations.
 */
#include "scenarios/emu_scenarios.h"

#include <string.h>

static const emu_scenario *const registry[] = {
    &emu_scenario_single_rank, &emu_scenario_single_node,
    &emu_scenario_multi_node,  &emu_scenario_grouped,
    &emu_scenario_p2p,         &emu_scenario_alltoall,
    &emu_scenario_ce,          &emu_scenario_graph,
    &emu_scenario_nonblocking, &emu_scenario_pxn,
    &emu_scenario_proxyctrl,   &emu_scenario_split,
    &emu_scenario_socket,      &emu_scenario_mixed,
    &emu_scenario_chaos,       &emu_scenario_hang,
    &emu_scenario_initfail,    &emu_scenario_rooted,
};

int emu_scenario_count(void) {
  return (int)(sizeof registry / sizeof *registry);
}

const emu_scenario *emu_scenario_at(int i) {
  return registry[i];
}

const emu_scenario *emu_find_scenario(const char *name) {
  for (int i = 0; i < emu_scenario_count(); i++)
    if (strcmp(registry[i]->name, name) == 0)
      return registry[i];
  return NULL;
}

void emu_all_ranks_collective(emu_app *a, int ci, emu_func f, size_t count,
                              emu_datatype dt, int root) {
  int members = 0;
  for (int i = 0; i < a->nslots; i++)
    if (emu_app_comm(a, i, ci) != NULL)
      members++;
  bool grouped = members > 1; /* one thread, several GPUs: -g style */
  if (grouped)
    emu_group_start(a);
  for (int i = 0; i < a->nslots; i++) {
    emu_comm *c = emu_app_comm(a, i, ci);
    if (c != NULL)
      emu_collective(a, c, f, count, dt, root);
  }
  if (grouped)
    emu_group_end(a);
}

void emu_script_rng(emu_rng *rng, const emu_app *a, const char *tag,
                    int iteration) {
  emu_rng_seed(rng, a->worker->opts->seed ^ (uint64_t)iteration * 0x9E37ULL,
               tag);
}
