/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_profiler_thread.c — owns NCCL 2.31's per-communicator
 * "Profiler Thread" (nccl-behaviour §12): the queue of ops the host callback
 * posts (one per KernelCh carrier; it grows as NCCL's does, past the soft
 * cap too), the stamps the emulated GPU writes into them, the purge at
 * comm destroy, and the thread that polls the ops and emits, per op and in
 * posting order, KernelCh start when the start is stamped and, once the
 * end is stamped, the KernelPhase children (NCCL's fold rule for missing
 * boundaries; zero-length ones skipped; state and stop only for a handle
 * the plugin wrote) and the KernelCh stop. It also holds the 2.31 switches
 * (emu_nccl_231, emu_core_231) and the mask dependency KernelPhase ->
 * KernelCh.
 *
 * The thread polls every 1-10 us while ops are in flight, as NCCL's does
 * (until --profiler-stall stops it); with nothing posted it sleeps on a
 * condition variable instead of polling (invisible to a plugin, kinder to
 * a loaded test machine). Which poll sees a stamp depends on timing, so
 * the order of this thread's calls across ops, and which ops a destroy
 * purges, may differ between runs with the same seed (as in NCCL).
 */
#include "nccl/emu_profiler_thread.h"

#include "emu_worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SYNC_HANDSHAKE_NS 2000ULL /* the peers' flags, once all are there */
#define FINAL_SYNC_MAX_NS 5000ULL
#define POLL_MIN_NS 1000ULL
#define POLL_SPREAD_NS 9000ULL

bool emu_nccl_231(const emu_options *o) {
  return o->host == EMU_HOST_NCCL && o->nccl_version >= 23100;
}

bool emu_core_231(const emu_options *o) {
  return o->nccl_version >= 23100;
}

int emu_enforce_mask_deps(int mask) {
  if (mask & ncclProfileKernelPhase)
    mask |= ncclProfileKernelCh;
  return mask;
}

/* ---------- the phase model ---------- */
static uint64_t round_down(uint64_t v, uint64_t base, uint64_t quantum) {
  if (quantum == 0 || v <= base)
    return v;
  return v - (v - base) % quantum;
}

void emu_kernel_phases(emu_kernel_stamps *s, uint64_t start, uint64_t synced,
                       uint64_t stop, uint64_t quantum) {
  emu_kernel_phases_waiting(s, start, synced, stop, stop, quantum);
}

void emu_kernel_phases_waiting(emu_kernel_stamps *s, uint64_t start,
                               uint64_t synced, uint64_t computed,
                               uint64_t stop, uint64_t quantum) {
  if (stop < start)
    stop = start;
  if (computed > stop)
    computed = stop;
  s->start = start;
  uint64_t sync_end = (synced > start ? synced : start) + SYNC_HANDSHAKE_NS;
  sync_end = round_down(sync_end, start, quantum);
  if (sync_end > stop)
    sync_end = stop;
  if (computed < sync_end)
    computed = sync_end;
  uint64_t rest = computed - sync_end;
  uint64_t final_ns =
      rest / 8 < FINAL_SYNC_MAX_NS ? rest / 8 : FINAL_SYNC_MAX_NS;
  uint64_t compute_end = round_down(computed - final_ns, sync_end, quantum);
  s->phase_end[0] = sync_end;
  s->phase_end[1] = compute_end;
  s->phase_end[2] = stop;
}

int emu_kernel_phase_spans(const emu_kernel_stamps *s,
                           emu_phase_span out[EMU_KERNEL_PHASES]) {
  /* BEGIN, AFTER_OPEN, BEFORE_CLOSE, END */
  uint64_t ts[EMU_KERNEL_PHASES + 1] = {s->start, s->phase_end[0],
                                        s->phase_end[1], s->phase_end[2]};
  if (ts[1] == 0 && ts[2] == 0)
    return 0; /* the kernel did not instrument phases */
  if (ts[1] == 0 && ts[0] != 0)
    ts[1] = ts[0];
  if (ts[2] == 0 && ts[3] != 0)
    ts[2] = ts[3];
  int n = 0;
  for (int i = 0; i < EMU_KERNEL_PHASES; i++) {
    if (ts[i] == 0 || ts[i + 1] == 0 || ts[i] == ts[i + 1])
      continue;
    out[n].phase = i;
    out[n].from = ts[i];
    out[n].to = ts[i + 1];
    n++;
  }
  return n;
}

/* ---------- the ops' storage (under the mutex) ---------- */
static emu_prof_op *op_at(const emu_profthread *pt, int index) {
  if (index < 0 || index / EMU_PROF_CHUNK >= pt->nchunks)
    return NULL;
  return &pt->chunks[index / EMU_PROF_CHUNK][index % EMU_PROF_CHUNK];
}

