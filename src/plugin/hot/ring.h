/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/ring.h — per-thread single-producer/single-consumer rings.
 *
 * Every thread that calls into the plugin owns one ring (created on its first
 * callback, the only allocation it ever causes). The thread is the only
 * producer; the writer thread (src/plugin/writer/writer.c) is the only
 * consumer. Producing a record is: reserve units, fill them, publish `head`
 * with a release store. No lock, no system call, no allocation. When the ring
 * is full the record is dropped and counted — the producer never waits.
 *
 * Records never wrap: a record that does not fit before the end of the
 * buffer is preceded by a PAD record that fills the rest.
 *
 * A ring belongs to a session (src/plugin/session.c). A thread's cached ring
 * from an older session is ignored and a new one attached. When a thread
 * exits, a pthread-key destructor marks its ring orphaned; the writer frees
 * it once drained.
 */
#ifndef CCLSCOPE_RING_H
#define CCLSCOPE_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bridge.h"
#include "clock.h"
#include "record.h"

#define CS_CACHELINE 64

typedef struct cs_ring {
  /* Producer side (one thread). */
  _Alignas(CS_CACHELINE) _Atomic uint64_t head; /* units published */
  uint64_t cached_tail;                         /* last tail seen */
  uint64_t mask;                                /* capacity - 1 (units) */
  cs_unit *units;
  uint64_t next_id; /* next event id from this thread's block */
  uint64_t id_end;
  /* Counters written by the producer only (relaxed), read by the writer. */
  _Atomic uint64_t dropped_starts; /* ring full: these events are lost */
  _Atomic uint64_t dropped_states;
  _Atomic uint64_t dropped_stops;
  _Atomic uint64_t null_handles;    /* stop/state with a NULL handle */
  _Atomic uint64_t foreign_handles; /* stop/state with a value not ours */
  _Atomic uint64_t sampled_out;     /* operations left out by sampling */
  _Atomic uint64_t too_small;       /* ... by CCLSCOPE_MIN_BYTES */

  /* Consumer side (the writer thread). */
  _Alignas(CS_CACHELINE) _Atomic uint64_t tail;
  uint64_t high_water; /* most units ever waiting */
  bool announced;      /* its thread record was written */

  /* Registration, read by the writer; written at attach / thread exit. */
  _Alignas(CS_CACHELINE) struct cs_ring *next;
  _Atomic int orphaned;
  uint32_t session;
  int32_t tid;
  char thread_name[16];

  /* What the bridges (bridge.h) pushed on this thread. Producer only. */
  _Alignas(CS_CACHELINE) cs_bridge_thread bridge;
} cs_ring;

/* Thread-local view of the calling thread's ring. */
typedef struct {
  cs_ring *ring;
  uint32_t session;
  uint32_t failed_session; /* attach failed in this session: do not retry */
} cs_ring_tls;

extern _Thread_local cs_ring_tls cs_tls;
extern _Atomic uint32_t cs_ring_session; /* current session number; 0 = none */

/* Slow path: attach a ring for this thread in the current session, or NULL
 * when no session is recording (or memory ran out). */
cs_ring *cs_ring_attach(void);

/* In a fork child the session restarts on the first event: when
 * cs_ring_restart_pending is set, an attach without a session calls
 * cs_ring_on_no_session (src/plugin/session.c), which may start one. */
extern _Atomic bool cs_ring_restart_pending;
extern bool (*cs_ring_on_no_session)(void);

/* The calling thread's ring if it is ready for the fast path, else NULL
 * (then the caller takes its slow path, which calls cs_ring_for_thread).
 * The fast path also requires the hardware counter as the clock, so that
 * it can read it inline (cs_clock_counter) without a call; with
 * CLOCK_MONOTONIC every callback takes the slow path. */
static inline cs_ring *cs_ring_fast(void) {
  cs_ring *r = cs_tls.ring;
  if (__builtin_expect(
          r != NULL &&
              cs_tls.session == atomic_load_explicit(&cs_ring_session,
                                                     memory_order_relaxed) &&
              atomic_load_explicit(&cs_clock_source, memory_order_relaxed) ==
                  CS_CLOCK_COUNTER,
          1))
    return r;
  return NULL;
}

