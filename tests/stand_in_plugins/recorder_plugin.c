/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/recorder_plugin.c — a correct plugin that writes down
 * exactly what it receives, for the tests of what each ABI version is
 * delivered (tests/emu/check_delivery.c). Exports ncclProfiler_v1 .. v7
 * (ncclemu --abi N picks one). For every call one JSON line goes to
 * "$RECORDER_FILE.<pid>": the version, the call, the handle it returned,
 * parentObj, context, the raw descriptor / state-args bytes as hex, and at
 * init the arguments, the environment NCCL tests rely on (CCLSCOPE_HOST,
 * CCLSCOPE_HOSTNAME) and what dlsym(RTLD_DEFAULT, "ncclGetVersion") says.
 * Handles are unique fake addresses (never dereferenced). The activation
 * mask is RECORDER_MASK (default 0xFFFF), stored atomically. Under
 * CCLSCOPE_HOST=rccl the v6 descriptor and state args are RCCL's
 * (include/nccl/profiler_rccl_v6.h), and so are v7's when ncclGetVersion()
 * says 2.31 or later (profiler_rccl_v7.h): the args are recorded as 24
 * bytes.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl/profiler.h"

static pthread_mutex_t rec_mutex = PTHREAD_MUTEX_INITIALIZER;
static FILE *rec_file;
static uint64_t rec_next_handle;
static int rec_contexts[256]; /* static: nothing to free or leak */
static int rec_ncontexts;

static void rec_open_locked(void) {
  if (rec_file != NULL)
    return;
  const char *prefix = getenv("RECORDER_FILE");
  char path[1024];
  snprintf(path, sizeof path, "%s.%d", prefix ? prefix : "recorder.jsonl",
           (int)getpid());
  rec_file = fopen(path, "a");
}

__attribute__((destructor)) static void rec_close(void) {
  pthread_mutex_lock(&rec_mutex);
  if (rec_file != NULL) {
    fclose(rec_file);
    rec_file = NULL;
  }
  pthread_mutex_unlock(&rec_mutex);
}

static void hex(char *out, const void *p, size_t n) {
  static const char d[] = "0123456789abcdef";
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = d[b[i] >> 4];
    out[2 * i + 1] = d[b[i] & 15];
  }
  out[2 * n] = '\0';
}

static void rec_line(const char *line) {
  pthread_mutex_lock(&rec_mutex);
  rec_open_locked();
  if (rec_file != NULL)
    fputs(line, rec_file);
  pthread_mutex_unlock(&rec_mutex);
}

static int rec_host_version = -1; /* ncclGetVersion() at the first init */

static bool rec_host_rccl(void) {
  const char *host = getenv("CCLSCOPE_HOST");
  return host != NULL && strcmp(host, "rccl") == 0;
}

static int rec_mask(void) {
  const char *env = getenv("RECORDER_MASK");
  return env ? (int)strtol(env, NULL, 0) : 0xFFFF;
}

static ncclResult_t rec_init(int v, void **context, int *mask, const char *name,
                             uint64_t hash, int nNodes, int nranks, int rank,
                             bool has_logger) {
  pthread_mutex_lock(&rec_mutex);
  int idx = rec_ncontexts < 256 ? rec_ncontexts++ : 255;
  pthread_mutex_unlock(&rec_mutex);
  *context = &rec_contexts[idx];
  __atomic_store_n(mask, rec_mask(), __ATOMIC_RELAXED);
  int version = -1;
  ncclResult_t (*get_version)(int *) =
      (ncclResult_t(*)(int *))dlsym(RTLD_DEFAULT, "ncclGetVersion");
  if (get_version != NULL)
    get_version(&version);
  __atomic_store_n(&rec_host_version, version, __ATOMIC_RELAXED);
  const char *host = getenv("CCLSCOPE_HOST");
  const char *hostname = getenv("CCLSCOPE_HOSTNAME");
  char line[1024];
  snprintf(line, sizeof line,
           "{\"v\":%d,\"call\":\"init\",\"ctx\":\"%p\",\"commName\":\"%s\","
           "\"commHash\":\"0x%016llx\",\"nNodes\":%d,\"nranks\":%d,\"rank\":%d,"
           "\"logger\":%s,\"ncclGetVersion\":%d,\"host\":\"%s\","
           "\"hostname\":\"%s\"}\n",
           v, *context, name ? name : "(null)", (unsigned long long)hash,
           nNodes, nranks, rank, has_logger ? "true" : "false", version,
           host ? host : "", hostname ? hostname : "");
  rec_line(line);
  return ncclSuccess;
}

static ncclResult_t rec_start(int v, void *context, void **eHandle,
                              const void *descr, size_t size, uint64_t type,
                              void *parent, int rank) {
  uint64_t h = __atomic_add_fetch(&rec_next_handle, 1, __ATOMIC_RELAXED);
  void *before = *eHandle;
  *eHandle = (void *)(uintptr_t)(0x5ec0000000ULL + h * 16);
  char bytes[2 * 160 + 1];
  hex(bytes, descr, size);
  char line[1024];
  snprintf(line, sizeof line,
           "{\"v\":%d,\"call\":\"start\",\"handle\":\"%p\",\"before\":\"%p\","
           "\"type\":%llu,\"parent\":\"%p\",\"ctx\":\"%p\",\"rank\":%d,"
           "\"descr\":\"%s\"}\n",
           v, *eHandle, before, (unsigned long long)type, parent, context, rank,
           bytes);
  rec_line(line);
  return ncclSuccess;
}