/* A free op, from a new chunk when none is left (NCCL's pool grows). */
static emu_prof_op *alloc_op(emu_profthread *pt) {
  if (pt->free_ops == NULL) {
    if (pt->nchunks == pt->chunk_cap) {
      int cap = pt->chunk_cap ? pt->chunk_cap * 2 : 4;
      emu_prof_op **c = realloc(pt->chunks, (size_t)cap * sizeof *c);
      if (c == NULL)
        emu_die("out of memory for the profiler thread's ops");
      pt->chunks = c;
      pt->chunk_cap = cap;
    }
    emu_prof_op *chunk = calloc(EMU_PROF_CHUNK, sizeof *chunk);
    if (chunk == NULL)
      emu_die("out of memory for the profiler thread's ops");
    for (int i = EMU_PROF_CHUNK - 1; i >= 0; i--) {
      chunk[i].index = pt->nchunks * EMU_PROF_CHUNK + i;
      chunk[i].next = pt->free_ops;
      pt->free_ops = &chunk[i];
    }
    pt->chunks[pt->nchunks++] = chunk;
  }
  emu_prof_op *p = pt->free_ops;
  pt->free_ops = p->next;
  return p;
}

/* Takes `p`, whose predecessor is `prev` (NULL: the head), out of the
 * queue. */
static void unlink_op(emu_profthread *pt, emu_prof_op *prev, emu_prof_op *p) {
  if (prev != NULL)
    prev->next = p->next;
  else
    pt->head = p->next;
  if (pt->tail == p)
    pt->tail = prev;
}

static void free_op(emu_profthread *pt, emu_prof_op *p) {
  p->queued = false;
  p->next = pt->free_ops;
  pt->free_ops = p;
  pt->inflight--;
}

/* ---------- posting (host callback) and stamping (device model) ---------- */
void emu_profthread_post(emu_profthread *pt, const emu_comm *comm,
                         emu_proxy_op *op) {
  pthread_mutex_lock(&pt->mu);
  emu_prof_op *p = alloc_op(pt);
  p->comm = comm;
  p->gen = ++pt->next_gen;
  p->queued = true;
  p->next = NULL;
  p->gstart = 0;
  p->start_ptimer = 0;
  p->anomaly = NULL;
  p->stamped_stop = false;
  memset(&p->stamps, 0, sizeof p->stamps);
  p->started = false;
  p->done = false;
  p->kernel_event = (emu_slot){NULL, 0, false}; /* op->kernelEventHandle */
  op->on_profthread = true;
  op->prof_slot = p->index;
  op->prof_gen = p->gen;
  p->op = *op;
  if (pt->tail != NULL)
    pt->tail->next = p;
  else
    pt->head = p;
  pt->tail = p;
  /* NCCL logs past its soft cap (and keeps going) */
  if (pt->inflight >= EMU_PROF_SOFT_CAP)
    pt->over_cap++;
  pt->inflight++;
  if (pt->inflight > pt->max_inflight)
    pt->max_inflight = pt->inflight;
  pthread_cond_signal(&pt->cv_work);
  pthread_mutex_unlock(&pt->mu);
}

/* The op at `slot` if it is still the one the carrier was posted as. */
static emu_prof_op *live_op(emu_profthread *pt, int slot, uint32_t gen) {
  emu_prof_op *p = op_at(pt, slot);
  return p != NULL && p->queued && p->gen == gen ? p : NULL;
}

void emu_profthread_device_start(emu_profthread *pt, int slot, uint32_t gen,
                                 uint64_t gstart, uint64_t start_ptimer,
                                 const char *anomaly) {
  pthread_mutex_lock(&pt->mu);
  emu_prof_op *p = live_op(pt, slot, gen);
  if (p != NULL) {
    p->gstart = gstart;
    p->start_ptimer = start_ptimer;
    p->anomaly = anomaly;
  }
  pthread_mutex_unlock(&pt->mu);
}

void emu_profthread_device_stop(emu_profthread *pt, int slot, uint32_t gen,
                                const emu_kernel_stamps *stamps) {
  pthread_mutex_lock(&pt->mu);
  emu_prof_op *p = live_op(pt, slot, gen);
  if (p != NULL) {
    p->stamps = *stamps;
    p->stamped_stop = true;
  }
  pthread_mutex_unlock(&pt->mu);
}

bool emu_profthread_op_queued(emu_profthread *pt, int slot, uint32_t gen,
                              bool *done) {
  pthread_mutex_lock(&pt->mu);
  emu_prof_op *p = op_at(pt, slot);
  bool queued = p != NULL && p->queued && p->gen == gen;
  if (done != NULL)
    *done = queued && p->done;
  pthread_mutex_unlock(&pt->mu);
  return queued;
}

