/*
 * src/emu/threads.c — owns emitting-thread bookkeeping (emu_thread: role,
 * id stream, rng, truth buffer) and OS thread creation with NCCL-like names
 * ("NCCL Progress NN", "NCCL Sock...", "emu-rankN", "NCCL async",
 * "cuda-cb"), set with pthread_setname_np.
 */
#include "emu_thread.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu_check.h"
#include "emu_truth.h"

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

void emu_thread_spawn(pthread_t *th, const char *os_name, void *(*fn)(void *),
                      void *arg) {
  int rc = pthread_create(th, NULL, fn, arg);
  if (rc != 0)
    emu_die("cannot create thread '%s': %s", os_name, strerror(rc));
  char name[16];
  snprintf(name, sizeof name, "%s", os_name);
  pthread_setname_np(*th, name);
}
