/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/emu_scenarios.h — what a scenario is: defaults for the
 * topology and options, the communicators it needs, and the step every
 * application thread runs once per iteration. Scenarios live in scenario_*.c
 * (this folder) and are listed in emu_scenarios.c (the registry behind --list).
 */
#ifndef NCCLEMU_SCENARIOS_H
#define NCCLEMU_SCENARIOS_H

#include "nccl/emu_app.h"

typedef struct emu_scenario {
  const char *name;
  const char *summary; /* one line for --list */
  const char *covers;  /* sections of docs/nccl-behaviour.md it exercises */
  /* defaults (used when the option was not given) */
  int nodes;
  int ranks_per_node;
  int ranks_per_process;
  int ops;
  /* Adjusts options (net type, pxn, chaos level, ...). May be NULL. */
  void (*configure)(emu_options *o);
  /* Adds split communicators to the layout. May be NULL. */
  void (*layout)(emu_layout *l, const emu_options *o);
  /* Called on every application thread before the first step: inits the
   * comms it needs (default: all comms, in index order). May be NULL. */
  void (*setup)(emu_app *a);
  /* One iteration of the workload on one application thread. */
  void (*step)(emu_app *a, int iteration);
  /* Called after the last step (before the comms are destroyed). */
  void (*teardown)(emu_app *a);
} emu_scenario;

const emu_scenario *emu_find_scenario(const char *name);
int emu_scenario_count(void);
const emu_scenario *emu_scenario_at(int i);

/* Shared helpers for scenarios (emu_scenarios.c). */
/* Runs one collective on comm `ci` for every rank of this thread (grouped
 * when the thread drives several ranks, like nccl-tests -g). */
void emu_all_ranks_collective(emu_app *a, int ci, emu_func f, size_t count,
                              emu_datatype dt, int root);
/* The script rng: identical on every thread and process for (seed, tag,
 * iteration), so all ranks issue the same operations. */
void emu_script_rng(emu_rng *rng, const emu_app *a, const char *tag,
                    int iteration);
/* The list of all scenarios, for the registry. */
extern const emu_scenario emu_scenario_single_rank, emu_scenario_single_node,
    emu_scenario_multi_node, emu_scenario_grouped, emu_scenario_p2p,
    emu_scenario_alltoall, emu_scenario_ce, emu_scenario_graph,
    emu_scenario_nonblocking, emu_scenario_pxn, emu_scenario_proxyctrl,
    emu_scenario_split, emu_scenario_mixed, emu_scenario_chaos,
    emu_scenario_hang, emu_scenario_socket, emu_scenario_initfail,
    emu_scenario_rooted;

#endif