/* ---------- the thread ---------- */
/* profilerFireKernelPhaseEvents, then ncclProfilerStopKernelChEvent. Each
 * phase starts into a fresh NULL local: state and stop only if the plugin
 * wrote a handle. */
static void emit_stop_sequence(emu_thread *t, emu_prof_op *p,
                               const emu_kernel_stamps *s) {
  emu_phase_span spans[EMU_KERNEL_PHASES];
  int n = emu_kernel_phase_spans(s, spans);
  for (int i = 0; i < n; i++) {
    emu_slot phase = {NULL, 0, false};
    emu_core_kernel_phase(t, &p->op, &p->kernel_event, &phase, spans[i].phase,
                          spans[i].from, spans[i].to);
  }
  emu_core_kernel_ch_stop_slot(t, &p->kernel_event, s->phase_end[2]);
}

/* Copies what the device model wrote of every queued op (under mu). */
static size_t snapshot(emu_profthread *pt) {
  size_t n = 0;
  for (emu_prof_op *p = pt->head; p != NULL; p = p->next) {
    if (n == pt->view_cap) {
      size_t cap = pt->view_cap ? pt->view_cap * 2 : EMU_PROF_CHUNK;
      emu_prof_view *v = realloc(pt->views, cap * sizeof *v);
      if (v == NULL)
        emu_die("out of memory for the profiler thread's views");
      pt->views = v;
      pt->view_cap = cap;
    }
    emu_prof_view *v = &pt->views[n++];
    v->op = p;
    v->start_seen = p->gstart != 0;
    v->stop_seen = p->stamped_stop;
    v->start_ptimer = p->start_ptimer;
    v->anomaly = p->anomaly;
    v->stamps = p->stamps;
  }
  return n;
}

/* Unlinks the finished ops and frees them (under mu). */
static void retire_done(emu_profthread *pt) {
  emu_prof_op *prev = NULL, *p = pt->head;
  while (p != NULL) {
    emu_prof_op *next = p->next;
    if (p->done) {
      unlink_op(pt, prev, p);
      free_op(pt, p);
    } else {
      prev = p;
    }
    p = next;
  }
}

/* One pass over the queued ops; returns whether anything happened. */
static bool poll_once(emu_profthread *pt) {
  pthread_mutex_lock(&pt->mu);
  pt->in_pass = true;
  size_t n = snapshot(pt);
  pthread_mutex_unlock(&pt->mu);
  bool did = false;
  for (size_t i = 0; i < n && !pt->stalled; i++) {
    const emu_prof_view *v = &pt->views[i];
    emu_prof_op *p = v->op;
    if (!p->started && v->start_seen) {
      emu_core_kernel_ch_start_op(&pt->thr, &p->op, &p->kernel_event,
                                  v->start_ptimer, v->anomaly);
      p->started = true;
      did = true;
      if (++pt->kernel_starts == pt->stall_after) {
        pthread_mutex_lock(&pt->mu);
        pt->stalled = true; /* --profiler-stall: nothing more from here */
        pthread_mutex_unlock(&pt->mu);
        break;
      }
    }
    if (p->started && v->stop_seen) {
      emit_stop_sequence(&pt->thr, p, &v->stamps);
      pthread_mutex_lock(&pt->mu);
      p->done = true;
      pthread_mutex_unlock(&pt->mu);
      did = true;
    }
  }
  pthread_mutex_lock(&pt->mu);
  retire_done(pt);
  pt->in_pass = false;
  pthread_cond_broadcast(&pt->cv_done);
  pthread_mutex_unlock(&pt->mu);
  return did;
}

/* Waits on cv_work until `deadline` (CLOCK_REALTIME ns) or a post or stop
 * (mu held). */
static void wait_until(emu_profthread *pt, uint64_t deadline) {
  struct timespec ts = {(time_t)(deadline / 1000000000ULL),
                        (long)(deadline % 1000000000ULL)};
  pthread_cond_timedwait(&pt->cv_work, &pt->mu, &ts);
}

static bool aborted(const emu_profthread *pt) {
  return pt->worker != NULL && emu_worker_aborting(pt->worker);
}

/* An aborting run (NCCL's abort flag): the thread drops every queued op
 * without a call and ends (cleanupAndStop with drainStuck). */
static bool drain_if_aborting(emu_profthread *pt) {
  if (!aborted(pt))
    return false;
  pthread_mutex_lock(&pt->mu);
  while (pt->head != NULL) {
    emu_prof_op *p = pt->head;
    pt->head = p->next;
    free_op(pt, p);
  }
  pt->tail = NULL;
  pthread_mutex_unlock(&pt->mu);
  return true;
}

