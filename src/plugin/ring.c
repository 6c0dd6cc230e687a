/*
 * src/plugin/ring.c — ring registration, id blocks, the full-ring slow path
 * and ring lifetime (orphaning at thread exit, freeing). The fast paths are
 * inline in ring.h.
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

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(cs_ring *) ring_list;
static size_t ring_capacity_units = 1u << 16;
static _Atomic uint64_t next_id_block = 1; /* id 0 is never issued */
static uint32_t session_counter;
static pthread_key_t exit_key;
static bool exit_key_live;

static void on_thread_exit(void *value) {
  cs_ring *r = value;
  if (!r)
    return;
  /* The last finalize may free every ring (cs_ring_free_all) while this
   * thread is exiting: touch the ring only if it is still registered, and
   * still this thread's (not a new ring at the same address). */
  int32_t tid = (int32_t)gettid();
  pthread_mutex_lock(&list_lock);
  for (cs_ring *x = atomic_load_explicit(&ring_list, memory_order_relaxed); x;
       x = x->next) {
    if (x == r && x->tid == tid) {
      atomic_store_explicit(&r->orphaned, 1, memory_order_release);
      break;
    }
  }
  pthread_mutex_unlock(&list_lock);
}

void cs_ring_set_capacity(size_t units) {
  size_t cap = 64;
  while (cap < units && cap < ((size_t)1 << 26))
    cap <<= 1;
  ring_capacity_units = cap;
}

bool cs_ring_session_begin(void) {
  pthread_mutex_lock(&list_lock);
  if (!exit_key_live) {
    if (pthread_key_create(&exit_key, on_thread_exit) != 0) {
      pthread_mutex_unlock(&list_lock);
      return false;
    }
    exit_key_live = true;
  }
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

  cs_ring *r = aligned_alloc(CS_CACHELINE, sizeof *r);
  cs_unit *units =
      r ? aligned_alloc(CS_CACHELINE, ring_capacity_units * sizeof(cs_unit))
        : NULL;
  if (!r || !units) {
    free(r);
    free(units);
    cs_tls.failed_session = session;
    return NULL;
  }
  memset(r, 0, sizeof *r);
  r->units = units;
  r->mask = ring_capacity_units - 1;
  r->session = session;
  r->tid = (int32_t)gettid();
  if (pthread_getname_np(pthread_self(), r->thread_name,
                         sizeof r->thread_name) != 0)
    r->thread_name[0] = '\0';

  pthread_mutex_lock(&list_lock);
  if (atomic_load_explicit(&cs_ring_session, memory_order_relaxed) != session) {
    /* The session ended while we were allocating. */
    pthread_mutex_unlock(&list_lock);
    free(units);
    free(r);
    return NULL;
  }
  if (exit_key_live)
    pthread_setspecific(exit_key, r);
  r->next = atomic_load_explicit(&ring_list, memory_order_relaxed);
  atomic_store_explicit(&ring_list, r, memory_order_release);
  pthread_mutex_unlock(&list_lock);

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

void cs_ring_reap_orphans(void (*on_free)(const cs_ring *r, void *arg),
                          void *arg) {
  pthread_mutex_lock(&list_lock);
  cs_ring *prev = NULL;
  cs_ring *r = atomic_load_explicit(&ring_list, memory_order_relaxed);
  while (r) {
    cs_ring *next = r->next;
    if (atomic_load_explicit(&r->orphaned, memory_order_acquire) &&
        drained(r)) {
      if (prev)
        prev->next = next;
      else
        atomic_store_explicit(&ring_list, next, memory_order_release);
      if (on_free)
        on_free(r, arg);
      free(r->units);
      free(r);
    } else {
      prev = r;
    }
    r = next;
  }
  pthread_mutex_unlock(&list_lock);
}

void cs_ring_free_all(void) {
  pthread_mutex_lock(&list_lock);
  cs_ring *r = atomic_load_explicit(&ring_list, memory_order_relaxed);
  atomic_store_explicit(&ring_list, NULL, memory_order_release);
  while (r) {
    cs_ring *next = r->next;
    free(r->units);
    free(r);
    r = next;
  }
  if (exit_key_live) {
    /* No destructor may point into this library once it is unloaded. */
    pthread_key_delete(exit_key);
    exit_key_live = false;
  }
  pthread_mutex_unlock(&list_lock);
  cs_tls.ring = NULL;
}

void cs_ring_atfork_prepare(void) {
  pthread_mutex_lock(&list_lock);
}

void cs_ring_atfork_parent(void) {
  pthread_mutex_unlock(&list_lock);
}

void cs_ring_atfork_child(void) {
  /* Only the forking thread exists in the child. The inherited rings hold
   * the parent's records, which the parent writes: drop them all. */
  cs_ring *r = atomic_load_explicit(&ring_list, memory_order_relaxed);
  atomic_store_explicit(&ring_list, NULL, memory_order_relaxed);
  while (r) {
    cs_ring *next = r->next;
    free(r->units);
    free(r);
    r = next;
  }
  cs_tls.ring = NULL;
  if (exit_key_live)
    pthread_setspecific(exit_key, NULL);
  pthread_mutex_unlock(&list_lock);
}
