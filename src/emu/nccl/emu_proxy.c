/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_proxy.c — owns the proxy progress thread of one proxy state
 * and its socket helper threads. For every posted work (one kernel plan):
 *   ProxyCtrl Sleep/Wakeup (when it was waiting), Append windows with
 *   ProxyOp starts (nccl-behaviour §6.10, §6.8), Active marker, the
 *   progress loop — ProxyOp InProgress, ProxyStep start/states/stop with
 *   <= NCCL_STEPS / sliceSteps steps in flight, IB QP NetPlugin events from
 *   this thread or socket NetPlugin events from "NCCL Sock" helpers (§6.9,
 *   §6.12), KernelCh start/stop with per-batch GPU timestamps (§6.11;
 *   from NCCL 2.31 only the stamps, which the profiler thread of
 *   emu_profiler_thread.c turns into calls, §12) —
 *   ProxyOp stops when all subs of an args are done, then the Idle marker.
 * Decisions (restarts, repeated peer waits, sleeping) come from the
 * thread's seeded rng and a virtual clock, so the order of calls on this
 * thread is the same for the same --seed; with --pace model the thread
 * sleeps until the virtual time is reached.
 */
#include "nccl/emu_proxy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/emu_check.h"
#include "nccl/emu_profiler_thread.h"
#include "nccl/emu_pxn.h"

#define APPEND_BATCH 16 /* NCCL_PROXY_APPEND_BATCH_SIZE */
#define MAX_ARGS_GROUPS 256
#define DIVUP(a, b) (((a) + (b)-1) / (b))

/* ---------- small helpers ---------- */
static bool aborting(const emu_proxy *p) {
  return emu_worker_aborting(p->worker);
}

static void timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += 20 * 1000 * 1000;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  pthread_cond_timedwait(cv, mu, &ts);
}

static double chaos(const emu_proxy *p) {
  return p->worker->opts->chaos_level;
}

/* Chaos: a kernel that leaves an inner phase stamp out (AFTER_OPEN,
 * BEFORE_CLOSE or both), so plugins meet NCCL's fold rule for missing
 * boundaries (§12; emu_kernel_phase_spans). */
static void drop_phase_stamps(emu_proxy *p, emu_kernel_stamps *s) {
  if (p->profthread == NULL || chaos(p) <= 0 ||
      !emu_rng_chance(&p->thr.rng, 0.1 * chaos(p)))
    return;
  switch (emu_rng_below(&p->thr.rng, 3)) {
  case 0:
    s->phase_end[0] = 0;
    break;
  case 1:
    s->phase_end[1] = 0;
    break;
  default:
    s->phase_end[0] = s->phase_end[1] = 0;
    break;
  }
}

/* ---------- queue ---------- */
emu_proxy_work *emu_proxy_get_work(emu_proxy *p) {
  pthread_mutex_lock(&p->mu);
  while (p->nfree == 0 && !aborting(p))
    timed_wait(&p->cv_free, &p->mu);
  emu_proxy_work *w = NULL;
  if (p->nfree > 0)
    w = p->free_list[--p->nfree];
  pthread_mutex_unlock(&p->mu);
  if (w == NULL)
    return NULL; /* aborting */
  w->nops = 0;
  w->comm = NULL;
  w->plan_seq = 0;
  w->launch_rt = 0;
  w->launch_mono = 0;
  w->kernel_ns = 0;
  w->gpu_work_ns = 0;
  w->barrier = false;
  w->hang = false;
  w->flow = false;
  w->nflow = 0;
  w->pxn_origin_grank = -1;
  w->shutdown = false;
  return w;
}

void emu_proxy_post(emu_proxy *p, emu_proxy_work *w) {
  pthread_mutex_lock(&p->mu);
  p->queue[(p->qhead + p->qcount) % EMU_WORK_POOL] = w;
  p->qcount++;
  p->posted++;
  pthread_cond_signal(&p->cv_work);
  pthread_mutex_unlock(&p->mu);
}

static emu_proxy_work *take_work(emu_proxy *p) {
  pthread_mutex_lock(&p->mu);
  while (p->qcount == 0)
    timed_wait(&p->cv_work, &p->mu);
  emu_proxy_work *w = p->queue[p->qhead];
  p->qhead = (p->qhead + 1) % EMU_WORK_POOL;
  p->qcount--;
  pthread_mutex_unlock(&p->mu);
  return w;
}

static void finish_work(emu_proxy *p, emu_proxy_work *w) {
  pthread_mutex_lock(&p->mu);
  p->free_list[p->nfree++] = w;
  p->completed++;
  pthread_cond_broadcast(&p->cv_done);
  pthread_cond_signal(&p->cv_free);
  pthread_mutex_unlock(&p->mu);
}

