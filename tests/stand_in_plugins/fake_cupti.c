/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/fake_cupti.c — a stand-in libcupti.so for tests of the
 * CUPTI bridge (src/plugin/hot/bridge_cupti.c). It exports the two functions
 * the bridge uses and nothing else (so a plugin that tried to subscribe
 * would not find cuptiSubscribe), keeps CUPTI's per-thread, per-kind
 * stacks of external ids, and writes one line per call to
 * $FAKE_CUPTI_FILE.<pid>:
 *
 *   push <tid> <kind> <id> <rc>
 *   pop <tid> <kind> <lastId> <rc>
 *
 * FAKE_CUPTI_FAIL=1 makes every call fail with CUPTI_ERROR_NOT_INITIALIZED
 * (15), as a CUPTI without a driver does. Popping an empty stack returns
 * CUPTI_ERROR_QUEUE_EMPTY (18); an invalid kind CUPTI_ERROR_INVALID_PARAMETER
 * (1). Values from CUPTI's headers (facts).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { OK = 0, INVALID_PARAMETER = 1, NOT_INITIALIZED = 15, QUEUE_EMPTY = 18 };
enum { KIND_INVALID = 0, KIND_SIZE = 6, DEPTH = 64 };

static _Thread_local uint64_t ids[KIND_SIZE][DEPTH];
static _Thread_local int depth[KIND_SIZE];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int out_fd = -1;

static void record(const char *call, int kind, uint64_t id, int rc) {
  pthread_mutex_lock(&lock);
  if (out_fd < 0) {
    const char *base = getenv("FAKE_CUPTI_FILE");
    if (base && base[0]) {
      char path[4096];
      snprintf(path, sizeof path, "%s.%ld", base, (long)getpid());
      out_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
  }
  if (out_fd >= 0) {
    char line[160];
    int n =
        snprintf(line, sizeof line, "%s %ld %d %llu %d\n", call,
                 (long)syscall(SYS_gettid), kind, (unsigned long long)id, rc);
    ssize_t w = write(out_fd, line, (size_t)n);
    (void)w;
  }
  pthread_mutex_unlock(&lock);
}

#define EXPORT __attribute__((visibility("default")))
EXPORT int cuptiActivityPushExternalCorrelationId(int kind, uint64_t id);
EXPORT int cuptiActivityPopExternalCorrelationId(int kind, uint64_t *last_id);

static int failing(void) {
  const char *f = getenv("FAKE_CUPTI_FAIL");
  return f && strcmp(f, "1") == 0;
}

int cuptiActivityPushExternalCorrelationId(int kind, uint64_t id) {
  int rc = OK;
  if (failing())
    rc = NOT_INITIALIZED;
  else if (kind <= KIND_INVALID || kind >= KIND_SIZE || depth[kind] == DEPTH)
    rc = INVALID_PARAMETER;
  else
    ids[kind][depth[kind]++] = id;
  record("push", kind, id, rc);
  return rc;
}

int cuptiActivityPopExternalCorrelationId(int kind, uint64_t *last_id) {
  int rc = OK;
  uint64_t id = 0;
  if (failing())
    rc = NOT_INITIALIZED;
  else if (kind <= KIND_INVALID || kind >= KIND_SIZE)
    rc = INVALID_PARAMETER;
  else if (depth[kind] == 0)
    rc = QUEUE_EMPTY;
  else
    id = ids[kind][--depth[kind]];
  if (rc == OK && last_id)
    *last_id = id;
  record("pop", kind, id, rc);
  return rc;
}
