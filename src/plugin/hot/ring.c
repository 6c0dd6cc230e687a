/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/ring.c — ring registration, id blocks, the full-ring slow path
 * and ring lifetime (spare rings, orphaning at thread exit, freeing). The
 * fast paths are inline in ring.h.
 *
 * A thread's first callback must not call the allocator: a ring is
 * megabytes, which malloc gets from mmap, and mmap sleeps behind every
 * other thread of the process that is faulting pages in or mapping memory
 * (measured: 100-250 ms first callbacks on a loaded machine). So rings are
 * allocated ahead, off the callback path — at init and by the writer
 * thread — and a first callback takes a spare one and pushes it on the ring
 * list without a lock. Only when no spare is left does it allocate itself;
 * that is counted (cs_ring_inline_allocs) and said in the trace.
 */
#include "ring.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ID_BLOCK 4096

_Thread_local cs_ring_tls cs_tls;
_Atomic uint32_t cs_ring_session;
_Atomic bool cs_ring_restart_pending;
bool (*cs_ring_on_no_session)(void);

/* list_lock serialises whoever unlinks or walks rings outside the writer
 * (thread exit, reaping, freeing, fork); attaching threads never take it:
 * they only push at the head (compare-and-swap). */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(cs_ring *) ring_list;
static size_t ring_capacity_units = ((size_t)4 << 20) / CS_UNIT_BYTES; /* 4M */
static _Atomic uint64_t next_id_block = 1; /* id 0 is never issued */
static uint32_t session_counter;
static pthread_key_t exit_key;
static _Atomic bool exit_key_live;

/* Spare rings, taken by first callbacks (atomic exchange of a slot). */
static _Atomic(cs_ring *) spare_rings[CS_RING_SPARES_MAX];
static _Atomic unsigned spare_rings_wanted = 4;
static pthread_mutex_t spare_fill_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t inline_allocs; /* attaches that found no spare */

static void on_thread_exit(void *value) {
  cs_ring *r = value;
  if (!r)
    return;
  /* The last finalize may free every ring (cs_ring_free_all) while this
   * thread is exiting: touch the ring only if it is still registered, and
   * still this thread's (not a new ring at the same address). */
  int32_t tid = (int32_t)gettid();
  pthread_mutex_lock(&list_lock);
  for (cs_ring *x = atomic_load_explicit(&ring_list, memory_order_acquire); x;
       x = x->next) {
    if (x == r && x->tid == tid) {
      atomic_store_explicit(&r->orphaned, 1, memory_order_release);
      break;
    }
  }
  pthread_mutex_unlock(&list_lock);
}

/* A ring with `units` units, not yet registered; NULL when out of memory. */
static cs_ring *ring_new(size_t units) {
  cs_ring *r = aligned_alloc(CS_CACHELINE, sizeof *r);
  cs_unit *u = r ? aligned_alloc(CS_CACHELINE, units * sizeof(cs_unit)) : NULL;
  if (!r || !u) {
    free(r);
    free(u);
    return NULL;
  }
  memset(r, 0, sizeof *r);
  r->units = u;
  r->mask = units - 1;
  return r;
}

static void ring_free(cs_ring *r) {
  free(r->units);
  free(r);
}

/* ---- spare rings ---- */

/* Frees every spare ring (none of them is registered anywhere). Called
 * with spare_fill_lock held. */
static void spares_free_all(void) {
  for (int i = 0; i < CS_RING_SPARES_MAX; i++) {
    cs_ring *r =
        atomic_exchange_explicit(&spare_rings[i], NULL, memory_order_acquire);
    if (r)
      ring_free(r);
  }
}

void cs_ring_set_capacity(size_t units) {
  /* A power of two from 2 KiB to 4 GiB of units. */
  size_t cap = 2048 / CS_UNIT_BYTES;
  while (cap < units && cap < ((size_t)4 << 30) / CS_UNIT_BYTES)
    cap <<= 1;
  pthread_mutex_lock(&spare_fill_lock);
  if (cap != ring_capacity_units) {
    spares_free_all(); /* the wrong size from now on */
    ring_capacity_units = cap;
  }
  pthread_mutex_unlock(&spare_fill_lock);
}

void cs_ring_spares_want(unsigned n) {
  /* Spares are address space only until a thread writes to them, but keep
   * them under 1 GiB for hosts that do not overcommit (big ring sizes). */
  size_t budget = ((size_t)1 << 30) / (ring_capacity_units * sizeof(cs_unit));
  if (budget < 2)
    budget = 2;
  if (n > budget)
    n = (unsigned)budget;
  if (n > CS_RING_SPARES_MAX)
    n = CS_RING_SPARES_MAX;
  atomic_store_explicit(&spare_rings_wanted, n, memory_order_relaxed);
}

