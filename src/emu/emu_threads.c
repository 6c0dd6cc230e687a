/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/emu_threads.c — owns emitting-thread bookkeeping (emu_thread: role,
 * id stream, rng, truth buffer) and OS thread creation with NCCL-like names
 * ("NCCL Progress NN", "NCCL Sock...", "emu-rankN", "NCCL async",
 * "cuda-cb"), set with pthread_setname_np.
 */
#include "emu_threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check/emu_check.h"
#include "check/emu_truth.h"

void emu_thread_init(emu_thread *t, int worker, uint32_t stream, emu_role role,
                     const char *name, uint64_t seed) {
  memset(t, 0, sizeof *t);
  t->worker = worker;
  t->stream = stream;
  t->role = role;
  snprintf(t->name, sizeof t->name, "%s", name);
  emu_rng_seed(&t->rng, seed, name);
}

void emu_thread_attach(emu_thread *t) {
  t->tid = (pid_t)syscall(SYS_gettid);
  t->self = pthread_self();
  if (emu_truth_enabled() && t->truth == NULL)
    t->truth = emu_truth_buf_new();
  emu_watchdog_register(t);
}

static uint64_t detached_callbacks;

uint64_t emu_thread_detached_callbacks(void) {
  return __atomic_load_n(&detached_callbacks, __ATOMIC_RELAXED);
}

void emu_thread_detach(emu_thread *t) {
  emu_watchdog_unregister(t);
  __atomic_add_fetch(&detached_callbacks, EMU_LOAD_RELAXED(&t->callbacks),
                     __ATOMIC_RELAXED);
  EMU_STORE_RELAXED(&t->callbacks, 0);
  if (t->truth != NULL) {
    emu_truth_buf_free(t->truth);
    t->truth = NULL;
  }
}

/* ---- the emulator's own threads ---- */

#define OWN_TIDS_MAX 4096
static pid_t own_tids[OWN_TIDS_MAX];
static int own_count; /* entries published (release) */

void emu_thread_note_own(void) {
  pid_t tid = (pid_t)syscall(SYS_gettid);
  int i = __atomic_fetch_add(&own_count, 1, __ATOMIC_RELAXED);
  if (i >= OWN_TIDS_MAX)
    return; /* past that, extra threads count as the plugin's: harmless */
  __atomic_store_n(&own_tids[i], tid, __ATOMIC_RELEASE);
}

bool emu_thread_is_own(pid_t tid) {
  int n = __atomic_load_n(&own_count, __ATOMIC_ACQUIRE);
  if (n > OWN_TIDS_MAX)
    n = OWN_TIDS_MAX;
  for (int i = 0; i < n; i++)
    if (__atomic_load_n(&own_tids[i], __ATOMIC_ACQUIRE) == tid)
      return true;
  return false;
}

typedef struct {
  void *(*fn)(void *);
  void *arg;
} spawn_args;

static void *spawned_main(void *p) {
  spawn_args a = *(spawn_args *)p;
  free(p);
  emu_thread_note_own();
  return a.fn(a.arg);
}

void emu_thread_spawn(pthread_t *th, const char *os_name, void *(*fn)(void *),
                      void *arg) {
  spawn_args *a = malloc(sizeof *a);
  if (a == NULL)
    emu_die("cannot create thread '%s': out of memory", os_name);
  a->fn = fn;
  a->arg = arg;
  int rc = pthread_create(th, NULL, spawned_main, a);
  if (rc != 0)
    emu_die("cannot create thread '%s': %s", os_name, strerror(rc));
  char name[16];
  snprintf(name, sizeof name, "%s", os_name);
  pthread_setname_np(*th, name);
}
