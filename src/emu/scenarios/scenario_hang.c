/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/scenarios/scenario_hang.c — one rank hangs its second AllReduce
 * (for hang detection tests), in one of the ways of --hang-class:
 *   gpu           its GPU stops after sending its first chunk: it takes
 *                 nothing that arrives, its KernelCh never stops;
 *   network       what it sends to its ring successor on another node
 *                 never arrives (its sends stay in SendWait);
 *   proxy         its proxy thread stops after its first pass (its GPU
 *                 runs on; its last ProxyCtrl state stays Active);
 *   never-called  its host never calls it (stuck on the CPU, or
 *                 desynchronised): it finished AllReduce 1 and has nothing
 *                 in flight; the others wait in AllReduce 2 for its data;
 *   mismatch      it calls it with another count, datatype or function
 *                 (--mismatch): the ranks' kernels disagree on the steps
 *                 they exchange and no rank finishes it.
 * In the hung AllReduce of the gpu, network and proxy classes every rank
 * waits on its ring neighbours' data and buffers as in NCCL (emu_flow.h),
 * so the others stop where NCCL's would.
 * Default: 32 MiB, a channel per GPU of a node.
 * After --duration seconds every process aborts (events stay open) and
 * finalizes. Also used with --delay-rank/--delay-us for stragglers.
 */
#include "scenarios/emu_scenarios.h"

#include "emu_worker.h"

/* The iteration whose AllReduce hangs: the second. */
#define HANG_ITERATION 1

static void configure_hang(emu_options *o) {
  if (o->duration <= 0)
    o->duration = 2.0;
  if (o->ops < 100)
    o->ops = 100;
  /* NCCL spreads a node's rings over its NICs: each channel enters and
   * leaves a node on other GPUs, so that with a channel per GPU of a node
   * (and a message large enough to use them) every rank has a link to
   * another node, as on multi-NIC nodes. */
  if (!o->channels_set && o->ranks_per_node > o->channels)
    o->channels = o->ranks_per_node < EMU_MAX_CHANNELS ? o->ranks_per_node
                                                       : EMU_MAX_CHANNELS;
  if (!o->sizes_set) {
    o->sizes[0] = 32u << 20;
    o->nsizes = 1;
  }
}

/* Whether this thread drives --hang-rank (of the world communicator). */
static bool drives_hang_rank(emu_app *a) {
  for (int i = 0; i < a->nslots; i++) {
    emu_comm *c = emu_app_comm(a, i, 0);
    if (c != NULL && c->global_rank == a->worker->opts->hang_rank)
      return true;
  }
  return false;
}

/* A host that never calls: it waits, doing nothing NCCL sees, until the
 * hang's --duration is over; then the worker aborts like the others. */
static void never_call(emu_app *a) {
  emu_worker *w = a->worker;
  while (!emu_worker_aborting(w) &&
         (w->deadline_ns == 0 || emu_now_ns() < w->deadline_ns))
    emu_sleep_ns(1000000);
  emu_worker_abort(w);
}

/* The collective a rank calls: AllReduce of `count` floats, unless it is
 * the mismatch class's --hang-rank at the hang iteration. */
static void collective_of(const emu_options *o, const emu_comm *c, bool odd,
                          size_t count, emu_func *f, size_t *n,
                          emu_datatype *dt) {
  *f = EMU_FUNC_ALLREDUCE;
  *n = count;
  *dt = EMU_DT_FLOAT32;
  if (!odd || c->global_rank != o->hang_rank)
    return;
  switch (o->mismatch) {
  case EMU_MISMATCH_DATATYPE:
    *dt = EMU_DT_FLOAT16;
    break;
  case EMU_MISMATCH_FUNC: /* each rank's share of the same buffer */
    *f = EMU_FUNC_ALLGATHER;
    *n = count / (size_t)c->nranks > 0 ? count / (size_t)c->nranks : 1;
    break;
  default:
    *n = count / 4 > 0 ? count / 4 : 1;
    break;
  }
}

/* The AllReduce of every rank this thread drives (`odd`: the mismatch
 * class's hang iteration). */
static void allreduce(emu_app *a, size_t count, bool odd) {
  bool grouped = a->nslots > 1; /* one thread, several GPUs: -g style */
  if (grouped)
    emu_group_start(a);
  for (int i = 0; i < a->nslots; i++) {
    emu_comm *c = emu_app_comm(a, i, 0);
    if (c == NULL)
      continue;
    emu_func f;
    size_t n;
    emu_datatype dt;
    collective_of(a->worker->opts, c, odd, count, &f, &n, &dt);
    emu_collective(a, c, f, n, dt, 0);
  }
  if (grouped)
    emu_group_end(a);
}

static void step_hang(emu_app *a, int iteration) {
  emu_rng rng;
  emu_script_rng(&rng, a, "hang", iteration);
  uint64_t bytes = emu_app_pick_size(a, &rng);
  if (iteration == HANG_ITERATION && drives_hang_rank(a) &&
      a->worker->opts->hang_class == EMU_HANG_NEVER_CALLED) {
    never_call(a);
    return;
  }
  allreduce(a, bytes / 4,
            iteration == HANG_ITERATION &&
                a->worker->opts->hang_class == EMU_HANG_MISMATCH);
  emu_stream_sync(a);
}

const emu_scenario emu_scenario_hang = {
    .name = "hang",
    .summary = "--hang-rank hangs its 2nd AllReduce (--hang-class gpu: its "
               "GPU stops; network: its link to the next node stops; proxy: "
               "its proxy thread stops; never-called: its host never calls "
               "it; mismatch: it calls it with other arguments and nobody "
               "finishes) until --duration ends",
    .covers = "hang/straggler detection; §6.9 in-flight steps",
    .nodes = 2,
    .ranks_per_node = 1,
    .ranks_per_process = 1,
    .ops = 100,
    .configure = configure_hang,
    .step = step_hang,
};
