/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/emu_worker.h — one emulated process (a "worker"): its ranks,
 * communicator instances, proxies, application threads and run-wide
 * settings. The supervisor forks one worker per --ranks-per-process ranks;
 * each loads the plugin itself at its first communicator init. emu_worker.c.
 */
#ifndef NCCLEMU_WORKER_H
#define NCCLEMU_WORKER_H

#include "emu_threads.h"
#include "nccl/emu_model.h"
#include "nccl/emu_world.h"

struct emu_proxy;
struct emu_app;
struct emu_scenario;

typedef struct emu_worker {
  const emu_options *opts;
  const struct emu_scenario *scenario;
  const emu_layout *layout;
  emu_shared *shared;
  int index; /* worker index */
  pid_t pid;
  int first_rank; /* global rank of local slot 0 */
  int nlocal;     /* ranks in this process */
  /* comm instances: [local slot][comm index]; .spec == NULL if not member */
  emu_comm comms[EMU_MAX_LOCAL_RANKS][EMU_MAX_COMMS];
  struct emu_proxy *proxies[EMU_MAX_LOCAL_RANKS * EMU_MAX_COMMS];
  int nproxies;
  struct emu_app *apps[EMU_MAX_APP_THREADS];
  int napps;
  emu_thread main_thread; /* load, inits, finalize */
  emu_gpu_clock clocks[EMU_MAX_LOCAL_RANKS];
  uint64_t start_ns;    /* monotonic start of the scenario */
  uint64_t deadline_ns; /* hard end (duration/hang); 0 = none */
  int aborting;         /* relaxed flag: abandon in-flight work (abort) */
  bool pace_barrier;    /* proxies meet other ranks at every plan */
  pthread_mutex_t registry_mutex; /* guards proxies[]/nproxies */
} emu_worker;

/* The worker of this process (set once in worker_main). */
extern emu_worker *emu_self;

/* The emulated CUDA driver's device switch (src/emu/cuda), NULL when it is
 * not loaded (--no-devices, or the library is missing). */
extern void (*emu_cuda_set_device)(int node, int device);

bool emu_worker_aborting(const emu_worker *w);
void emu_worker_abort(emu_worker *w);
/* The worker's main: never returns (exits with a worker status). */
void emu_worker_main(const emu_options *o, const struct emu_scenario *sc,
                     const emu_layout *layout, emu_shared *sh, int index)
    __attribute__((noreturn));

#endif
