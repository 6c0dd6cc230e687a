/*
 * src/emu/nccl/emu_profiler_thread.c — owns NCCL 2.31's per-communicator
 * "Profiler Thread" (nccl-behaviour §12): the ring of ops the host callback
 * posts (one per KernelCh carrier), the stamps the emulated GPU writes into
 * them, and the thread that polls them and emits, per op and in posting
 * order, KernelCh start when the start is stamped and, once the end is
 * stamped, the KernelPhase children (initial_sync, compute, final_sync;
 * zero-length ones skipped) and the KernelCh stop. It also holds the 2.31
 * switches (emu_nccl_231) and the mask dependency KernelPhase -> KernelCh.
 *
 * The thread polls every 1-10 us while ops are in flight, as NCCL's does;
 * with nothing posted it sleeps on a condition variable instead of polling
 * (invisible to a plugin, kinder to a loaded test machine). Which poll sees
 * a stamp depends on timing, so the order of this thread's calls across
 * ops may differ between runs with the same seed (as in NCCL).
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
  if (stop < start)
    stop = start;
  s->start = start;
  uint64_t sync_end = (synced > start ? synced : start) + SYNC_HANDSHAKE_NS;
  sync_end = round_down(sync_end, start, quantum);
  if (sync_end > stop)
    sync_end = stop;
  uint64_t rest = stop - sync_end;
  uint64_t final_ns =
      rest / 8 < FINAL_SYNC_MAX_NS ? rest / 8 : FINAL_SYNC_MAX_NS;
  uint64_t compute_end = round_down(stop - final_ns, sync_end, quantum);
  s->phase_end[0] = sync_end;
  s->phase_end[1] = compute_end;
  s->phase_end[2] = stop;
}

/* ---------- posting (host callback) and stamping (device model) ---------- */
static bool aborted(const emu_profthread *pt) {
  return pt->worker != NULL && emu_worker_aborting(pt->worker);
}

void emu_profthread_post(emu_profthread *pt, const emu_comm *comm,
                         emu_proxy_op *op) {
  op->on_profthread = false;
  pthread_mutex_lock(&pt->mu);
  if (pt->tail - pt->head >= EMU_PROF_RING) {
    pt->dropped++; /* NCCL drops ops beyond its soft limit and counts them */
    pthread_mutex_unlock(&pt->mu);
    return;
  }
  int slot = (int)(pt->tail % EMU_PROF_RING);
  emu_prof_op *p = &pt->ring[slot];
  p->comm = comm;
  p->gen = ++pt->next_gen;
  p->gstart = 0;
  p->start_ptimer = 0;
  p->anomaly = NULL;
  p->stamped_stop = false;
  memset(&p->stamps, 0, sizeof p->stamps);
  p->purged = false;
  p->started = false;
  p->done = false;
  op->on_profthread = true;
  op->prof_slot = slot;
  op->prof_gen = p->gen;
  p->op = *op; /* kernel_event / phase_event keep their old values */
  pt->tail++;
  pthread_cond_signal(&pt->cv_work);
  pthread_mutex_unlock(&pt->mu);
}

