/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/emu_threads.h — one emitting thread as the emulator sees it: its
 * role (truth's "thr"), its deterministic event-id stream, its random
 * generator, its callback counter and its truth buffer. Every emission
 * function takes the calling thread's emu_thread explicitly (no TLS lookup).
 * emu_threads.c creates and names the OS threads (pthread_setname_np).
 */
#ifndef NCCLEMU_THREADS_H
#define NCCLEMU_THREADS_H

#include <pthread.h>

#include "emu_common.h"

struct emu_truth_buf;

/* Role of a thread, as in nccl-behaviour §5. */
typedef enum {
  EMU_ROLE_MAIN = 0, /* worker main thread (load, default inits, finalize) */
  EMU_ROLE_APP,      /* T_api */
  EMU_ROLE_INIT,     /* async init job (grouped / concurrent init) */
  EMU_ROLE_ASYNC,    /* T_async: non-blocking group launch */
  EMU_ROLE_CUDACB,   /* T_cudacb: graph replay host callback */
  EMU_ROLE_PROXY,    /* T_proxy: "NCCL Progress NN" */
  EMU_ROLE_SOCK,     /* T_sock: "NCCL Sock" helper */
  EMU_ROLE_PROFILER  /* NCCL >= 2.31 "Profiler Thread" (§12) */
} emu_role;

typedef struct emu_thread {
  int worker;       /* worker index (top 8 bits of event ids) */
  uint32_t stream;  /* deterministic emitter number (next 24 bits) */
  uint32_t counter; /* last event counter used (low 32 bits) */
  emu_role role;
  char name[40]; /* truth "thr", e.g. "app0", "proxy.r3", "sock.r3.1" */
  /* The OS thread using it, set by emu_thread_attach before it registers
   * with the watchdog, which reads its CPU clock and /proc entry. */
  pid_t tid;
  pthread_t self;
  emu_rng rng;
  uint64_t callbacks; /* plugin calls made; written by owner, read relaxed */
  /* --check watchdog: calls_entered is bumped before a plugin call and
   * calls_left set equal after it; call_what names the call (kind << 16 |
   * event type bit). Written by the owner, read relaxed by the watchdog. */
  uint64_t calls_entered;
  uint64_t calls_left;
  uint32_t call_what;
  struct emu_truth_buf *truth; /* NULL when --truth is off */
} emu_thread;

/* Prepares `t` (does not create an OS thread). The name must be stable
 * across runs with the same seed (it seeds the rng and keys the truth). */
void emu_thread_init(emu_thread *t, int worker, uint32_t stream, emu_role role,
                     const char *name, uint64_t seed);
/* Called first thing on the OS thread that will use `t`: records the tid
 * and pthread_t, opens the truth buffer, registers with the watchdog. */
void emu_thread_attach(emu_thread *t);
/* Flushes the truth buffer; call before the OS thread exits. */
void emu_thread_detach(emu_thread *t);
/* The emulator's own OS threads (every thread emu_thread_spawn starts, and
 * those that call emu_thread_note_own: a worker's main thread, the
 * watchdog), so that --check can tell them from the plugin's threads. */
void emu_thread_note_own(void);
bool emu_thread_is_own(pid_t tid);
/* Deterministic id streams: a thread's stream depends only on its role and
 * position, never on creation timing, so ids repeat for the same --seed. */
#define EMU_STREAM_MAIN 1u
#define EMU_STREAM_APP(i) (0x100u + (uint32_t)(i))
/* Communicator threads (proxy, init, 2.31 profiler, socket helpers) of
 * communicators 0..63 keep their historical streams (seeded runs repeat);
 * those of communicator 64 and later get streams above every other range,
 * EMU_STREAM_COMM_WIDE + 8 x (slot x EMU_MAX_COMMS + ci) + kind. */
#define EMU_STREAM_COMM_WIDE 0x200000u
static inline uint32_t emu_stream_comm(uint32_t narrow, int slot, int ci,
                                       uint32_t kind) {
  if (ci < 64)
    return narrow;
  return EMU_STREAM_COMM_WIDE +
         8u * ((uint32_t)slot * EMU_MAX_COMMS + (uint32_t)ci) + kind;
}
#define EMU_STREAM_PROXY(slot, ci)                                             \
  emu_stream_comm(0x1000u + (uint32_t)(slot)*64u + (uint32_t)(ci), (slot),     \
                  (ci), 0u)
#define EMU_STREAM_CUDACB(i) (0x3000u + (uint32_t)(i))
#define EMU_STREAM_INIT(slot, ci)                                              \
  emu_stream_comm(0x4000u + (uint32_t)(slot)*64u + (uint32_t)(ci), (slot),     \
                  (ci), 1u)
#define EMU_STREAM_PROFILER(slot, ci)                                          \
  emu_stream_comm(0x5000u + (uint32_t)(slot)*64u + (uint32_t)(ci), (slot),     \
                  (ci), 2u)
#define EMU_STREAM_SOCK(slot, ci, k)                                           \
  emu_stream_comm(0x8000u + ((uint32_t)(slot)*64u + (uint32_t)(ci)) * 4u +     \
                      (uint32_t)(k),                                           \
                  (slot), (ci), 4u + (uint32_t)(k))
#define EMU_STREAM_ASYNC(app, job)                                             \
  (0x100000u + ((uint32_t)(app) << 16) + ((uint32_t)(job)&0xFFFFu))

/* Callbacks of threads that already ended (summed at detach). */
uint64_t emu_thread_detached_callbacks(void);

/* Next event id: worker(8) | stream(24) | counter(32). */
static inline uint64_t emu_thread_new_id(emu_thread *t) {
  t->counter++;
  return ((uint64_t)(uint8_t)t->worker << 56) |
         ((uint64_t)(t->stream & 0xFFFFFF) << 32) | t->counter;
}
enum {
  EMU_CALL_INIT = 1,
  EMU_CALL_START,
  EMU_CALL_STATE,
  EMU_CALL_STOP,
  EMU_CALL_FINALIZE
};
static inline void emu_thread_enter_call(emu_thread *t, uint32_t kind,
                                         int type_bit) {
  EMU_STORE_RELAXED(&t->call_what, (kind << 16) | (uint32_t)(type_bit & 0xFF));
  EMU_STORE_RELAXED(&t->calls_entered, t->calls_entered + 1);
}
static inline void emu_thread_leave_call(emu_thread *t) {
  EMU_STORE_RELAXED(&t->calls_left, t->calls_entered);
}
static inline void emu_thread_count_callback(emu_thread *t) {
  EMU_STORE_RELAXED(&t->callbacks, t->callbacks + 1);
}

/* Creates an OS thread named `os_name` (<= 15 chars, as NCCL names them). */
void emu_thread_spawn(pthread_t *th, const char *os_name, void *(*fn)(void *),
                      void *arg);

#endif