static void *profthread_main(void *arg) {
  emu_profthread *pt = arg;
  emu_thread_attach(&pt->thr);
  for (;;) {
    pthread_mutex_lock(&pt->mu);
    /* stalled: it polls no more, whatever is posted */
    while ((pt->head == NULL || pt->stalled) && !pt->stop)
      wait_until(pt, emu_realtime_ns() + 20 * 1000 * 1000ULL);
    bool stop = pt->stop;
    pthread_mutex_unlock(&pt->mu);
    if (stop || drain_if_aborting(pt))
      break; /* ops left are dropped (their comms were purged) */
    if (!poll_once(pt) && !pt->stalled)
      emu_sleep_ns(POLL_MIN_NS + emu_rng_below(&pt->thr.rng, POLL_SPREAD_NS));
  }
  emu_thread_detach(&pt->thr);
  return NULL;
}

emu_profthread *emu_profthread_create(int worker_index, int local_slot,
                                      int comm_index, int global_rank,
                                      uint64_t seed, uint64_t stall_after,
                                      const struct emu_worker *worker) {
  emu_profthread *pt = calloc(1, sizeof *pt);
  if (pt == NULL)
    emu_die("out of memory for a profiler thread");
  pthread_mutex_init(&pt->mu, NULL);
  pthread_cond_init(&pt->cv_work, NULL);
  pthread_cond_init(&pt->cv_done, NULL);
  pt->worker = worker;
  pt->stall_after = stall_after;
  char name[40];
  snprintf(name, sizeof name, "w%d/profiler.r%d.c%d", worker_index, global_rank,
           comm_index);
  emu_thread_init(&pt->thr, worker_index,
                  EMU_STREAM_PROFILER(local_slot, comm_index),
                  EMU_ROLE_PROFILER, name, seed);
  return pt;
}

void emu_profthread_start(emu_profthread *pt) {
  emu_thread_spawn(&pt->th, "Profiler Thread", profthread_main, pt);
  pt->started = true;
}

/* Whether the thread still has an op of `comm` the GPU finished (mu held). */
static bool has_finished_op(const emu_profthread *pt, const emu_comm *comm) {
  for (const emu_prof_op *p = pt->head; p != NULL; p = p->next)
    if (p->comm == comm && p->stamped_stop && !p->done)
      return true;
  return false;
}

static void timed_wait_done(emu_profthread *pt, uint64_t deadline) {
  struct timespec ts = {(time_t)(deadline / 1000000000ULL),
                        (long)(deadline % 1000000000ULL)};
  pthread_cond_timedwait(&pt->cv_done, &pt->mu, &ts);
}

uint64_t emu_profthread_purge(emu_profthread *pt, const emu_comm *comm,
                              uint64_t *started) {
  pthread_mutex_lock(&pt->mu);
  /* The rest of NCCL's teardown before the purge (proxy stop and join,
   * channels, transports) takes time in which its thread keeps polling:
   * a thread that keeps up has handled what the GPU finished. One that is
   * stalled, aborting, or still behind after EMU_PROF_TEARDOWN_NS loses
   * the rest. */
  uint64_t until = emu_realtime_ns() + EMU_PROF_TEARDOWN_NS;
  while (pt->started && !pt->stalled && !aborted(pt) &&
         has_finished_op(pt, comm) && emu_realtime_ns() < until)
    timed_wait_done(pt, emu_realtime_ns() + 1000000ULL);
  /* A pass may be calling the plugin for this comm's ops right now: the
   * comm's finalize must come after it (NCCL waits for iterationActive). */
  while (pt->in_pass)
    pthread_cond_wait(&pt->cv_done, &pt->mu);
  uint64_t n = 0, nstarted = 0;
  emu_prof_op *prev = NULL, *p = pt->head;
  while (p != NULL) {
    emu_prof_op *next = p->next;
    if (p->comm == comm) { /* profilerPurgeByContext: no call at all */
      unlink_op(pt, prev, p);
      n++;
      if (p->started && !p->done)
        nstarted++;
      free_op(pt, p);
    } else {
      prev = p;
    }
    p = next;
  }
  pt->purged += n;
  pt->purged_started += nstarted;
  pthread_mutex_unlock(&pt->mu);
  if (started != NULL)
    *started = nstarted;
  return n;
}

void emu_profthread_destroy(emu_profthread *pt) {
  if (pt == NULL)
    return;
  if (pt->started) {
    pthread_mutex_lock(&pt->mu);
    pt->stop = true;
    pthread_cond_broadcast(&pt->cv_work);
    pthread_mutex_unlock(&pt->mu);
    pthread_join(pt->th, NULL);
  }
  for (int i = 0; i < pt->nchunks; i++)
    free(pt->chunks[i]);
  free(pt->chunks);
  free(pt->views);
  pthread_cond_destroy(&pt->cv_work);
  pthread_cond_destroy(&pt->cv_done);
  pthread_mutex_destroy(&pt->mu);
  free(pt);
}
