/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/metrics/metrics_driver.c — a process with known collectives for
 * the exporter tests: N AllReduces of 8 MiB on an 8-rank communicator,
 * each with two KernelCh whose GPU stamps span exactly 1 ms, then it stays
 * alive for S seconds (so Prometheus can scrape / the collector receive)
 * and finalizes. Expected: count N, busBw = 8 MiB / 1 ms * 2*7/8.
 *
 * With METRICS_DRIVER_P2P=1 it also sends to rank 4: P2P Sends of 4 sizes
 * (3 each), each with a network send ProxyOp on channels 0 and 1 whose
 * ProxySteps (SendWait, then stop) take about 50 us + size / 0.5 GB/s (busy
 * wait), so that links and channels have transfers and a fit; and marks
 * two training steps (cclscope_step). Every series the exporters have then
 * has a sample (tests/metrics/prometheus_outputs.sh and otlp_e2e.sh).
 *
 * With METRICS_DRIVER_GO=FILE in the environment it starts the
 * communicator (so the endpoint is up) but waits for FILE to exist before
 * the collectives: window gauges live one window, and the scraper must be
 * running when that window closes.
 *
 * With METRICS_DRIVER_DONE=FILE it stops waiting its SECONDS as soon as
 * FILE exists, then finalizes and exits normally.
 *
 * usage: metrics_driver PLUGIN N SECONDS
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nccl/profiler.h"

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One P2P Send of `bytes` to rank 4 over channels 0 and 1: a ProxyOp per
 * channel with two steps of bytes / 4 each. */
static void send_p2p(ncclProfiler_v6_t *p, void *ctx, size_t bytes) {
  ncclProfilerEventDescr_v6_t d;
  void *op, *proxy[2], *step;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileP2p;
  d.rank = 3;
  d.p2p.func = "Send";
  d.p2p.datatype = "ncclInt8";
  d.p2p.count = bytes;
  d.p2p.peer = 4;
  d.p2p.nChannels = 2;
  p->startEvent(ctx, &op, &d);
  p->stopEvent(op); /* enqueued */
  for (int ch = 0; ch < 2; ch++) {
    memset(&d, 0, sizeof d);
    d.type = ncclProfileProxyOp;
    d.parentObj = op;
    d.rank = 3;
    d.proxyOp.pid = getpid();
    d.proxyOp.channelId = (uint8_t)ch;
    d.proxyOp.peer = 4;
    d.proxyOp.nSteps = 2;
    d.proxyOp.chunkSize = (int)(bytes / 4);
    d.proxyOp.isSend = 1;
    p->startEvent(ctx, &proxy[ch], &d);
    for (int s = 0; s < 2; s++) {
      memset(&d, 0, sizeof d);
      d.type = ncclProfileProxyStep;
      d.parentObj = proxy[ch];
      d.rank = 3;
      d.proxyStep.step = s;
      p->startEvent(ctx, &step, &d);
      ncclProfilerEventStateArgs_v6_t a = {.proxyStep = {bytes / 4}};
      p->recordEventState(step, ncclProfilerProxyStepSendWait, &a);
      uint64_t until = monotonic_ns() + 50000 + (uint64_t)(bytes / 4) * 2;
      while (monotonic_ns() < until) {
      }
      p->stopEvent(step);
    }
    p->stopEvent(proxy[ch]);
  }
}

static uint64_t realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: metrics_driver PLUGIN N SECONDS\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "metrics_driver: %s\n", dlerror());
    return 1;
  }
  ncclProfiler_v6_t *p = dlsym(lib, "ncclProfiler_v6");
  int n = atoi(argv[2]);
  double seconds = atof(argv[3]);
  int mask = 0;
  void *ctx = NULL;
  p->init(&ctx, 0x51, &mask, "metrics-test", 1, 8, 3, NULL);
  const char *go = getenv("METRICS_DRIVER_GO");
  for (int waited_ms = 0; go && access(go, F_OK) != 0; waited_ms += 10) {
    if (waited_ms > 60000) {
      fprintf(stderr, "metrics_driver: %s never appeared\n", go);
      return 1;
    }
    usleep(10000);
  }
  for (int i = 0; i < n; i++) {
    ncclProfilerEventDescr_v6_t d;
    void *c, *kc[2];
    memset(&d, 0, sizeof d);
    d.type = ncclProfileColl;
    d.rank = 3;
    d.coll.func = "AllReduce";
    d.coll.datatype = "ncclFloat32";
    d.coll.count = 2u << 20; /* 8 MiB */
    d.coll.seqNumber = (uint64_t)i;
    d.coll.nChannels = 2;
    d.coll.algo = "RING";
    d.coll.proto = "SIMPLE";
    p->startEvent(ctx, &c, &d);
    p->stopEvent(c);
    /* The GPU ran [now - 2 ms, now - 1 ms]: stamps precede observation. */
    uint64_t now = realtime_ns();
    for (int ch = 0; ch < 2; ch++) {
      memset(&d, 0, sizeof d);
      d.type = ncclProfileKernelCh;
      d.parentObj = c;
      d.kernelCh.channelId = (uint8_t)ch;
      d.kernelCh.pTimer = now - 2000000;
      p->startEvent(ctx, &kc[ch], &d);
    }
    for (int ch = 0; ch < 2; ch++) {
      ncclProfilerEventStateArgs_v6_t a = {.kernelCh = {now - 1000000}};
      p->recordEventState(kc[ch], ncclProfilerKernelChStop, &a);
      p->stopEvent(kc[ch]);
    }
    usleep(200);
  }
  fprintf(stderr, "metrics_driver: %d collectives emitted\n", n);
  const char *p2p = getenv("METRICS_DRIVER_P2P");
  if (p2p && strcmp(p2p, "1") == 0) {
    int (*step)(int64_t) = (int (*)(int64_t))dlsym(lib, "cclscope_step");
    if (step)
      step(1);
    for (int rep = 0; rep < 3; rep++)
      for (size_t kib = 64; kib <= 512; kib *= 2)
        send_p2p(p, ctx, kib << 10);
    if (step)
      step(2);
    fprintf(stderr, "metrics_driver: 12 sends emitted\n");
  }
  /* METRICS_DRIVER_DONE=FILE: stop waiting as soon as FILE exists. */
  const char *done = getenv("METRICS_DRIVER_DONE");
  for (double waited = 0; waited < seconds; waited += 0.01) {
    if (done && access(done, F_OK) == 0)
      break;
    usleep(10000);
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  p->finalize(ctx);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "metrics_driver: finalize took %.0f ms\n",
          (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
              (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
  dlclose(lib);
  return 0;
}