unsigned cs_ring_spares_count(void) {
  unsigned have = 0;
  for (unsigned i = 0; i < CS_RING_SPARES_MAX; i++)
    if (atomic_load_explicit(&spare_rings[i], memory_order_relaxed))
      have++;
  return have;
}

unsigned cs_ring_spares_fill(bool wait) {
  /* Fillers (init, the writer) take turns. Takers never take this lock. */
  if (wait)
    pthread_mutex_lock(&spare_fill_lock);
  else if (pthread_mutex_trylock(&spare_fill_lock) != 0)
    return 0; /* someone is filling already */
  unsigned wanted =
      atomic_load_explicit(&spare_rings_wanted, memory_order_relaxed);
  unsigned have = cs_ring_spares_count(), added = 0;
  for (unsigned i = 0; i < CS_RING_SPARES_MAX && have < wanted; i++) {
    if (atomic_load_explicit(&spare_rings[i], memory_order_relaxed))
      continue;
    cs_ring *r = ring_new(ring_capacity_units);
    if (!r)
      break;
    /* Only fillers store into a slot, one at a time: it is still empty. */
    atomic_store_explicit(&spare_rings[i], r, memory_order_release);
    have++;
    added++;
  }
  pthread_mutex_unlock(&spare_fill_lock);
  return added;
}

uint64_t cs_ring_inline_allocs(void) {
  return atomic_load_explicit(&inline_allocs, memory_order_relaxed);
}

/* A spare ring, or NULL when none is left. Lock-free. */
static cs_ring *spare_take(void) {
  for (unsigned i = 0; i < CS_RING_SPARES_MAX; i++) {
    if (!atomic_load_explicit(&spare_rings[i], memory_order_relaxed))
      continue;
    cs_ring *r =
        atomic_exchange_explicit(&spare_rings[i], NULL, memory_order_acquire);
    if (r)
      return r;
  }
  return NULL;
}

/* ---- sessions and attaching ---- */

bool cs_ring_session_begin(void) {
  pthread_mutex_lock(&list_lock);
  if (!atomic_load_explicit(&exit_key_live, memory_order_relaxed)) {
    if (pthread_key_create(&exit_key, on_thread_exit) != 0) {
      pthread_mutex_unlock(&list_lock);
      return false;
    }
    atomic_store_explicit(&exit_key_live, true, memory_order_relaxed);
  }
  atomic_store_explicit(&inline_allocs, 0, memory_order_relaxed);
  session_counter++;
  if (session_counter == 0)
    session_counter = 1;
  atomic_store_explicit(&cs_ring_session, session_counter,
                        memory_order_release);
  pthread_mutex_unlock(&list_lock);
  return true;
}

void cs_ring_session_end(void) {
  atomic_store_explicit(&cs_ring_session, 0, memory_order_release);
}

cs_ring *cs_ring_attach(void) {
  uint32_t session =
      atomic_load_explicit(&cs_ring_session, memory_order_acquire);
  if (session == 0) {
    if (!atomic_load_explicit(&cs_ring_restart_pending, memory_order_relaxed) ||
        !cs_ring_on_no_session || !cs_ring_on_no_session())
      return NULL;
    session = atomic_load_explicit(&cs_ring_session, memory_order_acquire);
  }
  if (session == 0 || cs_tls.failed_session == session)
    return NULL;

  cs_ring *r = spare_take();
  if (!r) {
    r = ring_new(ring_capacity_units);
    if (!r) {
      cs_tls.failed_session = session;
      return NULL;
    }
    atomic_fetch_add_explicit(&inline_allocs, 1, memory_order_relaxed);
  }
  r->session = session;
  r->tid = (int32_t)gettid();
  if (pthread_getname_np(pthread_self(), r->thread_name,
                         sizeof r->thread_name) != 0)
    r->thread_name[0] = '\0';
  /* exit_key is created before the first session is published (release
   * of cs_ring_session, acquired above) and deleted only by
   * cs_ring_free_all, at the last finalize. */
  if (atomic_load_explicit(&exit_key_live, memory_order_relaxed))
    pthread_setspecific(exit_key, r);

  cs_ring *head = atomic_load_explicit(&ring_list, memory_order_relaxed);
  do {
    r->next = head;
  } while (!atomic_compare_exchange_weak_explicit(
      &ring_list, &head, r, memory_order_release, memory_order_relaxed));

  if (atomic_load_explicit(&cs_ring_session, memory_order_acquire) != session) {
    /* The session ended meanwhile: the ring is the list's now (reaped as
     * one of an old session); do not use it. */
    if (atomic_load_explicit(&exit_key_live, memory_order_relaxed))
      pthread_setspecific(exit_key, NULL);
    return NULL;
  }
  cs_tls.ring = r;
  cs_tls.session = session;
  return r;
}

