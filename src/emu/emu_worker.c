/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/emu_worker.c — owns one emulated process: its environment
 * (CCLSCOPE_HOSTNAME, CCLSCOPE_HOST, NCCL_PROFILER_PLUGIN), its truth file,
 * its communicator instances and application threads, and its exit status
 * (0 ok, EMU_WORKER_CHECK_FAILED, EMU_WORKER_LOAD_FAILED). The plugin is
 * loaded by the first communicator init, after fork, as NCCL would.
 */
#include "emu_worker.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/emu_check.h"
#include "check/emu_truth.h"
#include "nccl/emu_app.h"
#include "scenarios/emu_scenarios.h"

emu_worker *emu_self;

bool emu_worker_aborting(const emu_worker *w) {
  return EMU_LOAD_RELAXED(&w->aborting) != 0 ||
         EMU_LOAD_RELAXED(&w->shared->abort_flag) != 0;
}

void emu_worker_abort(emu_worker *w) {
  EMU_STORE_RELAXED(&w->aborting, 1);
}

static void setup_environment(const emu_options *o, const emu_layout *l,
                              int first_rank) {
  char host[64];
  snprintf(host, sizeof host, "emu-node%d", emu_node_of(l, first_rank));
  setenv("CCLSCOPE_HOSTNAME", host, 1);
  if (o->host == EMU_HOST_RCCL)
    setenv("CCLSCOPE_HOST", "rccl", 1);
  if (o->plugin != NULL)
    setenv("NCCL_PROFILER_PLUGIN", o->plugin, 1);
  /* As torchrun gives each process it starts: ncclemu is this job's
   * launcher (one process per worker, docs/ncclemu.md). */
  char v[16];
  snprintf(v, sizeof v, "%d", emu_worker_of(l, first_rank));
  setenv("RANK", v, 1);
  snprintf(v, sizeof v, "%d",
           emu_local_of(l, first_rank) / l->ranks_per_process);
  setenv("LOCAL_RANK", v, 1);
  snprintf(v, sizeof v, "%d", l->nworkers);
  setenv("WORLD_SIZE", v, 1);
}

void (*emu_cuda_set_device)(int node, int device);

/* --start-late: before this worker's first init loads the plugin, wait
 * until every other worker's first init has returned (none waits for this
 * one), then late_ms more, so that this process starts at least that much
 * after all the others whatever the machine's load. A worker that never
 * gets there (it died) is waited for at most 60 s. */
static void start_late(const emu_worker *w) {
  uint64_t give_up = emu_now_ns() + 60ULL * 1000000000ULL;
  for (int k = 0; k < w->layout->nworkers; k++)
    while (k != w->index &&
           !EMU_LOAD_ACQUIRE(&w->shared->workers[k].first_init_done) &&
           !EMU_LOAD_ACQUIRE(&w->shared->abort_flag) && emu_now_ns() < give_up)
      usleep(1000);
  usleep((useconds_t)(w->opts->late_ms * 1000.0));
}

/* The emulated CUDA driver (src/emu/cuda) from beside the ncclemu binary,
 * loaded globally before the plugin so that it is "the process's CUDA". */
static void load_cuda_driver(const emu_options *o) {
  if (o->no_devices)
    return;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash == NULL)
    return;
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%.*s/libncclemu-cuda.so", (int)(slash - exe),
           exe);
  void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (lib == NULL) {
    if (!o->quiet)
      fprintf(stderr,
              "ncclemu: no emulated CUDA driver (%s): the plugin will see no "
              "GPU devices\n",
              dlerror());
    return;
  }
  *(void **)&emu_cuda_set_device = dlsym(lib, "emu_cuda_set_device");
}

static void create_comm_instances(emu_worker *w) {
  const emu_layout *l = w->layout;
  for (int slot = 0; slot < w->nlocal; slot++) {
    int g = w->first_rank + slot;
    for (int ci = 0; ci < l->ncomms; ci++) {
      const emu_comm_spec *spec = &l->comms[ci];
      int r = emu_comm_rank_of(spec, g);
      if (r < 0)
        continue;
      emu_comm *c = &w->comms[slot][ci];
      c->spec = spec;
      c->index = ci;
      c->rank = r;
      c->global_rank = g;
      c->local_slot = slot;
      c->nranks = spec->nranks;
      c->nnodes = spec->nnodes;
      c->hash = spec->hash;
      c->blocking = spec->blocking;
      snprintf(c->name_buf, sizeof c->name_buf, "%s", spec->name);
      c->commName = c->name_buf[0] ? c->name_buf : NULL;
      if (spec->parent >= 0)
        c->parent = &w->comms[slot][spec->parent];
    }
  }
}

