/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/main.c — owns the ncclemu command: parses options, applies the
 * scenario's defaults, checks the topology, builds the layout and shared
 * memory, forks one worker per --ranks-per-process ranks, waits for them
 * (a crashed, failing or stuck worker is reported by index, pid, ranks and
 * node), and prints the summary (callbacks, wall and CPU time per
 * callback). Exit: 0 ok, 1 failure, 2 usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_options.h"
#include "emu_supervise.h"
#include "emu_worker.h"
#include "nccl/emu_pxn.h"
#include "replay/emu_replay.h"
#include "scenarios/emu_scenarios.h"

static void apply_scenario_defaults(emu_options *o, const emu_scenario *sc) {
  if (o->nodes == 0)
    o->nodes = sc->nodes;
  if (o->ranks_per_node == 0)
    o->ranks_per_node = sc->ranks_per_node;
  if (o->ranks_per_process == 0) {
    o->ranks_per_process = sc->ranks_per_process;
    if (o->ranks_per_node % o->ranks_per_process != 0)
      o->ranks_per_process = 1;
  }
  if (o->ops == 0)
    o->ops = sc->ops;
  if (sc->configure != NULL)
    sc->configure(o);
}

static void check_topology(const emu_options *o) {
  int nranks = o->nodes * o->ranks_per_node;
  if (nranks > EMU_MAX_RANKS)
    emu_die("%d ranks: at most %d", nranks, EMU_MAX_RANKS);
  if (o->ranks_per_node % o->ranks_per_process != 0)
    emu_die("--ranks-per-process %d must divide --ranks-per-node %d (a "
            "process never spans nodes)",
            o->ranks_per_process, o->ranks_per_node);
  if (nranks / o->ranks_per_process > EMU_MAX_WORKERS)
    emu_die("too many processes (at most %d)", EMU_MAX_WORKERS);
  if (o->delay_rank >= nranks)
    emu_die("--delay-rank %d: only %d ranks", o->delay_rank, nranks);
  if (o->late_worker >= nranks / o->ranks_per_process)
    emu_die("--start-late %d: only %d processes", o->late_worker,
            nranks / o->ranks_per_process);
  if (o->slow_rank >= nranks)
    emu_die("--slow-rank %d: only %d ranks", o->slow_rank, nranks);
  if (o->slow_link_from >= nranks || o->slow_link_to >= nranks)
    emu_die("--slow-link %d:%d: only %d ranks", o->slow_link_from,
            o->slow_link_to, nranks);
  if (o->hang_rank >= nranks)
    emu_die("--hang-rank %d: only %d ranks", o->hang_rank, nranks);
}

static const char *signal_name(int sig) {
  const char *s = strsignal(sig);
  return s ? s : "unknown signal";
}

static void describe_worker(char *buf, size_t n, const emu_layout *l, int k,
                            pid_t pid) {
  int first = k * l->ranks_per_process;
  int last = first + l->ranks_per_process - 1;
  snprintf(buf, n, "worker %d (pid %d, ranks %d-%d, emu-node%d)", k, (int)pid,
           first, last, emu_node_of(l, first));
}

/* The supervisor's view of the workers, for emu_supervise's callbacks. */
typedef struct {
  const emu_layout *layout;
  emu_shared *sh;
} supervisor_ctx;

static bool worker_ended(void *ctx, int k, pid_t pid, int status) {
  const supervisor_ctx *c = ctx;
  char who[128];
  describe_worker(who, sizeof who, c->layout, k, pid);
  if (WIFSIGNALED(status)) {
    fprintf(stderr, "ncclemu: FAIL: %s crashed: killed by signal %d (%s)\n",
            who, WTERMSIG(status), signal_name(WTERMSIG(status)));
    return true;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 0)
    return false;
  int code = WEXITSTATUS(status);
  if (code == EMU_WORKER_CHECK_FAILED)
    fprintf(stderr,
            "ncclemu: FAIL: %s: %llu check failure(s) (CHECK FAILED "
            "lines above)\n",
            who,
            (unsigned long long)EMU_LOAD_RELAXED(
                &c->sh->workers[k].check_failures));
  else if (code == EMU_WORKER_LOAD_FAILED)
    fprintf(stderr, "ncclemu: FAIL: %s could not load the plugin\n", who);
  else
    fprintf(stderr,
            "ncclemu: FAIL: %s crashed: exited with status %d (see the "
            "report above)\n",
            who, code);
  return true;
}