uint64_t cs_ring_refill_ids(cs_ring *r) {
  r->next_id =
      atomic_fetch_add_explicit(&next_id_block, ID_BLOCK, memory_order_relaxed);
  r->id_end = r->next_id + ID_BLOCK;
  return r->next_id++;
}

cs_unit *cs_ring_reserve_slow(cs_ring *r, unsigned n) {
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  uint64_t cap = r->mask + 1;
  uint64_t idx = head & r->mask;
  uint64_t pad = idx + n > cap ? cap - idx : 0; /* units to skip at the end */

  if (head + pad + n - r->cached_tail > cap) {
    r->cached_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (head + pad + n - r->cached_tail > cap)
      return NULL;
  }
  if (pad) {
    cs_unit *p = &r->units[idx];
    p->h.kind = CS_REC_PAD;
    p->h.units = 0; /* "to the end of the buffer" */
    atomic_store_explicit(&r->head, head + pad, memory_order_release);
    idx = 0;
  }
  return &r->units[idx];
}

cs_ring *cs_ring_list(void) {
  return atomic_load_explicit(&ring_list, memory_order_acquire);
}

static bool drained(cs_ring *r) {
  return atomic_load_explicit(&r->tail, memory_order_relaxed) ==
         atomic_load_explicit(&r->head, memory_order_acquire);
}

/* Unlinks `r`, whose predecessor is `prev` (NULL: it was the head when
 * walked). Only list_lock holders unlink; attaching threads may have pushed
 * new heads since, so a failed head swap finds `r`'s new predecessor. */
static void unlink_ring(cs_ring *prev, cs_ring *r) {
  if (prev) {
    prev->next = r->next;
    return;
  }
  cs_ring *expected = r;
  if (atomic_compare_exchange_strong_explicit(&ring_list, &expected, r->next,
                                              memory_order_release,
                                              memory_order_relaxed))
    return;
  for (cs_ring *x = atomic_load_explicit(&ring_list, memory_order_acquire); x;
       x = x->next)
    if (x->next == r) {
      x->next = r->next;
      return;
    }
}

void cs_ring_reap_orphans(void (*on_free)(const cs_ring *r, void *arg),
                          void *arg) {
  uint32_t session =
      atomic_load_explicit(&cs_ring_session, memory_order_relaxed);
  cs_ring *reaped = NULL;
  pthread_mutex_lock(&list_lock);
  cs_ring *prev = NULL;
  cs_ring *r = atomic_load_explicit(&ring_list, memory_order_acquire);
  while (r) {
    cs_ring *next = r->next;
    bool gone = atomic_load_explicit(&r->orphaned, memory_order_acquire) ||
                r->session != session;
    if (gone && drained(r)) {
      unlink_ring(prev, r);
      r->next = reaped;
      reaped = r;
    } else {
      prev = r;
    }
    r = next;
  }
  pthread_mutex_unlock(&list_lock);
  /* Freed outside the lock: free() may unmap, which may sleep. */
  while (reaped) {
    cs_ring *next = reaped->next;
    if (on_free)
      on_free(reaped, arg);
    ring_free(reaped);
    reaped = next;
  }
}

void cs_ring_free_all(void) {
  pthread_mutex_lock(&list_lock);
  cs_ring *r = atomic_exchange_explicit(&ring_list, NULL, memory_order_acquire);
  while (r) {
    cs_ring *next = r->next;
    ring_free(r);
    r = next;
  }
  if (atomic_load_explicit(&exit_key_live, memory_order_relaxed)) {
    /* No destructor may point into this library once it is unloaded. */
    pthread_key_delete(exit_key);
    atomic_store_explicit(&exit_key_live, false, memory_order_relaxed);
  }
  pthread_mutex_unlock(&list_lock);
  pthread_mutex_lock(&spare_fill_lock);
  spares_free_all();
  pthread_mutex_unlock(&spare_fill_lock);
  cs_tls.ring = NULL;
}

void cs_ring_atfork_prepare(void) {
  pthread_mutex_lock(&spare_fill_lock);
  pthread_mutex_lock(&list_lock);
}

void cs_ring_atfork_parent(void) {
  pthread_mutex_unlock(&list_lock);
  pthread_mutex_unlock(&spare_fill_lock);
}

void cs_ring_atfork_child(void) {
  /* Only the forking thread exists in the child. The inherited rings hold
   * the parent's records, which the parent writes: drop them all. */
  cs_ring *r = atomic_exchange_explicit(&ring_list, NULL, memory_order_acquire);
  while (r) {
    cs_ring *next = r->next;
    ring_free(r);
    r = next;
  }
  cs_tls.ring = NULL;
  if (atomic_load_explicit(&exit_key_live, memory_order_relaxed))
    pthread_setspecific(exit_key, NULL);
  pthread_mutex_unlock(&list_lock);
  pthread_mutex_unlock(&spare_fill_lock); /* the spares are the child's */
}
