/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/bad_lock.c — BREAKS the hot-path rule (invariant 3,
 * docs/invariants.md) with a contended lock: startEvent for the first
 * ProxyOp takes a mutex that another thread of the plugin (as a flush
 * thread would) holds for 150 ms.
 * The callback uses no CPU while it waits, like a descheduled thread, so
 * ncclemu --check must tell the two apart: a lock wait is blocking on its
 * own (a voluntary context switch) and is reported.
 */
#include <pthread.h>
#include <time.h>

#include "bad_plugin_common.h"

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static int lock_held;
static int contended;

static void *holder_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&shared_lock);
  __atomic_store_n(&lock_held, 1, __ATOMIC_RELEASE);
  struct timespec ts = {0, 150 * 1000 * 1000};
  nanosleep(&ts, NULL);
  pthread_mutex_unlock(&shared_lock);
  return NULL;
}

static ncclResult_t start(void *c, void **h, ncclProfilerEventDescr_v6_t *d) {
  (void)c;
  if (d->type == ncclProfileProxyOp &&
      __atomic_exchange_n(&contended, 1, __ATOMIC_RELAXED) == 0) {
    pthread_t holder;
    if (pthread_create(&holder, NULL, holder_main, NULL) == 0) {
      /* a short spin until the holder has the lock (no sleeping here:
       * the only wait of this callback is the lock) */
      while (!__atomic_load_n(&lock_held, __ATOMIC_ACQUIRE))
        ;
      pthread_mutex_lock(&shared_lock); /* the bug: waits ~150 ms */
      pthread_mutex_unlock(&shared_lock);
      pthread_join(holder, NULL);
    }
  }
  *h = bad_new_event(d->type);
  return ncclSuccess;
}

ncclProfiler_v6_t ncclProfiler_v6 = {
    "bad_lock",       bad_correct_init,   start,
    bad_correct_stop, bad_correct_record, bad_correct_finalize};