/* The calling thread's ring, or NULL when nothing is being recorded. */
static inline cs_ring *cs_ring_for_thread(void) {
  cs_ring *r = cs_tls.ring;
  if (__builtin_expect(r != NULL && cs_tls.session == atomic_load_explicit(
                                                          &cs_ring_session,
                                                          memory_order_relaxed),
                       1))
    return r;
  return cs_ring_attach();
}

/* Next event id for this thread (ids come in blocks from a global counter). */
uint64_t cs_ring_refill_ids(cs_ring *r);
static inline uint64_t cs_ring_next_id(cs_ring *r) {
  if (__builtin_expect(r->next_id == r->id_end, 0))
    return cs_ring_refill_ids(r);
  return r->next_id++;
}

static inline void cs_ring_count(_Atomic uint64_t *counter) {
  atomic_store_explicit(counter,
                        atomic_load_explicit(counter, memory_order_relaxed) + 1,
                        memory_order_relaxed);
}

/* Reserve `n` contiguous units; NULL if full (the caller counts the drop). */
cs_unit *cs_ring_reserve_slow(cs_ring *r, unsigned n);
static inline cs_unit *cs_ring_reserve(cs_ring *r, unsigned n) {
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  uint64_t idx = head & r->mask;
  if (__builtin_expect(head + n - r->cached_tail <= r->mask + 1 &&
                           idx + n <= r->mask + 1,
                       1))
    return &r->units[idx];
  return cs_ring_reserve_slow(r, n);
}

/* Fast path only: one unit (never wraps), or NULL when the ring is full
 * as far as the cached tail knows (the slow path looks again). */
static inline cs_unit *cs_ring_reserve1_fast(cs_ring *r) {
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  if (__builtin_expect(head - r->cached_tail <= r->mask, 1))
    return &r->units[head & r->mask];
  return NULL;
}

/* Fast path only: `n` contiguous units, or NULL (full, or would wrap). */
static inline cs_unit *cs_ring_reserve_fast(cs_ring *r, unsigned n) {
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  uint64_t idx = head & r->mask;
  if (__builtin_expect(head + n - r->cached_tail <= r->mask + 1 &&
                           idx + n <= r->mask + 1,
                       1))
    return &r->units[idx];
  return NULL;
}

/* Publish the `n` units just filled, and ask for the line a few records
 * ahead to be brought in for writing (hides the store miss on the next
 * callbacks; a no-op instruction on CPUs without PREFETCHW). */
static inline void cs_ring_commit(cs_ring *r, unsigned n) {
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed) + n;
#if defined(__x86_64__) || defined(__i386__)
  __asm__ volatile("prefetchw %0" ::"m"(r->units[(head + 4) & r->mask]));
#endif
  atomic_store_explicit(&r->head, head, memory_order_release);
}

/* ---- consumer / lifecycle side (writer thread, session code) ---- */

/* Size every new ring gets (units, power of two). Spare rings of another
 * size are freed. Called before a session begins. */
void cs_ring_set_capacity(size_t units);

/* Spare rings (ring.c): allocated ahead so that a thread's first callback
 * does not call the allocator. cs_ring_spares_want sets how many to keep
 * (at most CS_RING_SPARES_MAX); cs_ring_spares_fill allocates up to that
 * many, off the callback path (init, the writer thread), and returns how
 * many it added. With `wait` false it returns 0 at once when another
 * thread is filling. */
#define CS_RING_SPARES_MAX 64
void cs_ring_spares_want(unsigned n);
unsigned cs_ring_spares_fill(bool wait);
unsigned cs_ring_spares_count(void);
/* Rings a first callback had to allocate itself (no spare was left). */
uint64_t cs_ring_inline_allocs(void);

/* Start a new session: rings attached from now on belong to it. */
bool cs_ring_session_begin(void);

/* End the session: no new rings attach. Existing rings stay until freed. */
void cs_ring_session_end(void);

/* Snapshot of the ring list head (the list only grows at the head). */
cs_ring *cs_ring_list(void);

/* Unlink and free fully drained rings whose thread exited or whose session
 * ended (writer thread); `on_free` sees each ring first, so its counters
 * can be kept. */
void cs_ring_reap_orphans(void (*on_free)(const cs_ring *r, void *arg),
                          void *arg);

/* Free every ring, spares too (after the writer is joined, at the last
 * finalize). */
void cs_ring_free_all(void);

/* fork() support: lock/unlock the registration lock; reset in the child. */
void cs_ring_atfork_prepare(void);
void cs_ring_atfork_parent(void);
void cs_ring_atfork_child(void);

#endif
