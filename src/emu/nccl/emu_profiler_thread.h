/*
 * src/emu/nccl/emu_profiler_thread.h — NCCL 2.31's "Profiler Thread"
 * (nccl-behaviour §12): one per proxy state (so shared by split comms that
 * share resources), created at comm init when a profiler is loaded and the
 * emulated release is NVIDIA NCCL >= 2.31, joined when the last comm using
 * it is destroyed. The launch's host callback posts one op per KernelCh
 * carrier; the emulated GPU (the device model in emu_proxy.c) stamps the
 * op's start and end; the thread polls the ops and emits KernelCh start,
 * the KernelPhase children (initial_sync, compute, final_sync) and the
 * KernelCh stop. Older releases keep KernelCh on the proxy thread.
 * emu_profiler_thread.c.
 */
#ifndef NCCLEMU_PROFILER_THREAD_H
#define NCCLEMU_PROFILER_THREAD_H

#include <pthread.h>

#include "nccl/emu_world.h"
#include "profiler/emu_profiler_core.h"

#define EMU_PROF_RING 1024 /* posted ops in flight; NCCL's soft limit */
#define EMU_KERNEL_PHASES 3

/* Where the device model found each boundary of one channel's kernel, on
 * the emulated %globaltimer. Zero-length phases are not emitted. */
typedef struct emu_kernel_stamps {
  uint64_t start;                        /* kernel (channel) start */
  uint64_t phase_end[EMU_KERNEL_PHASES]; /* initial_sync, compute, final */
} emu_kernel_stamps;

/* One posted op: a KernelCh carrier, its GPU stamps and its handle slots. */
typedef struct emu_prof_op {
  emu_proxy_op op; /* the carrier: mask, context, parent task, channel */
  const emu_comm *comm;
  uint32_t gen; /* matches the carrier's prof_gen while the op lives */
  /* written by the device model, under the thread's mutex */
  uint64_t gstart;       /* 0 until the GPU stamped the start */
  uint64_t start_ptimer; /* what the start reports (ring overwrite) */
  const char *anomaly;
  bool stamped_stop;
  emu_kernel_stamps stamps;
  bool purged; /* its comm was destroyed before the GPU finished */
  /* the profiler thread's own */
  bool started, done;
  emu_slot kernel_event; /* recycled without clearing, like NCCL's */
  emu_slot phase_event;
} emu_prof_op;

typedef struct emu_profthread {
  emu_thread thr;
  pthread_t th;
  bool started;
  pthread_mutex_t mu;
  pthread_cond_t cv_work; /* an op was posted or stop requested */
  pthread_cond_t cv_done; /* ops were finished (drain waits) */
  emu_prof_op ring[EMU_PROF_RING];
  uint64_t head, tail; /* under mu; [head, tail) are live */
  uint32_t next_gen;
  uint64_t dropped; /* ops beyond the ring (NCCL counts them) */
  bool stop;
  bool in_pass; /* the thread works on copied views (purge waits) */
  const struct emu_worker *worker; /* aborting: stop waiting */
} emu_profthread;

/* Whether this run pretends NVIDIA NCCL >= 2.31 (profiler thread,
 * KernelPhase, symmetric Colls, mask dependencies). */
bool emu_nccl_231(const emu_options *o);
/* ncclProfilerEnforceMaskDeps: KernelPhase needs KernelCh. */
int emu_enforce_mask_deps(int mask);

emu_profthread *emu_profthread_create(int worker_index, int local_slot,
                                      int comm_index, int global_rank,
                                      uint64_t seed,
                                      const struct emu_worker *worker);
void emu_profthread_start(emu_profthread *pt);
/* Posts a carrier from the host callback: sets op->prof_slot/prof_gen, or
 * leaves prof_slot -1 when the ring is full (the op is dropped). */
void emu_profthread_post(emu_profthread *pt, const emu_comm *comm,
                         emu_proxy_op *op);
/* The device model: the GPU stamped the start / the end of a channel. */
void emu_profthread_device_start(emu_profthread *pt, int slot, uint32_t gen,
                                 uint64_t gstart, uint64_t start_ptimer,
                                 const char *anomaly);
void emu_profthread_device_stop(emu_profthread *pt, int slot, uint32_t gen,
                                const emu_kernel_stamps *stamps);
/* Waits until every op of `comm` was handled; when the run aborts, drops
 * those the GPU will never finish (NCCL purges a comm's ops at destroy). */
void emu_profthread_purge(emu_profthread *pt, const emu_comm *comm);
/* Stops and joins the thread (ops left are dropped), frees it. */
void emu_profthread_destroy(emu_profthread *pt);

/* The phase boundaries of one channel: the GPU started at `start`, all
 * peers were there at `synced` (the end of initial_sync), the channel ended
 * at `stop`; compute takes the time between, final_sync a small tail
 * (at most 1/8 of it and 5 us). Stamps are multiples of `quantum`. */
void emu_kernel_phases(emu_kernel_stamps *s, uint64_t start, uint64_t synced,
                       uint64_t stop, uint64_t quantum);

#endif
