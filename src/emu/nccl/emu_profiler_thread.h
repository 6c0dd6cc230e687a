/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_profiler_thread.h — NCCL 2.31's "Profiler Thread"
 * (nccl-behaviour §12): one per proxy state (so shared by split comms that
 * share resources), created at comm init when a profiler is loaded and the
 * emulated release is 2.31 or later (NVIDIA or RCCL), joined when the last
 * comm using
 * it is destroyed. The launch's host callback posts one op per KernelCh
 * carrier; the emulated GPU (the device model in emu_proxy.c) stamps the
 * op's start and end; the thread polls the ops and emits KernelCh start,
 * the KernelPhase children (initial_sync, compute, final_sync) and the
 * KernelCh stop; at comm destroy the comm's ops it has not finished are
 * purged without a call. Older releases keep KernelCh on the proxy thread.
 * emu_profiler_thread.c.
 */
#ifndef NCCLEMU_PROFILER_THREAD_H
#define NCCLEMU_PROFILER_THREAD_H

#include <pthread.h>

#include "nccl/emu_world.h"
#include "profiler/emu_profiler_core.h"

/* NCCL's observability threshold for ops in flight (MAXCHANNELS 64 x
 * MAX_PROFILER_EVENTS_PER_CHANNEL 64 x 4): past it NCCL only logs; it keeps
 * enqueueing so that every KernelCh stays paired with its task (§12). */
#define EMU_PROF_SOFT_CAP 16384
#define EMU_PROF_CHUNK 1024 /* ops allocated at a time; they never move */
/* At comm destroy the thread gets this long to handle what the GPU
 * finished before the purge: the rest of NCCL's teardown that comes first
 * (emu_profthread_purge). */
#define EMU_PROF_TEARDOWN_NS 50000000ULL
#define EMU_KERNEL_PHASES 3

/* Where the device model found each boundary of one channel's kernel, on
 * the emulated %globaltimer: NCCL's four phase stamps BEGIN (start),
 * AFTER_OPEN (phase_end[0]), BEFORE_CLOSE (phase_end[1]) and END
 * (phase_end[2]). An inner boundary the kernel did not stamp is 0. */
typedef struct emu_kernel_stamps {
  uint64_t start;                        /* kernel (channel) start */
  uint64_t phase_end[EMU_KERNEL_PHASES]; /* initial_sync, compute, final */
} emu_kernel_stamps;

/* One KernelPhase the profiler thread emits: phase 0 initial_sync,
 * 1 compute, 2 final_sync, from `from` to `to` on the GPU clock. */
typedef struct emu_phase_span {
  int phase;
  uint64_t from, to;
} emu_phase_span;

/* One posted op: a KernelCh carrier, its GPU stamps and its handle slots.
 * Ops live in chunks that never move; `index` names one for the device
 * model (the carrier's prof_slot), `gen` tells reuses apart. */
typedef struct emu_prof_op {
  emu_proxy_op op; /* the carrier: mask, context, parent task, channel */
  const emu_comm *comm;
  int index;
  uint32_t gen;             /* matches the carrier's prof_gen while queued */
  bool queued;              /* on the thread's list (else free) */
  struct emu_prof_op *next; /* the list, in posting order, or the free list */
  /* written by the device model, under the thread's mutex */
  uint64_t gstart;       /* 0 until the GPU stamped the start */
  uint64_t start_ptimer; /* what the start reports (ring overwrite) */
  const char *anomaly;
  bool stamped_stop;
  emu_kernel_stamps stamps;
  /* the profiler thread's own (`done` set under the mutex) */
  bool started, done;
  emu_slot kernel_event; /* NULL when posted, as NCCL's op is */
} emu_prof_op;

/* What one poll saw of an op, copied under the mutex. */
typedef struct emu_prof_view {
  emu_prof_op *op;
  bool start_seen, stop_seen;
  uint64_t start_ptimer;
  const char *anomaly;
  emu_kernel_stamps stamps;
} emu_prof_view;

typedef struct emu_profthread {
  emu_thread thr;
  pthread_t th;
  bool started;
  pthread_mutex_t mu;
  pthread_cond_t cv_work; /* an op was posted or stop requested */
  pthread_cond_t cv_done; /* a pass ended (the purge waits for that) */
  /* under mu */
  emu_prof_op **chunks; /* the ops' storage */
  int nchunks, chunk_cap;
  emu_prof_op *free_ops;
  emu_prof_op *head, *tail; /* queued ops, in posting order */
  uint32_t next_gen;
  uint64_t inflight, max_inflight; /* queued ops now, at most */
  uint64_t over_cap;               /* posts that found inflight >= cap */
  uint64_t purged, purged_started; /* ops purged at destroy (started) */
  bool stop;
  bool in_pass; /* the thread works on copied views (purge waits) */
  bool stalled; /* --profiler-stall reached: it polls no more */
  /* the thread's own */
  emu_prof_view *views;
  size_t view_cap;
  uint64_t kernel_starts; /* KernelCh starts it emitted */
  uint64_t stall_after;   /* --profiler-stall: stop polling after this many
                             KernelCh starts; 0 = never */
  const struct emu_worker *worker; /* aborting: stop waiting */
} emu_profthread;