static void create_apps(emu_worker *w) {
  int n = w->opts->threads > 0 ? w->opts->threads : 1;
  if (n > w->nlocal)
    n = w->nlocal;
  if (n > EMU_MAX_APP_THREADS)
    n = EMU_MAX_APP_THREADS;
  w->napps = n;
  for (int i = 0; i < n; i++) {
    emu_app *a = calloc(1, sizeof *a);
    if (a == NULL)
      emu_die("out of memory for an application thread");
    a->worker = w;
    a->index = i;
    w->apps[i] = a;
  }
  for (int slot = 0; slot < w->nlocal; slot++) {
    emu_app *a = w->apps[slot % n];
    a->slots[a->nslots++] = slot;
  }
  for (int i = 0; i < n; i++) {
    emu_app *a = w->apps[i];
    char name[40];
    snprintf(name, sizeof name, "w%d/app%d", w->index, i);
    emu_thread_init(&a->thr, w->index, EMU_STREAM_APP(i), EMU_ROLE_APP, name,
                    w->opts->seed);
  }
}

void emu_worker_main(const emu_options *o, const emu_scenario *sc,
                     const emu_layout *layout, emu_shared *sh, int index) {
  emu_worker *w = calloc(1, sizeof *w);
  if (w == NULL)
    emu_die("out of memory for a worker");
  w->opts = o;
  w->scenario = sc;
  w->layout = layout;
  w->shared = sh;
  w->index = index;
  w->pid = getpid();
  w->first_rank = index * layout->ranks_per_process;
  w->nlocal = layout->ranks_per_process;
  pthread_mutex_init(&w->registry_mutex, NULL);
  emu_self = w;
  EMU_STORE_RELAXED(&sh->workers[index].pid, (int)w->pid);

  setup_environment(o, layout, w->first_rank);
  load_cuda_driver(o);
  if (o->truth != NULL) {
    char path[1024];
    if (layout->nworkers == 1)
      snprintf(path, sizeof path, "%s", o->truth);
    else
      snprintf(path, sizeof path, "%s.%d", o->truth, index);
    emu_truth_open(path);
  }
  emu_check_configure(o->check, o->max_callback_ms, o->max_lifecycle_ms);
  emu_thread_note_own(); /* this worker's main thread */
  emu_watchdog_start();
  emu_core_configure(o->check, o->check ? o->max_callback_ms : 0,
                     o->truth != NULL);
  emu_loader_configure(o);
  emu_shims_detect_unwritten(o->check || o->truth != NULL);
  w->pace_barrier = o->pace == EMU_PACE_MODEL || sc == &emu_scenario_hang ||
                    o->delay_rank >= 0;
  for (int slot = 0; slot < w->nlocal; slot++)
    emu_gpu_clock_init(&w->clocks[slot], o, w->first_rank + slot);

  char main_name[40];
  snprintf(main_name, sizeof main_name, "w%d/main", index);
  emu_thread_init(&w->main_thread, index, EMU_STREAM_MAIN, EMU_ROLE_MAIN,
                  main_name, o->seed);
  emu_thread_attach(&w->main_thread);

  create_comm_instances(w);
  create_apps(w);
  if (o->late_worker == index)
    start_late(w);
  w->start_ns = emu_now_ns();
  if (sc == &emu_scenario_hang)
    w->deadline_ns = w->start_ns + (uint64_t)(o->duration * 1e9);

  for (int i = 0; i < w->napps; i++) {
    char os_name[32];
    snprintf(os_name, sizeof os_name, "emu-rank%d",
             w->first_rank + w->apps[i]->slots[0]);
    emu_thread_spawn(&w->apps[i]->th, os_name, emu_app_main, w->apps[i]);
  }
  for (int i = 0; i < w->napps; i++)
    pthread_join(w->apps[i]->th, NULL);
  emu_watchdog_stop();
  emu_watchdog_counts wc;
  emu_watchdog_counts_get(&wc);
  if (wc.excused > 0 && !o->quiet)
    emu_warn("worker %d: %llu plugin call(s) outlived the time limit only "
             "because their thread waited for a CPU (descheduled, little "
             "CPU time, no sleep): not reported",
             index, (unsigned long long)wc.excused);

  emu_thread_detach(&w->main_thread);
  uint64_t callbacks = emu_thread_detached_callbacks();
  emu_truth_close();
  EMU_STORE_RELAXED(&sh->workers[index].callbacks, callbacks);
  uint64_t failures = emu_check_total();
  EMU_STORE_RELAXED(&sh->workers[index].check_failures, failures);
  EMU_STORE_RELAXED(&sh->workers[index].finished, 1);
  if (failures > 0) {
    char label[32];
    snprintf(label, sizeof label, "worker %d", index);
    emu_check_summary(label);
  }
  fflush(stdout);
  fflush(stderr);
  exit(failures > 0 ? EMU_WORKER_CHECK_FAILED : EMU_EXIT_OK);
}