/* The op at `slot` if it is still the one the carrier was posted as. */
static emu_prof_op *live_op(emu_profthread *pt, int slot, uint32_t gen) {
  if (slot < 0 || slot >= EMU_PROF_RING)
    return NULL;
  emu_prof_op *p = &pt->ring[slot];
  return p->gen == gen && !p->done && !p->purged ? p : NULL;
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

/* ---------- the thread ---------- */
/* What one poll saw of an op, copied under the mutex. */
typedef struct op_view {
  bool start_seen, stop_seen, purged;
  uint64_t start_ptimer;
  const char *anomaly;
  emu_kernel_stamps stamps;
} op_view;

static void emit_stop_sequence(emu_thread *t, emu_prof_op *p,
                               const emu_kernel_stamps *s) {
  uint64_t from = s->start;
  for (int ph = 0; ph < EMU_KERNEL_PHASES; ph++) {
    uint64_t to = s->phase_end[ph];
    if (to > from) /* zero-length phases are skipped */
      emu_core_kernel_phase(t, &p->op, &p->kernel_event, &p->phase_event, ph,
                            from, to);
    if (to > from)
      from = to;
  }
  emu_core_kernel_ch_stop_slot(t, &p->kernel_event, s->phase_end[2]);
}

/* One pass over the live ops; returns whether anything happened. */
static bool poll_once(emu_profthread *pt) {
  static _Thread_local op_view views[EMU_PROF_RING];
  pthread_mutex_lock(&pt->mu);
  pt->in_pass = true;
  uint64_t head = pt->head, tail = pt->tail;
  for (uint64_t i = head; i < tail; i++) {
    const emu_prof_op *p = &pt->ring[i % EMU_PROF_RING];
    op_view *v = &views[i % EMU_PROF_RING];
    v->start_seen = p->gstart != 0;
    v->stop_seen = p->stamped_stop;
    v->purged = p->purged;
    v->start_ptimer = p->start_ptimer;
    v->anomaly = p->anomaly;
    v->stamps = p->stamps;
  }
  pthread_mutex_unlock(&pt->mu);
  bool did = false;
  for (uint64_t i = head; i < tail; i++) {
    emu_prof_op *p = &pt->ring[i % EMU_PROF_RING];
    const op_view *v = &views[i % EMU_PROF_RING];
    if (p->done || v->purged)
      continue;
    if (!p->started && v->start_seen) {
      emu_core_kernel_ch_start_op(&pt->thr, &p->op, &p->kernel_event,
                                  v->start_ptimer, v->anomaly);
      p->started = true;
      did = true;
    }
    if (p->started && v->stop_seen) {
      emit_stop_sequence(&pt->thr, p, &v->stamps);
      did = true;
      pthread_mutex_lock(&pt->mu);
      p->done = true;
      pthread_mutex_unlock(&pt->mu);
    }
  }
  /* Retire finished (or purged) ops at the head. */
  pthread_mutex_lock(&pt->mu);
  bool retired = false;
  while (pt->head < pt->tail) {
    emu_prof_op *p = &pt->ring[pt->head % EMU_PROF_RING];
    if (!p->done && !p->purged)
      break;
    pt->head++;
    retired = true;
  }
  pt->in_pass = false;
  (void)retired;
  pthread_cond_broadcast(&pt->cv_done);
  pthread_mutex_unlock(&pt->mu);
  return did;
}

static void wait_for_work(emu_profthread *pt) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += 20 * 1000 * 1000;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  pthread_cond_timedwait(&pt->cv_work, &pt->mu, &ts);
}

static void *profthread_main(void *arg) {
  emu_profthread *pt = arg;
  emu_thread_attach(&pt->thr);
  for (;;) {
    pthread_mutex_lock(&pt->mu);
    while (pt->head == pt->tail && !pt->stop)
      wait_for_work(pt);
    bool stop = pt->stop;
    pthread_mutex_unlock(&pt->mu);
    if (stop)
      break; /* ops left are dropped (their comms were purged) */
    if (!poll_once(pt))
      emu_sleep_ns(POLL_MIN_NS + emu_rng_below(&pt->thr.rng, POLL_SPREAD_NS));
  }
  emu_thread_detach(&pt->thr);
  return NULL;
}

emu_profthread *emu_profthread_create(int worker_index, int local_slot,
                                      int comm_index, int global_rank,
                                      uint64_t seed,
                                      const struct emu_worker *worker) {
  emu_profthread *pt = calloc(1, sizeof *pt);
  if (pt == NULL)
    emu_die("out of memory for a profiler thread");
  pthread_mutex_init(&pt->mu, NULL);
  pthread_cond_init(&pt->cv_work, NULL);
  pthread_cond_init(&pt->cv_done, NULL);
  pt->worker = worker;
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

static void timed_wait_done(emu_profthread *pt) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += 5 * 1000 * 1000;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  pthread_cond_timedwait(&pt->cv_done, &pt->mu, &ts);
}

static bool has_pending(const emu_profthread *pt, const emu_comm *comm) {
  for (uint64_t i = pt->head; i < pt->tail; i++) {
    const emu_prof_op *p = &pt->ring[i % EMU_PROF_RING];
    if (p->comm == comm && !p->done && !p->purged)
      return true;
  }
  return false;
}

void emu_profthread_purge(emu_profthread *pt, const emu_comm *comm) {
  pthread_mutex_lock(&pt->mu);
  while (has_pending(pt, comm) && !aborted(pt))
    timed_wait_done(pt);
  /* Aborting: what the GPU never finishes is dropped, not emitted. */
  for (uint64_t i = pt->head; i < pt->tail; i++) {
    emu_prof_op *p = &pt->ring[i % EMU_PROF_RING];
    if (p->comm == comm && !p->done)
      p->purged = true;
  }
  /* A pass that copied the ops before they were purged may still be
   * calling the plugin for them: the comm's finalize must come after. */
  while (pt->in_pass && pt->started)
    timed_wait_done(pt);
  pthread_mutex_unlock(&pt->mu);
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
  pthread_cond_destroy(&pt->cv_work);
  pthread_cond_destroy(&pt->cv_done);
  pthread_mutex_destroy(&pt->mu);
  free(pt);
}