/* Whether this run pretends NVIDIA NCCL >= 2.31 (what only NVIDIA's has
 * here: symmetric Colls, blocking launches on the callback thread). */
bool emu_nccl_231(const emu_options *o);
/* Whether this run pretends a 2.31 profiler core, NVIDIA's or RCCL's
 * (profiler thread, KernelPhase, mask dependency; §12). */
bool emu_core_231(const emu_options *o);
/* ncclProfilerEnforceMaskDeps: KernelPhase needs KernelCh. */
int emu_enforce_mask_deps(int mask);

/* `stall_after`: the thread stops polling right after its stall_after-th
 * KernelCh start (--profiler-stall: one that fell behind for good, so its
 * communicators' destroys purge what is left); 0 = never. */
emu_profthread *emu_profthread_create(int worker_index, int local_slot,
                                      int comm_index, int global_rank,
                                      uint64_t seed, uint64_t stall_after,
                                      const struct emu_worker *worker);
void emu_profthread_start(emu_profthread *pt);
/* Posts a carrier from the host callback (profilerEnqueueOp): sets
 * op->prof_slot/prof_gen. Never drops: past EMU_PROF_SOFT_CAP ops in
 * flight it only counts, as NCCL only logs. */
void emu_profthread_post(emu_profthread *pt, const emu_comm *comm,
                         emu_proxy_op *op);
/* The device model: the GPU stamped the start / the end of a channel. */
void emu_profthread_device_start(emu_profthread *pt, int slot, uint32_t gen,
                                 uint64_t gstart, uint64_t start_ptimer,
                                 const char *anomaly);
void emu_profthread_device_stop(emu_profthread *pt, int slot, uint32_t gen,
                                const emu_kernel_stamps *stamps);
/* ncclProfilerThreadDestroy's purge: gives a thread that keeps up up to
 * EMU_PROF_TEARDOWN_NS to handle what the GPU finished, waits for the pass
 * in progress, then drops every op of `comm` the thread has not finished,
 * without calling the plugin (a started KernelCh never gets its stop).
 * Returns how many were dropped; *started (may be NULL) how many of them
 * had started. */
uint64_t emu_profthread_purge(emu_profthread *pt, const emu_comm *comm,
                              uint64_t *started);
/* Whether the op at `slot`, generation `gen`, is still queued; *done (may
 * be NULL) whether the thread emitted its stop. */
bool emu_profthread_op_queued(emu_profthread *pt, int slot, uint32_t gen,
                              bool *done);
/* Stops and joins the thread (ops left are dropped), frees it. */
void emu_profthread_destroy(emu_profthread *pt);

/* NCCL's profilerFireKernelPhaseEvents rule: a missing inner boundary is
 * folded onto the outer one next to it (AFTER_OPEN onto BEGIN,
 * BEFORE_CLOSE onto END), a kernel that stamped neither gets no phase, and
 * a phase with a missing or equal boundary is skipped. Fills `out` in
 * phase order and returns how many there are. */
int emu_kernel_phase_spans(const emu_kernel_stamps *s,
                           emu_phase_span out[EMU_KERNEL_PHASES]);

/* The phase boundaries of one channel: the GPU started at `start`, all
 * peers were there at `synced` (the end of initial_sync), the channel ended
 * at `stop`; compute takes the time between, final_sync a small tail
 * (at most 1/8 of it and 5 us). Stamps are multiples of `quantum`. */
void emu_kernel_phases(emu_kernel_stamps *s, uint64_t start, uint64_t synced,
                       uint64_t stop, uint64_t quantum);
/* The same for a GPU whose own work ended at `computed` (<= stop) and that
 * then waited for a peer's data until `stop` (a slow GPU among its peers,
 * --slow-rank): compute ends before `computed` by the small tail, and
 * final_sync takes the rest. emu_kernel_phases is computed = stop. */
void emu_kernel_phases_waiting(emu_kernel_stamps *s, uint64_t start,
                               uint64_t synced, uint64_t computed,
                               uint64_t stop, uint64_t quantum);

#endif
