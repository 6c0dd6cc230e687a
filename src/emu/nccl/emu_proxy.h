/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_proxy.h — a proxy state and its progress thread ("NCCL
 * Progress NN"), shared by split communicators: the queue of posted work
 * (one entry per kernel plan), the recycled sub-args pool, the IB request
 * pool with its never-cleared QP event slots, and the socket helper threads
 * ("NCCL Sock"). emu_proxy.c runs ProxyCtrl / ProxyOp / ProxyStep / KernelCh /
 * NetPlugin exactly in the orders of nccl-behaviour §6.8-§6.12, §8.3, §8.10.
 */
#ifndef NCCLEMU_PROXY_H
#define NCCLEMU_PROXY_H

#include "emu_worker.h"
#include "nccl/emu_flow.h"
#include "profiler/emu_profiler_core.h"

#define EMU_MAX_OPS_PER_WORK 160
#define EMU_WORK_POOL 6
#define EMU_SUB_POOL 320
/* IB requests in flight at once: every sub of a work can have all of its
 * NCCL_STEPS slots posted (a PXN proxy serves its node-mates' subs too:
 * 2x8 ranks with PXN needed more than 256). */
#define EMU_IB_REQUESTS (EMU_MAX_OPS_PER_WORK * EMU_NCCL_STEPS)
#define EMU_IB_MAX_QPS 8
#define EMU_SOCK_HELPERS 2
#define EMU_SOCK_RING 256

/* Everything one kernel plan asks of one rank's proxy. */
typedef struct emu_proxy_work {
  int nops;
  emu_proxy_op ops[EMU_MAX_OPS_PER_WORK];
  emu_comm *comm;       /* plan's comm (barrier key); NULL for shutdown */
  uint64_t plan_seq;    /* comm->plan_seq of the plan */
  uint64_t launch_rt;   /* realtime ns of the kernel launch */
  uint64_t launch_mono; /* the same moment on CLOCK_MONOTONIC */
  uint64_t kernel_ns;   /* modelled kernel time of intra-node work */
  /* the GPU's own work in the plan (every task's intra-node model, network
   * or not): what a slow GPU (--slow-rank) takes --slow-factor times */
  uint64_t gpu_work_ns;
  bool barrier; /* meet the comm's other ranks first */
  bool hang;    /* hang scenario: stall in this work */
  /* hang scenario's hung AllReduce: ranks wait on each other's data
   * (emu_flow.h) instead of meeting at a barrier; one entry per channel */
  bool flow;
  int nflow;
  emu_flow_channel flow_ch[EMU_MAX_CHANNELS];
  int pxn_origin_grank; /* merge PXN ops sent by this global rank; -1 */
  bool shutdown;
} emu_proxy_work;

typedef struct emu_ib_request {
  bool used;
  int nqps;
  emu_slot qp_event[EMU_IB_MAX_QPS]; /* qpEventHandles[]: never cleared */
} emu_ib_request;

struct emu_proxy;

typedef struct emu_sock_task {
  emu_net_parent parent;
  int fd;
  int op; /* 0 send, 1 recv */
  size_t length;
  int *data_done;         /* proxy's per-step counter (atomic increments) */
  bool unreliable_parent; /* parent is not this step (or NULL) */
  bool late_update;       /* chaos: Update after the stop (external plugin) */
} emu_sock_task;

typedef struct emu_sock_helper {
  emu_thread thr;
  pthread_t th;
  struct emu_proxy *proxy;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  emu_sock_task ring[EMU_SOCK_RING];
  int head, tail; /* under mu */
  bool stop;
  emu_slot slots[16]; /* recycled eHandle slots of socket requests */
  int next_slot;
} emu_sock_helper;

typedef struct emu_proxy {
  emu_thread thr;
  pthread_t th;
  bool started;
  emu_worker *worker;
  int local_slot; /* rank slot in the worker */
  int global_rank;
  int refs;             /* comms using this proxy (split sharing) */
  emu_comm *owner;      /* the comm that created it: ProxyCtrl context */
  void *ctrl_context;   /* proxyState->profilerContext */
  bool owner_finalized; /* under mu */
  /* queue */
  pthread_mutex_t mu;
  pthread_cond_t cv_work, cv_free, cv_done;
  emu_proxy_work pool[EMU_WORK_POOL];
  emu_proxy_work *free_list[EMU_WORK_POOL];
  int nfree;
  emu_proxy_work *queue[EMU_WORK_POOL];
  int qhead, qcount;
  uint64_t posted, completed;
  /* NCCL objects recycled without clearing */
  emu_sub subs[EMU_SUB_POOL];
  int free_subs[EMU_SUB_POOL];
  int nfree_subs;
  emu_ib_request ib[EMU_IB_REQUESTS];
  /* socket transport */
  emu_sock_helper *helpers[EMU_SOCK_HELPERS];
  int nhelpers;
  uint64_t sock_posted;           /* proxy thread only */
  uint64_t sock_finished;         /* helpers: atomic increments */
  struct emu_pxn_record *pxn_rec; /* receive buffer for PXN records */
  /* NCCL >= 2.31: the profiler thread of the comms sharing this proxy
   * (emu_profiler_thread.h); NULL otherwise. */
  struct emu_profthread *profthread;
  void *progress; /* emu_proxy.c's per-work progress state, reused */
} emu_proxy;

/* Creates the proxy (does not start the thread). */
emu_proxy *emu_proxy_create(emu_worker *w, emu_comm *owner, int local_slot);
void emu_proxy_start(emu_proxy *p);
/* Gets a free work entry (blocks while all are in use). */
emu_proxy_work *emu_proxy_get_work(emu_proxy *p);
void emu_proxy_post(emu_proxy *p, emu_proxy_work *work);
/* Waits until everything posted so far was processed (stream sync). */
void emu_proxy_wait_idle(emu_proxy *p);
/* Marks the owner finalized (ProxyCtrl then uses a finalized context). */
void emu_proxy_owner_finalized(emu_proxy *p);
/* Posts a shutdown and joins the thread (and the socket helpers). */
void emu_proxy_join(emu_proxy *p);

#endif