void emu_proxy_wait_idle(emu_proxy *p) {
  pthread_mutex_lock(&p->mu);
  while (p->completed < p->posted && !aborting(p))
    timed_wait(&p->cv_done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

void emu_proxy_owner_finalized(emu_proxy *p) {
  pthread_mutex_lock(&p->mu);
  p->owner_finalized = true;
  pthread_mutex_unlock(&p->mu);
}

static bool owner_is_finalized(emu_proxy *p) {
  pthread_mutex_lock(&p->mu);
  bool f = p->owner_finalized;
  pthread_mutex_unlock(&p->mu);
  return f;
}

/* ---------- recycled objects ---------- */
static emu_sub *alloc_sub(emu_proxy *p) {
  if (p->nfree_subs == 0)
    emu_die("internal: proxy sub pool exhausted (raise EMU_SUB_POOL)");
  return &p->subs[p->free_subs[--p->nfree_subs]];
}

static void free_sub(emu_proxy *p, emu_sub *s) {
  p->free_subs[p->nfree_subs++] = (int)(s - p->subs);
}

/* Resets the progress fields; the handle slots and transSize keep their
 * old values (NCCL does not memset recycled sub-args). */
static void prepare_sub(emu_proxy *p, emu_sub *s, const emu_proxy_op *op) {
  s->op = *op;
  int slice = op->slice_steps > 0 ? op->slice_steps : 1;
  s->nsteps = DIVUP(op->nsteps, slice);
  s->depth = EMU_NCCL_STEPS / slice;
  s->posted = s->transmitted = s->done = 0;
  s->peer_waits = 0;
  s->want_peer_waits =
      1 + (emu_rng_chance(&p->thr.rng, 0.05 + 0.4 * chaos(p)) ? 1 : 0);
  s->restarts = 0;
  s->flow_ready = 0;
  s->in_progress_recorded = false;
  s->finished = false;
  for (int i = 0; i < EMU_NCCL_STEPS; i++) {
    s->ready_ns[i] = 0;
    s->done_ns[i] = 0;
    s->req[i] = -1;
    s->sock_expected[i] = 0;
    EMU_STORE_RELAXED(&s->sock_done[i], 0);
  }
}

static int alloc_ib_request(emu_proxy *p) {
  for (int i = 0; i < EMU_IB_REQUESTS; i++)
    if (!p->ib[i].used) {
      p->ib[i].used = true;
      return i;
    }
  emu_die("internal: IB request pool exhausted");
}

/* ---------- network: IB from this thread, socket via helpers ---------- */
static uint64_t step_bytes(const emu_sub *s, int step) {
  uint64_t start = (uint64_t)step * s->op.step_bytes;
  if (start >= s->op.bytes)
    return 0;
  uint64_t left = s->op.bytes - start;
  return left < s->op.step_bytes ? left : s->op.step_bytes;
}

static void sock_dispatch(emu_proxy *p, emu_sub *s, int step, uint64_t bytes,
                          int op) {
  emu_net_parent current;
  emu_core_net_parent_from_sub(&current, s, step);
  /* NCCL's helper threads keep the pInfo of the request slot of this
   * connection that created them and read its pHandle when a task starts:
   * the ProxyStep now in that slot — modelled as this sub's pHandles[0],
   * the step that last took the first request slot — or NULL once that
   * step stopped (§6.12). */
  emu_net_parent first_slot;
  emu_core_net_parent_from_sub(&first_slot, s, 0);
  int ntasks = bytes > 64 * 1024 ? 2 : 1;
  s->sock_expected[step % EMU_NCCL_STEPS] = ntasks;
  for (int k = 0; k < ntasks; k++) {
    emu_sock_helper *h = p->helpers[p->sock_posted % (uint64_t)p->nhelpers];
    p->sock_posted++;
    pthread_mutex_lock(&h->mu);
    while (h->tail - h->head >= EMU_SOCK_RING) {
      pthread_mutex_unlock(&h->mu);
      emu_sleep_ns(10000);
      pthread_mutex_lock(&h->mu);
    }
    emu_sock_task *task = &h->ring[h->tail % EMU_SOCK_RING];
    task->parent = first_slot;
    task->unreliable_parent =
        first_slot.step.handle == NULL || first_slot.step.id != current.step.id;
    task->fd = 40 + 2 * s->op.channel + k;
    task->op = op;
    task->length = bytes / (size_t)ntasks;
    task->data_done = &s->sock_done[step % EMU_NCCL_STEPS];
    task->late_update = emu_rng_chance(&p->thr.rng, 0.5 * chaos(p));
    h->tail++;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->mu);
  }
}

static void net_post(emu_proxy *p, emu_sub *s, int step, uint64_t bytes,
                     bool send) {
  if (p->worker->opts->net == EMU_NET_SOCKET) {
    sock_dispatch(p, s, step, bytes, send ? 0 : 1);
    return;
  }
  int r = alloc_ib_request(p);
  s->req[step % EMU_NCCL_STEPS] = r;
  int nqps = bytes >= (1u << 20) ? 2 : 1;
  p->ib[r].nqps = nqps;
  emu_net_parent np;
  emu_core_net_parent_from_sub(&np, s, step);
  for (int q = 0; q < nqps; q++) {
    ncclProfilerNetIbDescr_v1_t ib;
    memset(&ib, 0, sizeof ib);
    ib.type = ncclProfileQp;
    ib.qp.device = p->global_rank % 8;
    ib.qp.wr_id = ((uint64_t)r << 8) | (uint64_t)q;
    ib.qp.qpNum = 0x1000 + s->op.channel * 16 + q;
    if (send) { /* recv events leave opcode/length unset */
      ib.qp.opcode = q == nqps - 1 ? 1 /* RDMA_WRITE_WITH_IMM */ : 0;
      ib.qp.length = bytes / (size_t)nqps;
    }
    emu_core_net_callback(&p->thr, &p->ib[r].qp_event[q],
                          ncclProfilerNetEventStart, &np,
                          (int64_t)(NCCL_PROFILER_NET_TYPE_IB | 1), &ib, NULL);
  }
}

/* Socket: waits (deterministically) until the helpers moved the data. */
static void net_wait_data(emu_proxy *p, emu_sub *s, int step) {
  if (p->worker->opts->net != EMU_NET_SOCKET)
    return;
  int slot = step % EMU_NCCL_STEPS;
  uint64_t spins = 0;
  while (EMU_LOAD_ACQUIRE(&s->sock_done[slot]) < s->sock_expected[slot] &&
         !aborting(p)) {
    if (++spins > 16)
      emu_sleep_ns(5000);
  }
}

static void net_complete(emu_proxy *p, emu_sub *s, int step) {
  if (p->worker->opts->net == EMU_NET_SOCKET)
    return;
  int r = s->req[step % EMU_NCCL_STEPS];
  if (r < 0)
    return;
  emu_net_parent np;
  emu_core_net_parent_from_sub(&np, s, step);
  for (int q = 0; q < p->ib[r].nqps; q++) {
    emu_core_net_callback(&p->thr, &p->ib[r].qp_event[q],
                          ncclProfilerNetEventStop, &np, 0, NULL, NULL);
    /* an external net plugin sending an update after the stop (§10.7) */
    if (emu_rng_chance(&p->thr.rng, 0.1 * chaos(p)))
      emu_core_net_callback(&p->thr, &p->ib[r].qp_event[q],
                            ncclProfilerNetEventUpdate, &np, 0, NULL,
                            "net_late_update");
  }
  p->ib[r].used = false; /* recycled; qp_event[] keeps its handles */
  s->req[step % EMU_NCCL_STEPS] = -1;
}

/* ---------- progress of one work ---------- */
typedef struct kernel_batch {
  int batch;
  uint64_t gstart, gstop;
  bool stopped;
  /* --slow-rank (stretch_batch): when this GPU's own work ended (realtime),
   * when the batch stops (realtime, and on the virtual clock) */
  bool stretched;
  uint64_t computed_rt, stop_rt, stop_at;
} kernel_batch;

typedef struct progress_ctx {
  emu_proxy *p;
  emu_proxy_work *w;
  emu_sub *subs[EMU_MAX_OPS_PER_WORK];
  int n;
  uint64_t now;   /* virtual ns since the work started */
  uint64_t real0; /* CLOCK_MONOTONIC of virtual 0 (paced runs), else 0 */
  bool peers_ready;
  uint64_t peers_ready_at;
  /* Realtime of the last rank's launch (0 = unknown): where a kernel
   * without network work starts its modelled duration. */
  uint64_t ready_rt;
  /* Realtime when every peer had launched, as this rank's GPU saw it: the
   * end of a kernel's initial_sync phase (2.31 KernelPhase, §12). */
  uint64_t synced_rt;
  int group_size[MAX_ARGS_GROUPS];
  int group_finished[MAX_ARGS_GROUPS];
  kernel_batch batches[EMU_MAX_OPS_PER_WORK];
  int nbatches;
  int nkernels, kernels_started;
  /* --slow-rank: how many times its normal time this work's kernel takes
   * (emu_model_gpu_stretch), and whether this GPU is the slow one */
  double stretch;
  bool slow_self;
  bool kernels_dirty; /* a net sub finished or time moved: re-check stops */
  bool kernel_started[EMU_MAX_OPS_PER_WORK];
  bool kernel_stopped[EMU_MAX_OPS_PER_WORK];
  /* flow plan (emu_flow.h): each channel's entry and its network subs */
  emu_flow_channel *flow_of_channel[EMU_MAX_CHANNELS];
  emu_sub *flow_send[EMU_MAX_CHANNELS], *flow_recv[EMU_MAX_CHANNELS];
  bool flow_has_net;
  /* PXN: the sends this proxy runs for a node-mate (its origin), one per
   * channel at most, each with the origin's view of its channel */
  emu_flow_channel pxn_flow[EMU_MAX_CHANNELS];
} progress_ctx;

/* The modelled time of one step of `s` (sends go rank -> peer, receives
 * peer -> rank: a slow link slows both ends of its transfers). */
static uint64_t net_ns(const progress_ctx *c, const emu_sub *s,
                       uint64_t bytes) {
  bool send = s->op.kind == EMU_OP_NET_SEND;
  return emu_model_net_step_ns(c->p->worker->opts, bytes, 2,
                               send ? s->op.rank : s->op.peer,
                               send ? s->op.peer : s->op.rank);
}

static void finish_sub(progress_ctx *c, emu_sub *s) {
  if (s->finished)
    return;
  s->finished = true;
  c->kernels_dirty = true;
  int g = s->op.args_group % MAX_ARGS_GROUPS;
  if (++c->group_finished[g] < c->group_size[g])
    return;
  /* The last sub of the args is done: every sub's ProxyOp stops now. */
  for (int i = 0; i < c->n; i++) {
    emu_sub *o = c->subs[i];
    if ((o->op.kind == EMU_OP_NET_SEND || o->op.kind == EMU_OP_NET_RECV) &&
        o->op.args_group % MAX_ARGS_GROUPS == g)
      emu_core_proxy_op_stop(&c->p->thr, o, NULL);
  }
}

/* When a transfer starts: now, or, when this thread runs behind the modelled
 * time (it woke up late), the real moment, so that the plugin sees every
 * transfer take the modelled time from its SendWait. */
static uint64_t posted_at(const progress_ctx *c) {
  if (!c->real0)
    return c->now;
  uint64_t real = emu_now_ns() - c->real0;
  return real > c->now ? real : c->now;
}

/* The first pass over a sub records its ProxyOp as in progress, once. */
static bool record_in_progress(emu_thread *t, emu_sub *s) {
  if (s->in_progress_recorded)
    return false;
  emu_core_proxy_op_record(t, s, ncclProfilerProxyOpInProgress_v4);
  s->in_progress_recorded = true;
  return true;
}

/* A send step handed to the network (SendWait), to complete at done_ns. */
static void hand_to_network(progress_ctx *c, emu_sub *s) {
  int step = s->transmitted;
  uint64_t bytes = step_bytes(s, step);
  s->trans_size = bytes;
  emu_core_proxy_step_record(&c->p->thr, s, step,
                             ncclProfilerProxyStepSendWait);
  net_post(c->p, s, step, bytes, true);
  s->done_ns[step % EMU_NCCL_STEPS] = posted_at(c) + net_ns(c, s, bytes);
  s->transmitted++;
}

/* The network completed the oldest send step in flight: it stops. */
static void complete_send(progress_ctx *c, emu_sub *s) {
  int step = s->done;
  net_wait_data(c->p, s, step);
  net_complete(c->p, s, step);
  emu_core_proxy_step_stop(&c->p->thr, s, step);
  s->done++;
}

/* The data of the oldest posted receive step arrived: now the GPU's turn
 * (RecvFlushWait, RecvGPUWait). */
static void receive_arrived(progress_ctx *c, emu_sub *s) {
  emu_thread *t = &c->p->thr;
  int step = s->transmitted;
  net_wait_data(c->p, s, step);
  net_complete(c->p, s, step);
  s->trans_size = step_bytes(s, step);
  emu_core_proxy_step_record(t, s, step, ncclProfilerProxyStepRecvFlushWait);
  emu_core_proxy_step_record(t, s, step, ncclProfilerProxyStepRecvGPUWait);
  s->transmitted++;
}

static bool advance_send(progress_ctx *c, emu_sub *s) {
  emu_thread *t = &c->p->thr;
  bool did = record_in_progress(t, s);
  if (s->posted < s->nsteps && s->posted < s->done + s->depth) {
    int step = s->posted;
    emu_core_proxy_step_start(t, s, step, NULL);
    emu_core_proxy_step_record(t, s, step, ncclProfilerProxyStepSendGPUWait);
    s->ready_ns[step % EMU_NCCL_STEPS] =
        c->now + net_ns(c, s, step_bytes(s, step)) / 2;
    s->posted++;
    did = true;
  }
  if (c->peers_ready && s->transmitted < s->posted &&
      c->now >= s->ready_ns[s->transmitted % EMU_NCCL_STEPS]) {
    int step = s->transmitted;
    s->peer_waits++;
    emu_core_proxy_step_record(t, s, step,
                               ncclProfilerProxyStepSendPeerWait_v4);
    if (s->peer_waits >= s->want_peer_waits) {
      hand_to_network(c, s);
      s->peer_waits = 0;
      s->want_peer_waits =
          1 + (emu_rng_chance(&t->rng, 0.05 + 0.4 * chaos(c->p)) ? 1 : 0);
    }
    did = true;
  }
  if (s->done < s->transmitted &&
      c->now >= s->done_ns[s->done % EMU_NCCL_STEPS]) {
    complete_send(c, s);
    did = true;
  }
  if (s->done == s->nsteps)
    finish_sub(c, s);
  return did;
}

static bool advance_recv(progress_ctx *c, emu_sub *s) {
  emu_thread *t = &c->p->thr;
  bool did = record_in_progress(t, s);
  if (s->posted < s->nsteps && s->posted < s->done + s->depth) {
    int step = s->posted;
    emu_core_proxy_step_start(t, s, step,
                              s->restarts > 0 ? "restarted_recv_step" : NULL);
    /* irecv returned no request: the same step is started again on the
     * next iteration and this handle is abandoned (§6.9, §10.4). */
    if (s->restarts < 3 && emu_rng_chance(&t->rng, 0.02 + 0.3 * chaos(c->p))) {
      s->restarts++;
      return true;
    }
    uint64_t bytes = step_bytes(s, step);
    net_post(c->p, s, step, bytes, false);
    emu_core_proxy_step_record(t, s, step, ncclProfilerProxyStepRecvWait);
    uint64_t prev = step > 0 ? s->ready_ns[(step - 1) % EMU_NCCL_STEPS] : 0;
    uint64_t base = prev > c->now ? prev : c->now;
    s->ready_ns[step % EMU_NCCL_STEPS] = base + net_ns(c, s, bytes);
    s->posted++;
    s->restarts = 0;
    did = true;
  }
  if (c->peers_ready && s->transmitted < s->posted &&
      c->now >= s->ready_ns[s->transmitted % EMU_NCCL_STEPS]) {
    s->done_ns[s->transmitted % EMU_NCCL_STEPS] = c->now + 1000;
    receive_arrived(c, s);
    did = true;
  }
  if (s->done < s->transmitted &&
      c->now >= s->done_ns[s->done % EMU_NCCL_STEPS]) {
    emu_core_proxy_step_stop(t, s, s->done);
    s->done++;
    did = true;
  }
  if (s->done == s->nsteps)
    finish_sub(c, s);
  return did;
}

static kernel_batch *find_batch(progress_ctx *c, int batch) {
  for (int i = 0; i < c->nbatches; i++)
    if (c->batches[i].batch == batch)
      return &c->batches[i];
  kernel_batch *b = &c->batches[c->nbatches++];
  b->batch = batch;
  b->gstart = b->gstop = 0;
  b->stopped = false;
  b->stretched = false;
  b->computed_rt = b->stop_rt = b->stop_at = 0;
  return b;
}

static bool carrier_has_net(const progress_ctx *c, const emu_sub *k) {
  for (int i = 0; i < c->n; i++) {
    const emu_sub *s = c->subs[i];
    if ((s->op.kind == EMU_OP_NET_SEND || s->op.kind == EMU_OP_NET_RECV) &&
        s->op.task_id == k->op.task_id && s->op.channel == k->op.channel)
      return true;
  }
  return false;
}

/* A carrier's channel is done when every net sub of the same task and
 * channel finished (or, without network, the modelled kernel time). */
static bool carrier_done(const progress_ctx *c, const emu_sub *k) {
  if (!c->peers_ready)
    return false;
  if (c->w->flow) { /* the GPU's ring program must have run to its end */
    const emu_flow_channel *f = k->op.channel < EMU_MAX_CHANNELS
                                    ? c->flow_of_channel[k->op.channel]
                                    : NULL;
    if (f != NULL && !emu_flow_gpu_done(f))
      return false;
  }
  bool any_net = false;
  for (int i = 0; i < c->n; i++) {
    const emu_sub *s = c->subs[i];
    if ((s->op.kind == EMU_OP_NET_SEND || s->op.kind == EMU_OP_NET_RECV) &&
        s->op.task_id == k->op.task_id && s->op.channel == k->op.channel) {
      any_net = true;
      if (!s->finished)
        return false;
    }
  }
  if (any_net || c->w->flow)
    return true;
  return c->now >= c->peers_ready_at + c->w->kernel_ns;
}

/* --slow-rank: the GPU's own work in the plan (w->gpu_work_ns) takes
 * c->stretch times as long, so the batch that would have ended at
 * `done_rt` ends that much later. On the slow GPU that is its own work (a
 * long compute phase); its peers are done at `done_rt` and wait for its
 * data until the same stop (a long final_sync). Each GPU stretches by the
 * same modelled work: the members of a collective do the same. The stop
 * is counted from the later of the virtual and the real time, so that
 * its stamp is never in the future when the thread wakes for it. */
static void stretch_batch(progress_ctx *c, kernel_batch *b, uint64_t done_rt) {
  uint64_t extra = (uint64_t)((double)c->w->gpu_work_ns * (c->stretch - 1.0));
  b->stretched = true;
  b->computed_rt = c->slow_self ? done_rt + extra : done_rt;
  b->stop_rt = done_rt + extra;
  b->stop_at = posted_at(c) + extra;
}

static bool advance_kernels(progress_ctx *c) {
  emu_proxy *p = c->p;
  const emu_gpu_clock *clock = &p->worker->clocks[p->local_slot];
  bool did = false;
  if (c->nkernels == 0)
    return false;
  for (int i = 0; i < c->n && c->kernels_started < c->nkernels; i++) {
    emu_sub *k = c->subs[i];
    if (k->op.kind != EMU_OP_KERNEL || c->kernel_started[i])
      continue;
    kernel_batch *b = find_batch(c, k->op.batch);
    if (b->gstart == 0)
      b->gstart =
          emu_gpu_clock_at(clock, c->w->launch_rt + emu_model_launch_ns());
    uint64_t ptimer = b->gstart;
    const char *anomaly = NULL;
    if (emu_rng_chance(&p->thr.rng, p->worker->opts->ring_anomaly_rate)) {
      /* The ring slot was overwritten by a later work (§6.11). */
      ptimer = b->gstart + 50000 + emu_rng_below(&p->thr.rng, 200000);
      anomaly = "ring_overwrite";
    }
    if (k->op.on_profthread) /* 2.31: the GPU stamps, the profiler thread
                                emits (§12) */
      emu_profthread_device_start(p->profthread, k->op.prof_slot,
                                  k->op.prof_gen, b->gstart, ptimer, anomaly);
    else
      emu_core_kernel_ch_start(&p->thr, k, ptimer, anomaly);
    c->kernel_started[i] = true;
    c->kernels_started++;
    did = true;
  }
  if (!c->kernels_dirty)
    return did;
  c->kernels_dirty = false;
  /* Stop whole batches: all carriers of a batch share the stop stamp. */
  for (int bi = 0; bi < c->nbatches; bi++) {
    kernel_batch *b = &c->batches[bi];
    if (b->stopped)
      continue;
    bool all = true;
    for (int i = 0; i < c->n && all; i++) {
      emu_sub *k = c->subs[i];
      if (k->op.kind == EMU_OP_KERNEL && k->op.batch == b->batch &&
          !carrier_done(c, k))
        all = false;
    }
    if (!all)
      continue;
    /* A GPU stamps when it finishes, not when the proxy notices: a batch
     * of pure-GPU work ends its modelled time after the last launch. */
    bool gpu_only = c->ready_rt != 0;
    for (int i = 0; i < c->n && gpu_only; i++)
      if (c->subs[i]->op.kind == EMU_OP_KERNEL &&
          c->subs[i]->op.batch == b->batch && carrier_has_net(c, c->subs[i]))
        gpu_only = false;
    uint64_t done_rt =
        gpu_only ? c->ready_rt + c->w->kernel_ns : emu_realtime_ns();
    uint64_t computed_rt = done_rt;
    if (c->stretch > 1.0) {
      if (!b->stretched)
        stretch_batch(c, b, done_rt);
      if (c->now < b->stop_at)
        continue; /* next_time wakes this thread at b->stop_at */
      uint64_t real = emu_realtime_ns(); /* a GPU stamps no future */
      done_rt = b->stop_rt < real ? b->stop_rt : real;
      computed_rt = b->computed_rt < done_rt ? b->computed_rt : done_rt;
    }
    uint64_t g = emu_gpu_clock_at(clock, done_rt);
    uint64_t min_stop = b->gstart + clock->quantum_ns;
    b->gstop = g > min_stop ? g : min_stop;
    uint64_t computed = emu_gpu_clock_at(clock, computed_rt);
    emu_kernel_stamps stamps;
    emu_kernel_phases_waiting(
        &stamps, b->gstart, emu_gpu_clock_at(clock, c->synced_rt),
        computed < b->gstop ? computed : b->gstop, b->gstop, clock->quantum_ns);
    drop_phase_stamps(p, &stamps);
    for (int i = 0; i < c->n; i++) {
      emu_sub *k = c->subs[i];
      if (k->op.kind == EMU_OP_KERNEL && k->op.batch == b->batch &&
          !c->kernel_stopped[i]) {
        if (k->op.on_profthread)
          emu_profthread_device_stop(p->profthread, k->op.prof_slot,
                                     k->op.prof_gen, &stamps);
        else
          emu_core_kernel_ch_stop(&p->thr, k, b->gstop);
        c->kernel_stopped[i] = true;
        k->finished = true;
      }
    }
    b->stopped = true;
    did = true;
  }
  return did;
}

static uint64_t next_time(const progress_ctx *c) {
  uint64_t next = UINT64_MAX;
  for (int i = 0; i < c->nbatches; i++) { /* stretched batches (--slow-rank) */
    const kernel_batch *b = &c->batches[i];
    if (b->stretched && !b->stopped && b->stop_at > c->now && b->stop_at < next)
      next = b->stop_at;
  }
  for (int i = 0; i < c->n; i++) {
    const emu_sub *s = c->subs[i];
    if (s->finished)
      continue;
    if (s->op.kind == EMU_OP_NET_SEND || s->op.kind == EMU_OP_NET_RECV) {
      if (s->transmitted < s->posted) {
        uint64_t t = s->ready_ns[s->transmitted % EMU_NCCL_STEPS];
        if (t < next)
          next = t;
      }
      if (s->done < s->transmitted) {
        uint64_t t = s->done_ns[s->done % EMU_NCCL_STEPS];
        if (t < next)
          next = t;
      }
    } else if (s->op.kind == EMU_OP_KERNEL && c->peers_ready &&
               !carrier_has_net(c, s)) {
      /* only carriers without network ops finish on a modelled time */
      uint64_t t = c->peers_ready_at + c->w->kernel_ns;
      if (t > c->now && t < next)
        next = t;
    }
  }
  return next;
}

static bool all_finished(const progress_ctx *c) {
  for (int i = 0; i < c->n; i++)
    if (!c->subs[i]->finished)
      return false;
  return true;
}

static void stall_forever(progress_ctx *c) {
  emu_worker *w = c->p->worker;
  emu_mark_stalled(w->shared, c->w->comm, c->w->plan_seq);
  while (!emu_worker_aborting(w) &&
         (w->deadline_ns == 0 || emu_now_ns() < w->deadline_ns))
    emu_sleep_ns(1000000);
  emu_worker_abort(w);
}

static void run_progress(progress_ctx *c) {
  emu_proxy *p = c->p;
  emu_worker *wk = p->worker;
  bool pace = wk->opts->pace == EMU_PACE_MODEL;
  /* Modelled time starts at the launch, as a GPU's would, not when this
   * thread noticed the work (its wake-up would add to every duration). */
  uint64_t real0 = emu_now_ns();
  if (pace && c->w->launch_mono && c->w->launch_mono < real0)
    real0 = c->w->launch_mono;
  c->peers_ready = !c->w->barrier;
  c->ready_rt = 0;
  c->synced_rt = c->w->launch_rt + emu_model_launch_ns();
  c->real0 = pace ? real0 : 0;
  c->peers_ready_at = 0;
  for (int iter = 0;; iter++) {
    if (aborting(p))
      return;
    bool did = advance_kernels(c);
    for (int i = 0; i < c->n; i++) {
      emu_sub *s = c->subs[i];
      if (s->finished)
        continue;
      if (s->op.kind == EMU_OP_NET_SEND)
        did |= advance_send(c, s);
      else if (s->op.kind == EMU_OP_NET_RECV)
        did |= advance_recv(c, s);
    }
    did |= advance_kernels(c);
    if (all_finished(c))
      return;
    if (c->w->hang && iter == 2) {
      stall_forever(c);
      return;
    }
    if (!c->peers_ready) {
      uint64_t deadline = wk->deadline_ns;
      uint64_t last_arrival = 0;
      if (!emu_wait_all_arrived(wk->shared, c->w->comm, c->w->plan_seq,
                                deadline, &last_arrival)) {
        emu_worker_abort(wk);
        return;
      }
      c->ready_rt = 0;
      if (pace && c->w->launch_mono && last_arrival)
        c->ready_rt = c->w->launch_rt + (last_arrival > c->w->launch_mono
                                             ? last_arrival - c->w->launch_mono
                                             : 0);
      c->peers_ready = true;
      c->synced_rt = c->ready_rt != 0 ? c->ready_rt : emu_realtime_ns();
      c->kernels_dirty = true;
      uint64_t elapsed = emu_now_ns() - real0;
      if (pace && elapsed > c->now)
        c->now = elapsed;
      c->peers_ready_at = c->now;
      continue;
    }
    if (!did) {
      uint64_t next = next_time(c);
      if (next == UINT64_MAX || next <= c->now)
        next = c->now + 1000;
      c->now = next;
      c->kernels_dirty = true;
      if (pace)
        emu_sleep_until_ns(real0 + c->now);
    }
  }
}

/* ---------- the flow plan: ranks wait on each other's data ---------- */
/* The hang scenario's hung AllReduce (emu_flow.h). The proxy moves a step
 * only when the other end allows it: a send leaves SendGPUWait when this
 * rank's GPU produced it, SendPeerWait when the receiver's proxy posted a
 * buffer for it, SendWait when the network completed it (the modelled
 * time); a receive leaves RecvWait once the sender handed that step to the
 * network (RDMA needs no help from the sender's proxy after that) and ends
 * when this rank's GPU took it. */
static emu_flow_link *flow_link(const progress_ctx *c, int rank, int ch) {
  return emu_flow_link_of(c->p->worker->shared, rank, ch);
}

/* Whether `s` is a PXN send this proxy runs for a node-mate (§6.14). */
static bool is_pxn_sub(const progress_ctx *c, const emu_sub *s) {
  return s->op.rank != c->w->comm->rank;
}

/* The flow entry of a sub's channel (NULL: none); a PXN send's is its
 * origin's. */
static const emu_flow_channel *flow_of(const progress_ctx *c,
                                       const emu_sub *s) {
  if (s->op.channel >= EMU_MAX_CHANNELS)
    return NULL;
  if (is_pxn_sub(c, s))
    return &c->pxn_flow[s->op.channel];
  return c->flow_of_channel[s->op.channel];
}

static bool advance_send_flow(progress_ctx *c, emu_sub *s,
                              const emu_flow_channel *f) {
  emu_thread *t = &c->p->thr;
  bool did = record_in_progress(t, s);
  if (s->posted < s->nsteps && s->posted < s->done + s->depth) {
    emu_core_proxy_step_start(t, s, s->posted, NULL);
    emu_core_proxy_step_record(t, s, s->posted,
                               ncclProfilerProxyStepSendGPUWait);
    s->posted++;
    did = true;
  }
  /* what the sending GPU produced (with PXN a node-mate's GPU) */
  const emu_flow_link *me = flow_link(c, f->rank, f->channel);
  int produced = me != NULL ? EMU_LOAD_ACQUIRE(&me->produced) : 0;
  if (s->flow_ready < s->posted && produced > s->flow_ready) {
    emu_core_proxy_step_record(t, s, s->flow_ready,
                               ncclProfilerProxyStepSendPeerWait_v4);
    s->flow_ready++;
    did = true;
  }
  const emu_flow_link *peer = flow_link(c, f->next, f->channel);
  if (s->transmitted < s->flow_ready && peer != NULL &&
      EMU_LOAD_ACQUIRE(&peer->recv_posted) > s->transmitted) {
    hand_to_network(c, s);
    /* a stalled link: what was handed to it never arrives, never completes */
    emu_flow_link *out = flow_link(c, f->rank, f->channel);
    if (out != NULL && !f->link_out_stalled)
      EMU_STORE_RELEASE(&out->net_sent, s->transmitted);
    did = true;
  }
  if (s->done < s->transmitted && !f->link_out_stalled &&
      c->now >= s->done_ns[s->done % EMU_NCCL_STEPS]) {
    complete_send(c, s);
    emu_flow_link *out = flow_link(c, f->rank, f->channel);
    if (out != NULL) /* the sending GPU's buffer is free again */
      EMU_STORE_RELEASE(&out->send_done, s->done);
    did = true;
  }
  if (s->done == s->nsteps)
    finish_sub(c, s);
  return did;
}

static bool advance_recv_flow(progress_ctx *c, emu_sub *s,
                              const emu_flow_channel *f) {
  emu_thread *t = &c->p->thr;
  bool did = record_in_progress(t, s);
  if (s->posted < s->nsteps && s->posted < s->done + s->depth) {
    int step = s->posted;
    emu_core_proxy_step_start(t, s, step, NULL);
    net_post(c->p, s, step, step_bytes(s, step), false);
    emu_core_proxy_step_record(t, s, step, ncclProfilerProxyStepRecvWait);
    s->posted++;
    emu_flow_link *me = flow_link(c, f->rank, f->channel);
    if (me != NULL) /* a buffer offered to the sender */
      EMU_STORE_RELEASE(&me->recv_posted, s->posted);
    did = true;
  }
  const emu_flow_link *peer = flow_link(c, f->prev, f->channel);
  if (s->transmitted < s->posted && peer != NULL &&
      EMU_LOAD_ACQUIRE(&peer->net_sent) > s->transmitted) {
    receive_arrived(c, s);
    did = true;
  }
  if (s->done < s->transmitted && f->taken > s->done) {
    emu_core_proxy_step_stop(t, s, s->done);
    s->done++;
    did = true;
  }
  if (s->done == s->nsteps)
    finish_sub(c, s);
  return did;
}

/* The origin's view of a PXN send's channel: its ring successor across
 * nodes; its link stalls when the origin is the network class's hang rank
 * (its data leaves through this node-mate's NIC). */
static void prepare_pxn_flow(progress_ctx *c, const emu_sub *s) {
  const emu_options *o = c->p->worker->opts;
  emu_flow_channel *f = &c->pxn_flow[s->op.channel];
  memset(f, 0, sizeof *f);
  f->channel = s->op.channel;
  f->rank = s->op.rank;
  f->prev = -1;
  f->next = s->op.peer;
  f->next_net = true;
  f->gpu_limit = -1;
  f->link_out_stalled =
      o->hang_class == EMU_HANG_NETWORK && s->op.global_rank == o->hang_rank;
}

/* Each channel's flow entry and subs; the hang rank's stall by class:
 * gpu — its GPU sends the first chunk and then stops (takes nothing);
 * network — what it sends to its ring successor across nodes never
 * arrives (inside a node when it has no such link in this plan);
 * proxy — handled by the loop (its proxy stops after its first pass, and
 * with it the PXN sends it runs for a node-mate). */
static void prepare_flow(progress_ctx *c) {
  emu_proxy_work *w = c->w;
  const emu_options *o = c->p->worker->opts;
  bool any_net_out = false;
  for (int i = 0; i < w->nflow; i++) {
    emu_flow_channel *f = &w->flow_ch[i];
    if (f->channel >= EMU_MAX_CHANNELS)
      continue;
    c->flow_of_channel[f->channel] = f;
    any_net_out |= f->next_net;
  }
  for (int i = 0; i < c->n; i++) {
    emu_sub *s = c->subs[i];
    if (s->op.channel >= EMU_MAX_CHANNELS)
      continue;
    if (s->op.kind == EMU_OP_NET_SEND && is_pxn_sub(c, s))
      prepare_pxn_flow(c, s);
    else if (s->op.kind == EMU_OP_NET_SEND)
      c->flow_send[s->op.channel] = s;
    else if (s->op.kind == EMU_OP_NET_RECV)
      c->flow_recv[s->op.channel] = s;
    else
      continue;
    c->flow_has_net = true;
  }
  if (!w->hang)
    return;
  for (int i = 0; i < w->nflow; i++) {
    emu_flow_channel *f = &w->flow_ch[i];
    if (o->hang_class == EMU_HANG_GPU)
      f->gpu_limit = f->chunk_steps;
    else if (o->hang_class == EMU_HANG_NETWORK)
      f->link_out_stalled = f->next_net || !any_net_out;
  }
}

/* Whether this rank's GPU ran the ring program of every channel to its end
 * (a plan without profiled events has nothing else to wait for). */
static bool flow_gpus_done(const progress_ctx *c) {
  for (int i = 0; i < c->w->nflow; i++)
    if (!emu_flow_gpu_done(&c->w->flow_ch[i]))
      return false;
  return true;
}

/* The next modelled moment a send completes (UINT64_MAX: none pending). */
static uint64_t next_flow_time(const progress_ctx *c) {
  uint64_t next = UINT64_MAX;
  for (int i = 0; i < c->n; i++) {
    const emu_sub *s = c->subs[i];
    if (s->finished || s->op.kind != EMU_OP_NET_SEND ||
        s->done >= s->transmitted)
      continue;
    const emu_flow_channel *f = flow_of(c, s);
    if (f != NULL && f->link_out_stalled)
      continue;
    uint64_t t = s->done_ns[s->done % EMU_NCCL_STEPS];
    if (t < next)
      next = t;
  }
  return next;
}

static void run_flow_progress(progress_ctx *c) {
  emu_proxy *p = c->p;
  emu_worker *wk = p->worker;
  bool pace = wk->opts->pace == EMU_PACE_MODEL;
  uint64_t real0 = emu_now_ns();
  if (pace && c->w->launch_mono && c->w->launch_mono < real0)
    real0 = c->w->launch_mono;
  c->peers_ready = true; /* the data dependencies replace the barrier */
  c->ready_rt = 0;
  c->synced_rt = c->w->launch_rt + emu_model_launch_ns();
  c->real0 = pace ? real0 : 0;
  prepare_flow(c);
  bool proxy_stopped = false;
  int idle = 0;
  for (;;) {
    if (aborting(p))
      return;
    if (wk->deadline_ns != 0 && emu_now_ns() >= wk->deadline_ns) {
      emu_worker_abort(wk);
      return;
    }
    bool did = false;
    /* the GPU runs whatever its proxy does */
    for (int i = 0; i < c->w->nflow; i++) {
      emu_flow_channel *f = &c->w->flow_ch[i];
      const emu_sub *recv = c->flow_recv[f->channel];
      const emu_flow_link *out = flow_link(c, f->rank, f->channel);
      emu_flow_local local = {recv != NULL ? recv->transmitted : 0,
                              out != NULL ? EMU_LOAD_ACQUIRE(&out->send_done)
                                          : 0};
      did |= emu_flow_gpu_advance(f, wk->shared, &local);
    }
    if (!proxy_stopped) {
      c->kernels_dirty = true;
      did |= advance_kernels(c);
      for (int i = 0; i < c->n; i++) {
        emu_sub *s = c->subs[i];
        const emu_flow_channel *f = flow_of(c, s);
        if (s->finished || f == NULL)
          continue;
        if (s->op.kind == EMU_OP_NET_SEND)
          did |= advance_send_flow(c, s, f);
        else if (s->op.kind == EMU_OP_NET_RECV)
          did |= advance_recv_flow(c, s, f);
      }
      did |= advance_kernels(c);
      if (all_finished(c) && flow_gpus_done(c))
        return;
      /* --hang-class proxy: the thread stops after its first pass; its
       * last ProxyCtrl state stays Active (no Idle, no Sleep follows). A
       * rank without network transfers in this plan needs no proxy for
       * it (nothing would wait): its proxy stops in no plan. */
      if (c->w->hang && wk->opts->hang_class == EMU_HANG_PROXY &&
          c->flow_has_net)
        proxy_stopped = true;
    }
    if (did) {
      idle = 0;
      continue;
    }
    uint64_t next = next_flow_time(c);
    if (next != UINT64_MAX) {
      c->now = next > c->now ? next : c->now + 1000;
      if (pace)
        emu_sleep_until_ns(real0 + c->now);
      continue;
    }
    /* waiting on another rank: follow the real clock */
    emu_sleep_ns(++idle < 64 ? 20000 : 500000);
    uint64_t elapsed = emu_now_ns() - real0;
    c->now = pace && elapsed > c->now ? elapsed : c->now + 1000;
  }
}

/* Copies the PXN ops another rank posted for this plan (§6.14). */
static void merge_pxn(emu_proxy *p, emu_proxy_work *w) {
  emu_worker *wk = p->worker;
  if (!emu_pxn_receive(p->global_rank, w->pxn_origin_grank, p->pxn_rec,
                       &wk->shared->abort_flag, wk->deadline_ns))
    return;
  bool guard = wk->opts->pxn_pointers == EMU_PXN_GUARD && wk->opts->check;
  pid_t self = getpid();
  for (int i = 0; i < p->pxn_rec->nops && w->nops < EMU_MAX_OPS_PER_WORK; i++) {
    emu_proxy_op op = p->pxn_rec->ops[i];
    op.foreign = op.pid != self;
    op.origin_context = op.context;
    op.origin_task_handle = op.task_handle;
    if (op.foreign) {
      op.context = emu_foreign_pointer(op.context, guard);
      op.task_handle = emu_foreign_pointer(op.task_handle, guard);
    }
    op.args_group += MAX_ARGS_GROUPS / 2;
    w->ops[w->nops++] = op;
  }
}

static void process_work(emu_proxy *p, emu_proxy_work *w, const char *quirk) {
  emu_thread *t = &p->thr;
  if (w->pxn_origin_grank >= 0)
    merge_pxn(p, w);
  _Static_assert(EMU_MAX_OPS_PER_WORK <= EMU_SUB_POOL, "sub pool too small");
  progress_ctx *c = p->progress; /* allocated once: no malloc per work */
  memset(c, 0, sizeof *c);
  c->p = p;
  c->w = w;
  c->n = w->nops;
  c->stretch = 1.0;
  if (w->comm != NULL) {
    const emu_options *o = p->worker->opts;
    c->stretch =
        emu_model_gpu_stretch(o, w->comm->spec->members, w->comm->spec->nranks);
    c->slow_self = w->comm->global_rank == o->slow_rank;
  }
  for (int i = 0; i < c->n; i++) {
    c->subs[i] = alloc_sub(p);
    prepare_sub(p, c->subs[i], &w->ops[i]);
    emu_sub *s = c->subs[i];
    if (s->op.kind == EMU_OP_NET_SEND || s->op.kind == EMU_OP_NET_RECV)
      c->group_size[s->op.args_group % MAX_ARGS_GROUPS]++;
    if (s->op.kind == EMU_OP_STUCK)
      s->finished = true; /* no progress function with profiler calls */
    if (s->op.kind == EMU_OP_KERNEL)
      c->nkernels++;
  }
  /* Append windows: ProxyOps start when appended (§6.10, §10.17). From
   * 2.31 KernelCh carriers are not proxy ops (§12): they are left out, and
   * a plan with nothing else shows no proxy activity. */
  static _Thread_local emu_sub *appended[EMU_MAX_OPS_PER_WORK];
  int nappended = 0;
  for (int i = 0; i < c->n; i++)
    if (!c->subs[i]->op.on_profthread)
      appended[nappended++] = c->subs[i];
  for (int base = 0; base < nappended; base += APPEND_BATCH) {
    int count =
        nappended - base < APPEND_BATCH ? nappended - base : APPEND_BATCH;
    emu_slot pc = {NULL, 0, false};
    emu_core_proxy_ctrl_start(t, p->ctrl_context, &pc, quirk);
    emu_core_proxy_ctrl_record(t, &pc, 0, ncclProfilerProxyCtrlAppend);
    for (int i = base; i < base + count; i++) {
      emu_sub *s = appended[i];
      if (s->op.kind != EMU_OP_KERNEL)
        emu_core_proxy_op_start(t, s,
                                s->op.slice_steps ? s->op.slice_steps : 1);
    }
    emu_core_proxy_ctrl_record(t, &pc, count, ncclProfilerProxyCtrlAppendEnd);
    emu_core_proxy_ctrl_stop(t, &pc);
  }
  bool proxy_visible = nappended > 0 || c->n == 0;
  if (proxy_visible) {
    emu_slot active = {NULL, 0, false};
    emu_core_proxy_ctrl_start(t, p->ctrl_context, &active, quirk);
    emu_core_proxy_ctrl_record(t, &active, 0, ncclProfilerProxyCtrlActive);
    emu_core_proxy_ctrl_stop(t, &active);
  }

  if (w->flow)
    run_flow_progress(c);
  else
    run_progress(c);

  /* Helpers must have finished their NetPlugin stops before the subs they
   * point into are recycled. */
  uint64_t spins = 0;
  while (EMU_LOAD_ACQUIRE(&p->sock_finished) < p->sock_posted && !aborting(p)) {
    if (++spins > 16)
      emu_sleep_ns(10000);
  }
  if (!aborting(p) && proxy_visible) {
    emu_slot idle = {NULL, 0, false};
    emu_core_proxy_ctrl_start(t, p->ctrl_context, &idle, quirk);
    emu_core_proxy_ctrl_record(t, &idle, 0, ncclProfilerProxyCtrlIdle);
    emu_core_proxy_ctrl_stop(t, &idle);
  }
  for (int i = 0; i < c->n; i++)
    free_sub(p, c->subs[i]);
}

/* ---------- threads ---------- */
static void *sock_helper_main(void *arg) {
  emu_sock_helper *h = arg;
  emu_thread_attach(&h->thr);
  for (;;) {
    pthread_mutex_lock(&h->mu);
    while (h->head == h->tail && !h->stop)
      pthread_cond_wait(&h->cv, &h->mu);
    if (h->head == h->tail && h->stop) {
      pthread_mutex_unlock(&h->mu);
      break;
    }
    emu_sock_task task = h->ring[h->head % EMU_SOCK_RING];
    h->head++;
    pthread_mutex_unlock(&h->mu);
    emu_slot *slot = &h->slots[h->next_slot++ % 16];
    ncclProfilerNetSockDescr_v1_t sd;
    memset(&sd, 0, sizeof sd);
    sd.type = ncclProfileSocket;
    sd.sock.fd = task.fd;
    sd.sock.op = task.op;
    sd.sock.length = task.length;
    emu_core_net_callback(
        &h->thr, slot, ncclProfilerNetEventStart, &task.parent,
        (int64_t)(NCCL_PROFILER_NET_TYPE_SOCK | 1), &sd,
        task.unreliable_parent ? "socket_unreliable_parent" : NULL);
    __atomic_add_fetch(task.data_done, 1, __ATOMIC_RELEASE);
    emu_core_net_callback(&h->thr, slot, ncclProfilerNetEventStop, &task.parent,
                          0, NULL, NULL);
    if (task.late_update) /* an external net plugin updating too late */
      emu_core_net_callback(&h->thr, slot, ncclProfilerNetEventUpdate,
                            &task.parent, 0, &sd, "net_late_update");
    __atomic_add_fetch(&h->proxy->sock_finished, 1, __ATOMIC_RELEASE);
  }
  emu_thread_detach(&h->thr);
  return NULL;
}

static void start_sock_helpers(emu_proxy *p) {
  const emu_layout *l = p->worker->layout;
  p->nhelpers = EMU_SOCK_HELPERS;
  for (int i = 0; i < p->nhelpers; i++) {
    emu_sock_helper *h = calloc(1, sizeof *h);
    if (h == NULL)
      emu_die("out of memory");
    h->proxy = p;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    char name[40];
    snprintf(name, sizeof name, "w%d/sock.r%d.c%d.%d", p->worker->index,
             p->global_rank, p->owner->index, i);
    emu_thread_init(&h->thr, p->worker->index,
                    EMU_STREAM_SOCK(p->local_slot, p->owner->index, i),
                    EMU_ROLE_SOCK, name, p->worker->opts->seed);
    char os_name[48];
    snprintf(os_name, sizeof os_name, "NCCL Sock%c%2d%2d", i ? 'R' : 'S',
             emu_local_of(l, p->global_rank), i);
    p->helpers[i] = h;
    emu_thread_spawn(&h->th, os_name, sock_helper_main, h);
  }
}

static void *proxy_main(void *arg) {
  emu_proxy *p = arg;
  emu_thread *t = &p->thr;
  emu_thread_attach(t);
  bool first = true;
  /* Whether the owner comm was finalized, as seen when the last work was
   * taken (the app finalizes before posting later work, so this is exact
   * for process_work and reproducible for the next Sleep). */
  const char *quirk = NULL;
  for (;;) {
    /* Sleeping or not is decided by the rng (not by timing) so that the
     * sequence on this thread is reproducible (§6.10 Sleep pattern). */
    bool sleep_pattern = first || emu_rng_chance(&t->rng, 0.3);
    first = false;
    emu_slot pc = {NULL, 0, false};
    if (sleep_pattern) {
      emu_core_proxy_ctrl_start(t, p->ctrl_context, &pc, quirk);
      emu_core_proxy_ctrl_record(t, &pc, 0, ncclProfilerProxyCtrlSleep);
    }
    emu_proxy_work *w = take_work(p);
    quirk = owner_is_finalized(p) ? "finalized_context" : NULL;
    if (sleep_pattern) {
      emu_core_proxy_ctrl_record(t, &pc, 0, ncclProfilerProxyCtrlWakeup);
      emu_core_proxy_ctrl_stop(t, &pc);
    }
    if (w->shutdown) {
      finish_work(p, w);
      break;
    }
    if (!aborting(p))
      process_work(p, w, quirk);
    finish_work(p, w);
  }
  for (int i = 0; i < p->nhelpers; i++) {
    emu_sock_helper *h = p->helpers[i];
    pthread_mutex_lock(&h->mu);
    h->stop = true;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->th, NULL);
  }
  emu_thread_detach(t);
  return NULL;
}