static void workers_stop(void *ctx) {
  const supervisor_ctx *c = ctx;
  EMU_STORE_RELAXED(&c->sh->abort_flag, 1); /* others stop waiting */
}

int main(int argc, char **argv) {
  emu_options opts;
  emu_options_defaults(&opts);
  emu_options_parse(&opts, argc, argv);
  if (opts.replay)
    return emu_replay_main(&opts);
  const emu_scenario *sc = emu_find_scenario(opts.scenario);
  if (sc == NULL)
    emu_die("unknown scenario '%s' (ncclemu --list shows them)", opts.scenario);
  apply_scenario_defaults(&opts, sc);
  check_topology(&opts);
  if (opts.hang_rank < 0)
    opts.hang_rank = opts.nodes * opts.ranks_per_node - 1;

  static emu_layout layout;
  emu_layout_init(&layout, &opts, opts.nodes, opts.ranks_per_node,
                  opts.ranks_per_process);
  if (sc->layout != NULL)
    sc->layout(&layout, &opts);
  emu_shared *sh = emu_shared_create();
  emu_pxn_setup(layout.nranks);

  if (!opts.quiet) {
    const char *plugin =
        opts.plugin ? opts.plugin : getenv("NCCL_PROFILER_PLUGIN");
    fprintf(stderr,
            "ncclemu: scenario %s: %d node(s) x %d rank(s), %d process(es), "
            "plugin %s, NCCL %d.%d.%d%s, pace %s, seed %llu\n",
            sc->name, opts.nodes, opts.ranks_per_node, layout.nworkers,
            plugin ? plugin : "(libnccl-profiler.so)",
            opts.nccl_version / 10000, (opts.nccl_version / 100) % 100,
            opts.nccl_version % 100,
            opts.host == EMU_HOST_RCCL ? " (RCCL)" : "",
            opts.pace == EMU_PACE_MODEL ? "model" : "none",
            (unsigned long long)opts.seed);
  }
  fflush(stdout);
  fflush(stderr);

  pid_t pids[EMU_MAX_WORKERS];
  uint64_t t0 = emu_now_ns();
  for (int k = 0; k < layout.nworkers; k++) {
    pid_t pid = fork();
    if (pid < 0)
      emu_die("fork failed: %s", strerror(errno));
    if (pid == 0)
      emu_worker_main(&opts, sc, &layout, sh, k);
    pids[k] = pid;
  }

  supervisor_ctx ctx = {&layout, sh};
  emu_children children = {
      pids,      layout.nworkers, t0,           opts.timeout,
      "timeout", worker_ended,    workers_stop, &ctx};
  int failed = emu_supervise(&children);
  double wall = (double)(emu_now_ns() - t0) / 1e9;

  uint64_t callbacks = 0;
  for (int k = 0; k < layout.nworkers; k++)
    callbacks += EMU_LOAD_RELAXED(&sh->workers[k].callbacks);
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
               (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  if (opts.stats || !opts.quiet) {
    fprintf(stderr,
            "ncclemu: %s: %llu plugin callbacks in %.3f s (%.3f M/s), CPU "
            "%.3f s = %.1f ns per callback (emulator + plugin)\n",
            failed ? "FAILED" : "ok", (unsigned long long)callbacks, wall,
            wall > 0 ? (double)callbacks / wall / 1e6 : 0.0, cpu,
            callbacks ? cpu * 1e9 / (double)callbacks : 0.0);
  }
  return failed ? EMU_EXIT_FAIL : EMU_EXIT_OK;
}
