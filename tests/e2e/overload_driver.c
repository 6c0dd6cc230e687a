/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/e2e/overload_driver.c — drives the plugin far faster than its
 * writer can follow: THREADS threads each emit, as fast as they can, a
 * GroupApi > CollApi > Coll with two KernelCh and a ProxyOp of four
 * ProxySteps, each step with a NetPlugin event and states. With a small
 * CCLSCOPE_RING_SIZE most starts, states and stops are dropped, in every
 * pattern (parents dropped with their children kept, children dropped
 * under kept parents, stops of kept events dropped).
 *
 * usage: overload_driver PLUGIN THREADS SECONDS
 *   SECONDS > 0: run that long, finalize and exit 0;
 *   SECONDS = 0: run until killed (the SIGKILL test), after printing
 *                "running" once the first operations are out;
 *   THREADS = 0: no operations at all (with SECONDS = 0: "running" as soon
 *                as the plugin is initialized, for a kill at the start).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nccl/profiler.h"

typedef ncclProfilerEventDescr_v6_t descr;

typedef struct {
  ncclProfiler_v6_t *p;
  void *ctx;
  int rank;
} worker_arg;

static atomic_bool stop_now;
static atomic_long operations;

static void *start(ncclProfiler_v6_t *p, void *ctx, descr *d) {
  void *h = NULL;
  p->startEvent(ctx, &h, d);
  return h;
}

static void one_operation(const worker_arg *w, uint64_t seq) {
  ncclProfiler_v6_t *p = w->p;
  descr d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileGroupApi;
  d.groupApi.groupDepth = 1;
  void *group = start(p, w->ctx, &d);

  memset(&d, 0, sizeof d);
  d.type = ncclProfileCollApi;
  d.parentObj = group;
  d.collApi.func = "AllReduce";
  d.collApi.count = 1024;
  d.collApi.datatype = "ncclFloat32";
  void *api = start(p, w->ctx, &d);

  memset(&d, 0, sizeof d);
  d.type = ncclProfileColl;
  d.parentObj = api;
  d.rank = w->rank;
  d.coll.func = "AllReduce";
  d.coll.datatype = "ncclFloat32";
  d.coll.count = 1024;
  d.coll.seqNumber = seq;
  d.coll.nChannels = 2;
  d.coll.algo = "RING";
  d.coll.proto = "SIMPLE";
  void *coll = start(p, w->ctx, &d);
  p->stopEvent(coll); /* enqueued: stops before its children */
  p->stopEvent(api);

  void *kernel[2];
  for (int ch = 0; ch < 2; ch++) {
    memset(&d, 0, sizeof d);
    d.type = ncclProfileKernelCh;
    d.parentObj = coll;
    d.kernelCh.channelId = (uint8_t)ch;
    kernel[ch] = start(p, w->ctx, &d);
  }

  memset(&d, 0, sizeof d);
  d.type = ncclProfileProxyOp;
  d.parentObj = coll;
  d.rank = w->rank;
  d.proxyOp.pid = getpid();
  d.proxyOp.peer = 1;
  d.proxyOp.nSteps = 4;
  d.proxyOp.isSend = 1;
  void *op = start(p, w->ctx, &d);
  ncclProfilerEventStateArgs_v6_t none;
  memset(&none, 0, sizeof none);
  p->recordEventState(op, ncclProfilerProxyOpInProgress_v4, &none);
  for (int s = 0; s < 4; s++) {
    memset(&d, 0, sizeof d);
    d.type = ncclProfileProxyStep;
    d.parentObj = op;
    d.rank = w->rank;
    d.proxyStep.step = s;
    void *step = start(p, w->ctx, &d);
    ncclProfilerEventStateArgs_v6_t a = {.proxyStep = {.transSize = 4096}};
    p->recordEventState(step, ncclProfilerProxyStepSendGPUWait, &a);
    memset(&d, 0, sizeof d);
    d.type = ncclProfileNetPlugin;
    d.parentObj = step;
    d.netPlugin.id = 0; /* not a known network: no descriptor is read */
    void *net = start(p, w->ctx, &d);
    p->stopEvent(net);
    p->recordEventState(step, ncclProfilerProxyStepSendWait, &a);
    p->stopEvent(step);
  }
  p->stopEvent(op);
  for (int ch = 0; ch < 2; ch++)
    p->stopEvent(kernel[ch]);
  p->stopEvent(group);
}

static void *worker(void *arg) {
  const worker_arg *w = arg;
  for (uint64_t seq = 0; !atomic_load_explicit(&stop_now, memory_order_relaxed);
       seq++) {
    one_operation(w, seq);
    atomic_fetch_add_explicit(&operations, 1, memory_order_relaxed);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: overload_driver PLUGIN THREADS SECONDS\n");
    return 2;
  }
  int threads = atoi(argv[2]);
  double seconds = atof(argv[3]);
  if (threads < 0 || threads > 64 || seconds < 0) {
    fprintf(stderr, "overload_driver: THREADS 0..64, SECONDS >= 0\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "overload_driver: %s\n", dlerror());
    return 1;
  }
  ncclProfiler_v6_t *p = dlsym(lib, "ncclProfiler_v6");
  if (!p) {
    fprintf(stderr, "overload_driver: no ncclProfiler_v6\n");
    return 1;
  }
  int mask = 0;
  void *ctx = NULL;
  p->init(&ctx, 0x1, &mask, "overload", 1, threads, 0, NULL);

  pthread_t tid[64];
  worker_arg args[64];
  for (int i = 0; i < threads; i++) {
    args[i] = (worker_arg){p, ctx, i};
    if (pthread_create(&tid[i], NULL, worker, &args[i]) != 0) {
      fprintf(stderr, "overload_driver: cannot start a thread\n");
      return 1;
    }
  }
  if (seconds == 0) {
    while (threads > 0 && atomic_load(&operations) < 1000)
      usleep(1000);
    printf("running\n");
    fflush(stdout);
    for (;;)
      pause(); /* until killed */
  }
  struct timespec ts = {(time_t)seconds,
                        (long)((seconds - (double)(time_t)seconds) * 1e9)};
  nanosleep(&ts, NULL);
  atomic_store(&stop_now, true);
  for (int i = 0; i < threads; i++)
    pthread_join(tid[i], NULL);
  p->finalize(ctx);
  printf("%ld operations by %d threads\n", atomic_load(&operations), threads);
  dlclose(lib);
  return 0;
}