emu_proxy *emu_proxy_create(emu_worker *w, emu_comm *owner, int local_slot) {
  emu_proxy *p = calloc(1, sizeof *p);
  if (p == NULL)
    emu_die("out of memory for a proxy");
  p->pxn_rec = calloc(1, sizeof *p->pxn_rec);
  p->progress = calloc(1, sizeof(progress_ctx));
  if (p->pxn_rec == NULL || p->progress == NULL)
    emu_die("out of memory for a proxy");
  p->worker = w;
  p->local_slot = local_slot;
  p->global_rank = owner->global_rank;
  p->refs = 1;
  p->owner = owner;
  p->ctrl_context = owner->profiler_context;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv_work, NULL);
  pthread_cond_init(&p->cv_free, NULL);
  pthread_cond_init(&p->cv_done, NULL);
  for (int i = 0; i < EMU_WORK_POOL; i++)
    p->free_list[p->nfree++] = &p->pool[i];
  for (int i = EMU_SUB_POOL - 1; i >= 0; i--)
    p->free_subs[p->nfree_subs++] = i;
  char name[40];
  snprintf(name, sizeof name, "w%d/proxy.r%d.c%d", w->index, owner->global_rank,
           owner->index);
  emu_thread_init(&p->thr, w->index, EMU_STREAM_PROXY(local_slot, owner->index),
                  EMU_ROLE_PROXY, name, w->opts->seed);
  return p;
}

void emu_proxy_start(emu_proxy *p) {
  if (p->worker->opts->net == EMU_NET_SOCKET)
    start_sock_helpers(p);
  char os_name[48];
  snprintf(os_name, sizeof os_name, "NCCL Progress%2d",
           emu_local_of(p->worker->layout, p->global_rank));
  emu_thread_spawn(&p->th, os_name, proxy_main, p);
  p->started = true;
}

void emu_proxy_join(emu_proxy *p) {
  if (!p->started)
    return;
  emu_proxy_work *w = NULL;
  pthread_mutex_lock(&p->mu);
  while (p->nfree == 0)
    timed_wait(&p->cv_free, &p->mu);
  w = p->free_list[--p->nfree];
  pthread_mutex_unlock(&p->mu);
  w->nops = 0;
  w->shutdown = true;
  emu_proxy_post(p, w);
  pthread_join(p->th, NULL);
  p->started = false;
}