static ncclResult_t rec_state(int v, void *eHandle, int state, const void *args,
                              size_t size) {
  char bytes[2 * 24 + 1] = "";
  if (args != NULL)
    hex(bytes, args, size);
  char line[512];
  snprintf(line, sizeof line,
           "{\"v\":%d,\"call\":\"state\",\"handle\":\"%p\",\"state\":%d,"
           "\"args\":%s%s%s}\n",
           v, eHandle, state, args ? "\"" : "", args ? bytes : "null",
           args ? "\"" : "");
  rec_line(line);
  return ncclSuccess;
}

static ncclResult_t rec_stop(void *eHandle) {
  char line[128];
  snprintf(line, sizeof line, "{\"call\":\"stop\",\"handle\":\"%p\"}\n",
           eHandle);
  rec_line(line);
  return ncclSuccess;
}

static ncclResult_t rec_finalize(void *context) {
  char line[128];
  snprintf(line, sizeof line, "{\"call\":\"finalize\",\"ctx\":\"%p\"}\n",
           context);
  rec_line(line);
  pthread_mutex_lock(&rec_mutex);
  if (rec_file != NULL)
    fflush(rec_file);
  pthread_mutex_unlock(&rec_mutex);
  return ncclSuccess;
}

/* ---------- one adapter per version ---------- */
static ncclResult_t init_v1(void **c, int *m) {
  return rec_init(1, c, m, NULL, 0, 0, 0, 0, false);
}
static ncclResult_t init_v2(void **c, int *m) {
  return rec_init(2, c, m, NULL, 0, 0, 0, 0, false);
}
static ncclResult_t init_v3(void **c, int *m) {
  return rec_init(3, c, m, NULL, 0, 0, 0, 0, false);
}
static ncclResult_t init_v4(void **c, int *m, const char *name, uint64_t hash,
                            int nNodes, int nranks, int rank,
                            ncclDebugLogger_t logfn) {
  return rec_init(4, c, m, name, hash, nNodes, nranks, rank, logfn != NULL);
}
#define INIT_V5(V)                                                             \
  static ncclResult_t init_v##V(void **c, uint64_t id, int *m,                 \
                                const char *name, int nNodes, int nranks,      \
                                int rank, ncclDebugLogger_t logfn) {           \
    return rec_init(V, c, m, name, id, nNodes, nranks, rank, logfn != NULL);   \
  }
INIT_V5(5)
INIT_V5(6)
INIT_V5(7)

#define VERSION_FUNCS(V)                                                       \
  static ncclResult_t start_v##V(void *c, void **h,                            \
                                 ncclProfilerEventDescr_v##V##_t *d) {         \
    return rec_start(V, c, h, d, sizeof *d, (uint64_t)d->type, d->parentObj,   \
                     d->rank);                                                 \
  }                                                                            \
  static ncclResult_t state_v##V(void *h, ncclProfilerEventState_v##V##_t s,   \
                                 ncclProfilerEventStateArgs_v##V##_t *a) {     \
    return rec_state(V, h, (int)s, a, sizeof *a);                              \
  }
VERSION_FUNCS(1)
VERSION_FUNCS(2)
VERSION_FUNCS(3)
VERSION_FUNCS(4)
VERSION_FUNCS(5)

/* v6: RCCL hands a 24-byte args union (read as such only under RCCL). */
static ncclResult_t start_v6(void *c, void **h,
                             ncclProfilerEventDescr_v6_t *d) {
  return rec_start(6, c, h, d, sizeof *d, (uint64_t)d->type, d->parentObj,
                   d->rank);
}
static ncclResult_t state_v6(void *h, ncclProfilerEventState_v6_t s,
                             ncclProfilerEventStateArgs_v6_t *a) {
  return rec_state(6, h, (int)s, a,
                   rec_host_rccl() ? sizeof(rcclProfilerEventStateArgs_v6_t)
                                   : sizeof *a);
}

/* v7: RCCL 2.31 hands its 24-byte args union too (profiler_rccl_v7.h). */
static ncclResult_t start_v7(void *c, void **h,
                             ncclProfilerEventDescr_v7_t *d) {
  return rec_start(7, c, h, d, sizeof *d, (uint64_t)d->type, d->parentObj,
                   d->rank);
}
static ncclResult_t state_v7(void *h, ncclProfilerEventState_v7_t s,
                             ncclProfilerEventStateArgs_v7_t *a) {
  bool rccl_231 = rec_host_rccl() &&
                  __atomic_load_n(&rec_host_version, __ATOMIC_RELAXED) >= 23100;
  return rec_state(7, h, (int)s, a,
                   rccl_231 ? sizeof(rcclProfilerEventStateArgs_v7_t)
                            : sizeof *a);
}

ncclProfiler_v1_t ncclProfiler_v1 = {"recorder", init_v1,  start_v1,
                                     rec_stop,   state_v1, rec_finalize};
ncclProfiler_v2_t ncclProfiler_v2 = {"recorder", init_v2,  start_v2,
                                     rec_stop,   state_v2, rec_finalize};
ncclProfiler_v3_t ncclProfiler_v3 = {"recorder", init_v3,  start_v3,
                                     rec_stop,   state_v3, rec_finalize};
ncclProfiler_v4_t ncclProfiler_v4 = {"recorder", init_v4,  start_v4,
                                     rec_stop,   state_v4, rec_finalize};
ncclProfiler_v5_t ncclProfiler_v5 = {"recorder", init_v5,  start_v5,
                                     rec_stop,   state_v5, rec_finalize};
ncclProfiler_v6_t ncclProfiler_v6 = {"recorder", init_v6,  start_v6,
                                     rec_stop,   state_v6, rec_finalize};
ncclProfiler_v7_t ncclProfiler_v7 = {"recorder", init_v7,  start_v7,
                                     rec_stop,   state_v7, rec_finalize};
