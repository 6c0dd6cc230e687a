/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_app.h — an application thread (T_api) and the NCCL API it
 * calls: ncclGroupStart/End, collectives, send/recv, AllToAll, CE
 * collectives, CUDA-graph capture and replay, communicator init/destroy.
 * emu_app.c implements what NCCL does underneath (enqueue, group launch,
 * kernel plans, proxy op upload), including the T_async thread of
 * non-blocking communicators and the T_cudacb host-callback thread.
 */
#ifndef NCCLEMU_APP_H
#define NCCLEMU_APP_H

#include "nccl/emu_model.h"
#include "nccl/emu_proxy.h"

#define EMU_MAX_PENDING_TASKS 64
#define EMU_MAX_GRAPH_PLANS 16

/* A task as the app side keeps it until launch: the core's task plus what
 * the model decided for it. */
typedef struct emu_app_task {
  emu_task task;
  emu_coll_shape shape;
  bool is_ce;
  bool is_bcast_path; /* Broadcast on the AllGatherV path: no Coll */
  int peer_global;    /* p2p: peer's global rank */
} emu_app_task;

/* Tasks of one communicator waiting for the outermost ncclGroupEnd. */
typedef struct emu_pending {
  emu_comm *comm;
  int ntasks;
  emu_app_task tasks[EMU_MAX_PENDING_TASKS];
} emu_pending;

/* A kernel plan with its model data (also what a graph keeps). */
typedef struct emu_app_plan {
  emu_plan plan;
  emu_coll_shape shapes[EMU_MAX_TASKS_PER_PLAN];
  int peers_global[EMU_MAX_TASKS_PER_PLAN];
  bool needs_proxy;
} emu_app_plan;

typedef struct emu_graph {
  int nplans;
  emu_app_plan plans[EMU_MAX_GRAPH_PLANS];
} emu_graph;

struct emu_app;

/* T_cudacb: runs host-stream plan tasks of graph replays. */
typedef struct emu_cudacb {
  emu_thread thr;
  pthread_t th;
  struct emu_app *app;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  emu_app_plan queue[EMU_MAX_GRAPH_PLANS];
  int head, count;
  uint64_t posted, done;
  bool stop;
} emu_cudacb;

typedef struct emu_app {
  emu_worker *worker;
  int index;
  emu_thread thr;
  pthread_t th;
  emu_api_state api;
  int nslots;
  int slots[EMU_MAX_LOCAL_RANKS]; /* worker rank slots this thread drives */
  /* group launch state */
  int npending;
  emu_pending pending[EMU_MAX_LOCAL_RANKS * 2];
  /* graph capture */
  emu_graph *capturing;
  /* non-blocking communicators: the last async job */
  pthread_t async_th;
  bool async_running;
  uint32_t async_jobs;
  emu_thread async_thr;
  /* graph replay host callbacks */
  emu_cudacb *cudacb;
  /* model */
  uint64_t gpu_busy_until[EMU_MAX_LOCAL_RANKS]; /* monotonic ns */
  uint64_t op_counter;
  uint64_t user_tag; /* v7 userTag of the next operations */
  int iteration;
  bool stuck_intra; /* chaos: intra-node ops via SHM memcpy (never stopped) */
  bool delayed;     /* this thread drives the --delay-rank */
} emu_app;

/* ---------- the NCCL API as scenarios call it ---------- */
/* The truth's `load` record (docs/ncclemu.md): which plugin, symbol, ABI,
 * pretended release and host; `replay` marks one made by --replay. */
void emu_truth_load_record(emu_thread *t, const emu_plugin *p,
                           const emu_options *o, bool replay);
void emu_group_start(emu_app *a);
void emu_group_end(emu_app *a);
void emu_collective(emu_app *a, emu_comm *c, emu_func f, size_t count,
                    emu_datatype dt, int root);
void emu_send(emu_app *a, emu_comm *c, int peer, size_t count, emu_datatype dt);
void emu_recv(emu_app *a, emu_comm *c, int peer, size_t count, emu_datatype dt);
/* ncclAlltoAll: decomposed into 2N p2p tasks (nccl-behaviour §6.3). */
void emu_alltoall(emu_app *a, emu_comm *c, size_t count, emu_datatype dt);
/* Copy-engine collective (CTAPolicy ZERO, §8.6). */
void emu_ce_collective(emu_app *a, emu_comm *c, emu_func f, size_t count,
                       emu_datatype dt);
/* CUDA graphs (§8.7). */
void emu_graph_capture_begin(emu_app *a, emu_graph *g);
void emu_graph_capture_end(emu_app *a);
void emu_graph_launch(emu_app *a, emu_graph *g);
/* cudaStreamSynchronize: waits for proxies/async jobs/host callbacks and,
 * with --pace model, for the modelled GPU time. */
void emu_stream_sync(emu_app *a);
/* Emulates the plugin changing the activation mask at run time (§3.6). */
void emu_set_mask(emu_app *a, int mask, const char *why);

/* The comm instance of `comm_index` for this thread's i-th rank, or NULL
 * if that rank is not a member (or the comm was destroyed). */
emu_comm *emu_app_comm(emu_app *a, int i, int comm_index);
/* Runs comm init for all of this thread's ranks (grouped -> concurrent). */
void emu_app_init_comms(emu_app *a, int comm_index);
/* ncclCommDestroy of one comm instance (finalize + unload, §2). */
void emu_comm_destroy(emu_app *a, emu_comm *c);
/* Size of the i-th operation (from --sizes, chosen by the script rng). */
uint64_t emu_app_pick_size(emu_app *a, emu_rng *script_rng);

/* Thread body (emu_worker.c starts it). */
void *emu_app_main(void *arg);

#endif
