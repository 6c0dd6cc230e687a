/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/bench_plugin.c — what a profiler plugin costs NCCL's threads.
 *
 * Two measurements, both against the do-nothing plugin
 * (tests/stand_in_plugins/nop_plugin.c) in the same run, because this machine's
 * timings drift:
 *
 *   overhead  Each producer thread replays the callbacks NCCL makes for one
 *             collective with every event enabled (a 2-node ring AllReduce
 *             on 2 channels: API events, Group, Coll, ProxyCtrl, 4 ProxyOps
 *             with 16 steps each, their states, one IB NetPlugin event per
 *             step, 2 KernelCh — 485 callbacks, counted at start-up),
 *             timing each collective.
 *             Rounds alternate baseline and plugin, all threads together.
 *             Reported: median ns per callback of each, and the difference.
 *   sustain   The plugin alone at a fixed callback rate for a duration; the
 *             plugin's own counters (processEnd record) tell whether any
 *             record was dropped.
 *
 * The plugin writes its trace to --out (default: a folder under /tmp).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nccl/profiler.h"

#define CHANNELS 2
#define STEPS_PER_OP 16

typedef struct {
  const char *plugin_path;
  const char *baseline_path;
  const char *mode;
  const char *out_dir;
  int threads;
  int rounds;
  int collectives_per_round;
  int pause_ms;
  double seconds;
  double rate;
} options;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static ncclProfiler_v6_t *load(const char *path) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "bench_plugin: cannot load '%s': %s\n", path, dlerror());
    exit(2);
  }
  ncclProfiler_v6_t *p = dlsym(lib, "ncclProfiler_v6");
  if (!p) {
    fprintf(stderr, "bench_plugin: '%s' exports no ncclProfiler_v6\n", path);
    exit(2);
  }
  return p;
}

/* ---- the workload: one collective's callbacks ---- */

typedef struct {
  ncclProfiler_v6_t *p;
  void *ctx;
  int rank;
  uint64_t seq;
  ncclProfilerNetIbDescr_v1_t qp;
} producer;

static void start(producer *w, void **h, ncclProfilerEventDescr_v6_t *d) {
  w->p->startEvent(w->ctx, h, d);
}

static void state(producer *w, void *h, ncclProfilerEventState_v6_t s,
                  size_t size) {
  ncclProfilerEventStateArgs_v6_t a = {.proxyStep = {.transSize = size}};
  w->p->recordEventState(h, s, &a);
}

static void one_step(producer *w, void *op, int step, bool send) {
  ncclProfilerEventDescr_v6_t d = {.type = ncclProfileProxyStep};
  ncclProfilerEventDescr_v6_t n = {.type = ncclProfileNetPlugin};
  void *s, *net;
  d.parentObj = op;
  d.rank = w->rank;
  d.proxyStep.step = step;
  start(w, &s, &d);
  n.parentObj = s;
  n.rank = w->rank;
  n.netPlugin.id = NCCL_PROFILER_NET_TYPE_IB | NCCL_PROFILER_NET_IB_VER;
  n.netPlugin.data = &w->qp;
  w->qp.qp.wr_id++;
  if (send) {
    state(w, s, ncclProfilerProxyStepSendGPUWait, 0);
    state(w, s, ncclProfilerProxyStepSendPeerWait_v4, 0);
    state(w, s, ncclProfilerProxyStepSendWait, 1 << 20);
    start(w, &net, &n);
    w->p->stopEvent(net);
  } else {
    start(w, &net, &n);
    state(w, s, ncclProfilerProxyStepRecvWait, 0);
    w->p->stopEvent(net);
    state(w, s, ncclProfilerProxyStepRecvFlushWait, 1 << 20);
    state(w, s, ncclProfilerProxyStepRecvGPUWait, 0);
  }
  w->p->stopEvent(s);
}

static void one_collective(producer *w) {
  ncclProfilerEventDescr_v6_t d;
  void *ga, *ca, *kl, *g, *c, *pc, *ops[2 * CHANNELS], *kc[CHANNELS];

  memset(&d, 0, sizeof d);
  d.type = ncclProfileGroupApi;
  d.groupApi.groupDepth = 1;
  start(w, &ga, &d);
  w->p->recordEventState(ga, ncclProfilerGroupStartApiStop, NULL);
  memset(&d, 0, sizeof d);
  d.type = ncclProfileCollApi;
  d.parentObj = ga;
  d.collApi.func = "AllReduce";
  d.collApi.count = 8 << 20;
  d.collApi.datatype = "ncclFloat32";
  start(w, &ca, &d);
  w->p->stopEvent(ca);
  w->p->recordEventState(ga, ncclProfilerGroupEndApiStart, NULL);
  memset(&d, 0, sizeof d);
  d.type = ncclProfileKernelLaunch;
  d.parentObj = ga;
  start(w, &kl, &d);
  w->p->stopEvent(kl);
  memset(&d, 0, sizeof d);
  d.type = ncclProfileGroup;
  start(w, &g, &d);
  memset(&d, 0, sizeof d);
  d.type = ncclProfileColl;
  d.parentObj = ca;
  d.rank = w->rank;
  d.coll.seqNumber = w->seq++;
  d.coll.func = "AllReduce";
  d.coll.count = 8 << 20;
  d.coll.datatype = "ncclFloat32";
  d.coll.nChannels = CHANNELS;
  d.coll.nWarps = 16;
  d.coll.algo = "RING";
  d.coll.proto = "SIMPLE";
  d.coll.parentGroup = g;
  start(w, &c, &d);
  w->p->stopEvent(c);
  w->p->stopEvent(g);
  w->p->stopEvent(ga);

  /* Proxy thread: append window, then progress. */
  memset(&d, 0, sizeof d);
  d.type = ncclProfileProxyCtrl;
  start(w, &pc, &d);
  w->p->recordEventState(pc, ncclProfilerProxyCtrlAppend, NULL);
  for (int i = 0; i < 2 * CHANNELS; i++) {
    memset(&d, 0, sizeof d);
    d.type = ncclProfileProxyOp;
    d.parentObj = c;
    d.rank = w->rank;
    d.proxyOp.pid = getpid();
    d.proxyOp.channelId = (uint8_t)(i / 2);
    d.proxyOp.peer = 1 - w->rank % 2;
    d.proxyOp.nSteps = STEPS_PER_OP;
    d.proxyOp.chunkSize = 4 << 20;
    d.proxyOp.isSend = i % 2;
    start(w, &ops[i], &d);
  }
  ncclProfilerEventStateArgs_v6_t appended = {.proxyCtrl = {4}};
  w->p->recordEventState(pc, ncclProfilerProxyCtrlAppendEnd, &appended);
  w->p->stopEvent(pc);
  for (int i = 0; i < 2 * CHANNELS; i++)
    w->p->recordEventState(ops[i], ncclProfilerProxyOpInProgress_v4, NULL);
  for (int ch = 0; ch < CHANNELS; ch++) {
    memset(&d, 0, sizeof d);
    d.type = ncclProfileKernelCh;
    d.parentObj = c;
    d.kernelCh.channelId = (uint8_t)ch;
    d.kernelCh.pTimer = now_ns();
    start(w, &kc[ch], &d);
  }
  for (int step = 0; step < STEPS_PER_OP; step++)
    for (int i = 0; i < 2 * CHANNELS; i++)
      one_step(w, ops[i], step, i % 2);
  for (int i = 0; i < 2 * CHANNELS; i++)
    w->p->stopEvent(ops[i]);
  for (int ch = 0; ch < CHANNELS; ch++) {
    ncclProfilerEventStateArgs_v6_t a = {.kernelCh = {now_ns()}};
    w->p->recordEventState(kc[ch], ncclProfilerKernelChStop, &a);
    w->p->stopEvent(kc[ch]);
  }
  memset(&d, 0, sizeof d);
  d.type = ncclProfileProxyCtrl;
  start(w, &pc, &d);
  w->p->recordEventState(pc, ncclProfilerProxyCtrlIdle, NULL);
  w->p->stopEvent(pc);
}

/* ---- counting the workload's callbacks exactly ---- */

static unsigned counted;
static int counting_token;
static ncclResult_t count_start(void *c, void **h,
                                ncclProfilerEventDescr_v6_t *d) {
  (void)c;
  (void)d;
  counted++;
  *h = &counting_token;
  return ncclSuccess;
}
static ncclResult_t count_stop(void *h) {
  (void)h;
  counted++;
  return ncclSuccess;
}
static ncclResult_t count_state(void *h, ncclProfilerEventState_v6_t s,
                                ncclProfilerEventStateArgs_v6_t *a) {
  (void)h;
  (void)s;
  (void)a;
  counted++;
  return ncclSuccess;
}

/* Callbacks one collective makes (measured, not hand-counted). */
static unsigned callbacks_per_collective;

static void count_workload(void) {
  ncclProfiler_v6_t counter = {"count",    NULL,        count_start,
                               count_stop, count_state, NULL};
  producer w = {.p = &counter, .ctx = &counting_token};
  counted = 0;
  one_collective(&w);
  callbacks_per_collective = counted;
}

/* ---- overhead mode ---- */

typedef struct overhead_thread {
  const options *o;
  producer base;
  producer plug;
  pthread_barrier_t *barrier;
  struct overhead_thread *first;
  double *samples_base; /* ns per callback, one per collective */
  double *samples_plug;
  size_t n_base, n_plug;
} overhead_thread;

/* Producer i runs on CPU i (mod the CPUs available); the plugin's writer
 * thread is left to the scheduler, as it would be in a real job. */
static void pin_to_cpu(int i) {
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return;
  int n = CPU_COUNT(&allowed), k = i % (n > 0 ? n : 1);
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &allowed) || k--)
      continue;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    return;
  }
}

static void *overhead_main(void *arg) {
  overhead_thread *t = arg;
  pin_to_cpu((int)(t - t->first));
  for (int r = 0; r < t->o->rounds; r++) {
    bool plugin_turn = r % 2;
    producer *w = plugin_turn ? &t->plug : &t->base;
    /* Between rounds (untimed) the writer drains what the last round
     * produced, so no record is dropped and every measured callback took
     * the normal path. */
    struct timespec pause = {0, (long)t->o->pause_ms * 1000000L};
    nanosleep(&pause, NULL);
    pthread_barrier_wait(t->barrier);
    for (int i = 0; i < t->o->collectives_per_round; i++) {
      uint64_t t0 = now_ns();
      one_collective(w);
      double ns = (double)(now_ns() - t0) / callbacks_per_collective;
      if (plugin_turn)
        t->samples_plug[t->n_plug++] = ns;
      else
        t->samples_base[t->n_base++] = ns;
    }
  }
  return NULL;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double quantile(double *v, size_t n, double q) {
  qsort(v, n, sizeof *v, by_value);
  return v[(size_t)(q * (double)(n - 1))];
}

/* The `cclscope` that reads binary traces: $CCLSCOPE_CLI, else the one of
 * this build (bench_plugin is BUILD/bench/bench_plugin, the CLI
 * BUILD/cclscope), else the one on PATH. */
static const char *cli_path(void) {
  static char path[4096];
  const char *env = getenv("CCLSCOPE_CLI");
  if (env && *env)
    return env;
  if (!path[0]) {
    char self[4000];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash = n > 0 ? (self[n] = '\0', strrchr(self, '/')) : NULL;
    if (slash) {
      *slash = '\0';
      snprintf(path, sizeof path, "%s/../cclscope", self);
    }
    if (!path[0] || access(path, X_OK) != 0)
      snprintf(path, sizeof path, "cclscope");
  }
  return path;
}

static bool read_counter(const char *dir, const char *key, double *value) {
  char cmd[16384];
  /* the last line of a plain trace, of a compressed one
   * (CCLSCOPE_COMPRESS=zstd), or of a binary one (CCLSCOPE_FORMAT=binary,
   * through cclscope convert) */
  snprintf(cmd, sizeof cmd,
           "(tail -n 1 %s/trace_*.jsonl; zstdcat %s/trace_*.jsonl.zst | "
           "tail -n 1; '%s' convert -o - %s/trace_*.cst | tail -n 1) "
           "2>/dev/null | grep -o '\"%s\":[0-9]*' | head -n 1 | cut -d: -f2",
           dir, dir, cli_path(), dir, key);
  FILE *p = popen(cmd, "r");
  if (!p)
    return false;
  bool ok = fscanf(p, "%lf", value) == 1;
  pclose(p);
  return ok;
}

/* Bytes of the trace file(s) on disk (plain, compressed or binary). */
static double trace_bytes(const char *dir) {
  char cmd[6300];
  snprintf(cmd, sizeof cmd,
           "cat %s/trace_*.jsonl %s/trace_*.jsonl.zst %s/trace_*.cst "
           "2>/dev/null | wc -c",
           dir, dir, dir);
  FILE *p = popen(cmd, "r");
  double bytes = 0;
  if (p) {
    if (fscanf(p, "%lf", &bytes) != 1)
      bytes = 0;
    pclose(p);
  }
  return bytes;
}

/* Dropped starts: from the trace's processEnd record, or, in metrics-only
 * mode (no trace), from the Prometheus textfile of the final window. */
static double dropped_starts(const char *dir) {
  double v = -1;
  if (read_counter(dir, "droppedStarts", &v))
    return v;
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "grep -h '^cclscope_plugin_dropped_total{.*kind=\"start\"' "
           "%s/*.prom 2>/dev/null | awk '{print $NF}' | head -n 1",
           dir);
  FILE *p = popen(cmd, "r");
  if (!p)
    return -1;
  if (fscanf(p, "%lf", &v) != 1)
    v = -1;
  pclose(p);
  return v;
}

static int run_overhead(const options *o, ncclProfiler_v6_t *base,
                        ncclProfiler_v6_t *plug) {
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, (unsigned)o->threads);
  overhead_thread *t = calloc((size_t)o->threads, sizeof *t);
  size_t per = (size_t)o->rounds * (size_t)o->collectives_per_round;
  int mask;
  for (int i = 0; i < o->threads; i++) {
    t[i].o = o;
    t[i].first = t;
    t[i].barrier = &barrier;
    t[i].samples_base = calloc(per, sizeof(double));
    t[i].samples_plug = calloc(per, sizeof(double));
    t[i].base.p = base;
    t[i].plug.p = plug;
    t[i].base.rank = t[i].plug.rank = i;
    base->init(&t[i].base.ctx, 0x1000 + (uint64_t)i, &mask, "bench", 1,
               o->threads, i, NULL);
    plug->init(&t[i].plug.ctx, 0x2000 + (uint64_t)i, &mask, "bench", 1,
               o->threads, i, NULL);
  }
  pthread_t *tids = calloc((size_t)o->threads, sizeof *tids);
  for (int i = 0; i < o->threads; i++)
    pthread_create(&tids[i], NULL, overhead_main, &t[i]);
  for (int i = 0; i < o->threads; i++)
    pthread_join(tids[i], NULL);
  for (int i = 0; i < o->threads; i++) {
    base->finalize(t[i].base.ctx);
    plug->finalize(t[i].plug.ctx);
  }
  /* Pool all threads' samples. */
  double *all_base = calloc(per * (size_t)o->threads, sizeof(double));
  double *all_plug = calloc(per * (size_t)o->threads, sizeof(double));
  size_t nb = 0, np = 0;
  for (int i = 0; i < o->threads; i++) {
    memcpy(all_base + nb, t[i].samples_base, t[i].n_base * sizeof(double));
    nb += t[i].n_base;
    memcpy(all_plug + np, t[i].samples_plug, t[i].n_plug * sizeof(double));
    np += t[i].n_plug;
  }
  double b50 = quantile(all_base, nb, 0.5), b90 = quantile(all_base, nb, 0.9);
  double p50 = quantile(all_plug, np, 0.5), p90 = quantile(all_plug, np, 0.9);
  printf("overhead threads=%d callbacks/collective=%u collectives=%zu+%zu\n",
         o->threads, callbacks_per_collective, nb, np);
  printf("  baseline  median %.2f ns/callback  p90 %.2f\n", b50, b90);
  printf("  plugin    median %.2f ns/callback  p90 %.2f\n", p50, p90);
  printf("  added     median %.2f ns/callback  (ratio %.2f)\n", p50 - b50,
         p50 / b50);
  double dropped = dropped_starts(o->out_dir);
  printf("  plugin dropped %.0f starts (must be 0 for a valid figure)\n",
         dropped);
  return dropped == 0 ? 0 : 1;
}

/* ---- sustain mode ---- */

/* CPU seconds of this process (RUSAGE_SELF) or thread (RUSAGE_THREAD). */
static double cpu_s(int who) {
  struct rusage ru;
  getrusage(who, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* CPU seconds so far of this process's threads named `name` (the plugin's
 * "cclscope-writer", "cclscope-io"), from /proc/self/task. */
static double thread_cpu_s(const char *name) {
  double total = 0;
  long ticks = sysconf(_SC_CLK_TCK);
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return -1;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.')
      continue;
    char path[300], comm[64] = "", stat[1024];
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", de->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    if (!fgets(comm, sizeof comm, f))
      comm[0] = '\0';
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    if (strcmp(comm, name) != 0)
      continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", de->d_name);
    f = fopen(path, "r");
    if (!f)
      continue;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    /* Fields after the ")" that closes the name: 14 utime, 15 stime. */
    const char *q = strrchr(stat, ')');
    unsigned long ut = 0, st = 0;
    if (q &&
        sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
               &ut, &st) == 2)
      total += (double)(ut + st) / (double)ticks;
  }
  closedir(d);
  return total;
}

/* Seconds the threads named `name` spent runnable but waiting for a CPU
 * (the second field of /proc/self/task/TID/schedstat): what the machine's
 * load took from them. -1 when the kernel does not say. */
static double thread_runqueue_s(const char *name) {
  double total = -1;
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return -1;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.')
      continue;
    char path[300], comm[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", de->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    if (!fgets(comm, sizeof comm, f))
      comm[0] = '\0';
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    if (strcmp(comm, name) != 0)
      continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", de->d_name);
    f = fopen(path, "r");
    if (!f)
      continue;
    unsigned long long on_cpu = 0, waiting = 0;
    if (fscanf(f, "%llu %llu", &on_cpu, &waiting) == 2)
      total = (total < 0 ? 0 : total) + (double)waiting / 1e9;
    fclose(f);
  }
  closedir(d);
  return total;
}

/* ---- time the hypervisor took (steal) ---- */

/* CPUs a steal watch follows at most. */
enum { STEAL_CPUS = 64 };

/* Each CPU's steal so far in clock ticks (/proc/stat's eighth number
 * after "cpuN"): time a virtual machine's CPU was ready but its host ran
 * something else, which the guest's own run-queue times do not see.
 * Returns how many CPUs were read (0: the kernel does not say). */
static int read_steal_ticks(unsigned long long *ticks, int max) {
  FILE *f = fopen("/proc/stat", "r");
  if (!f)
    return 0;
  char line[512];
  int n = 0;
  while (n < max && fgets(line, sizeof line, f)) {
    int cpu;
    unsigned long long v[8];
    if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
      continue;
    if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu,
               &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 9)
      ticks[n++] = v[7];
  }
  fclose(f);
  return n;
}

/* A thread that reads every CPU's steal every 20 ms while a run lasts:
 * how much was stolen in all, and in how many 20 ms windows a CPU lost
 * 10 ms or more (the kernel counts in ticks of 10 ms, so a window shows 0,
 * 10 or 20 ms: it tells a stall from a trickle, no finer). */
typedef struct {
  pthread_t thread;
  atomic_bool stop;
  int ncpu;
  unsigned long long first[STEAL_CPUS], last[STEAL_CPUS];
  unsigned long windows_hit; /* (window, CPU) pairs with a tick or more */
  unsigned long long most;   /* ticks one CPU lost in one window, at most */
} steal_watch;

static void *steal_watch_main(void *arg) {
  steal_watch *w = arg;
  unsigned long long now[STEAL_CPUS];
  while (!atomic_load(&w->stop)) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    if (read_steal_ticks(now, STEAL_CPUS) != w->ncpu)
      continue;
    for (int i = 0; i < w->ncpu; i++) {
      unsigned long long d = now[i] - w->last[i];
      if (d > 0)
        w->windows_hit++;
      if (d > w->most)
        w->most = d;
      w->last[i] = now[i];
    }
  }
  return NULL;
}

/* Start watching (false: the kernel gives no steal times). */
static bool steal_watch_start(steal_watch *w) {
  memset(w, 0, sizeof *w);
  w->ncpu = read_steal_ticks(w->first, STEAL_CPUS);
  if (w->ncpu == 0)
    return false;
  memcpy(w->last, w->first, sizeof w->first);
  return pthread_create(&w->thread, NULL, steal_watch_main, w) == 0;
}

/* Stop when the run ends: its last reading. */
static void steal_watch_stop(steal_watch *w) {
  atomic_store(&w->stop, true);
  pthread_join(w->thread, NULL);
  if (read_steal_ticks(w->last, STEAL_CPUS) != w->ncpu)
    memcpy(w->last, w->first, sizeof w->first);
}

/* Say what was stolen while the run lasted. */
static void steal_watch_report(const steal_watch *w) {
  double tick_s = 1.0 / (double)sysconf(_SC_CLK_TCK);
  printf("  stolen by the host (steal):");
  for (int i = 0; i < w->ncpu; i++)
    printf(" cpu%d %.2f s", i, (double)(w->last[i] - w->first[i]) * tick_s);
  printf("; 20 ms windows in which a CPU lost a tick or more: %lu, the most "
         "in one: %.0f ms\n",
         w->windows_hit, (double)w->most * tick_s * 1e3);
}

typedef struct {
  const options *o;
  producer w;
  uint64_t callbacks;
  uint64_t late_ns; /* how far behind schedule it ended */
  double cpu_s;     /* this thread's CPU time */
} sustain_thread;

static void *sustain_main(void *arg) {
  sustain_thread *t = arg;
  double per_thread_rate = t->o->rate / t->o->threads;
  uint64_t t0 = now_ns();
  uint64_t end = t0 + (uint64_t)(t->o->seconds * 1e9);
  for (;;) {
    uint64_t now = now_ns();
    if (now >= end)
      break;
    /* Where the schedule says we should be; spin if ahead. */
    uint64_t due =
        t0 + (uint64_t)((double)t->callbacks / per_thread_rate * 1e9);
    if (now < due)
      continue;
    one_collective(&t->w);
    t->callbacks += callbacks_per_collective;
  }
  uint64_t planned = (uint64_t)(per_thread_rate * t->o->seconds);
  t->late_ns =
      t->callbacks < planned
          ? (uint64_t)((double)(planned - t->callbacks) / per_thread_rate * 1e9)
          : 0;
  t->cpu_s = cpu_s(RUSAGE_THREAD);
  return NULL;
}

static int run_sustain(const options *o, ncclProfiler_v6_t *plug) {
  sustain_thread *t = calloc((size_t)o->threads, sizeof *t);
  int mask;
  for (int i = 0; i < o->threads; i++) {
    t[i].o = o;
    t[i].w.p = plug;
    t[i].w.rank = i;
    plug->init(&t[i].w.ctx, 0x3000 + (uint64_t)i, &mask, "sustain", 1,
               o->threads, i, NULL);
  }
  pthread_t *tids = calloc((size_t)o->threads, sizeof *tids);
  /* The writer's CPU time: the process's less the producers' (a joined
   * thread's time stays in the process's; this thread only waits). */
  double self0 = cpu_s(RUSAGE_SELF), me0 = cpu_s(RUSAGE_THREAD);
  steal_watch steal;
  bool watching = steal_watch_start(&steal);
  uint64_t t0 = now_ns();
  for (int i = 0; i < o->threads; i++)
    pthread_create(&tids[i], NULL, sustain_main, &t[i]);
  uint64_t total = 0, late = 0;
  double producers_cpu = 0;
  for (int i = 0; i < o->threads; i++) {
    pthread_join(tids[i], NULL);
    total += t[i].callbacks;
    producers_cpu += t[i].cpu_s;
    if (t[i].late_ns > late)
      late = t[i].late_ns;
  }
  double elapsed = (double)(now_ns() - t0) / 1e9;
  if (watching)
    steal_watch_stop(&steal);
  double writer_thread_cpu = thread_cpu_s("cclscope-writer");
  double io_thread_cpu = thread_cpu_s("cclscope-io");
  double writer_runqueue = thread_runqueue_s("cclscope-writer");
  double io_runqueue = thread_runqueue_s("cclscope-io");
  uint64_t f0 = now_ns();
  for (int i = 0; i < o->threads; i++)
    plug->finalize(t[i].w.ctx); /* the last one drains and closes */
  double drain = (double)(now_ns() - f0) / 1e9;
  double writer_cpu = (cpu_s(RUSAGE_SELF) - self0) - producers_cpu -
                      (cpu_s(RUSAGE_THREAD) - me0);
  double ds = -1, dst = -1, dsp = -1, lost = -1, started = -1;
  double disk_wait_ms = -1, disk_waits = -1;
  read_counter(o->out_dir, "diskWaitMs", &disk_wait_ms);
  read_counter(o->out_dir, "diskWaits", &disk_waits);
  read_counter(o->out_dir, "droppedStarts", &ds);
  read_counter(o->out_dir, "droppedStates", &dst);
  read_counter(o->out_dir, "droppedStops", &dsp);
  read_counter(o->out_dir, "linesLost", &lost);
  read_counter(o->out_dir, "eventsStarted", &started);
  printf("sustain threads=%d target %.2f M callbacks/s for %.1f s\n",
         o->threads, o->rate / 1e6, o->seconds);
  printf("  achieved %.2f M callbacks/s (%lu callbacks, behind schedule by "
         "%.1f ms), final drain %.2f s\n",
         (double)total / elapsed / 1e6, (unsigned long)total,
         (double)late / 1e6, drain);
  printf("  plugin counters: eventsStarted %.0f droppedStarts %.0f "
         "droppedStates %.0f droppedStops %.0f linesLost %.0f\n",
         started, ds, dst, dsp, lost);
  printf("  writer CPU %.2f s = %.1f ns per callback, busy %.0f %% of the "
         "run (writer thread %.2f s, I/O thread %.2f s before the final "
         "drain)\n",
         writer_cpu, writer_cpu * 1e9 / (double)total,
         100.0 * writer_cpu / (elapsed + drain), writer_thread_cpu,
         io_thread_cpu);
  /* Where the writer's time went besides its CPU: runnable but without a
   * CPU (the machine's load), or blocked on the I/O thread's full queue
   * (the plugin's diskWaitMs); the rest it slept with nothing to do. */
  printf("  waiting for a CPU: writer thread %.2f s, I/O thread %.2f s; "
         "writer blocked on the I/O queue %.2f s (%.0f times)\n",
         writer_runqueue, io_runqueue, disk_wait_ms / 1e3, disk_waits);
  if (watching)
    steal_watch_report(&steal);
  else
    printf("  stolen by the host (steal): the kernel does not say\n");
  double bytes = trace_bytes(o->out_dir), written = -1;
  read_counter(o->out_dir, "eventsWritten", &written);
  printf("  trace %.1f MB on disk: %.1f bytes per written event, %.2f per "
         "callback\n",
         bytes / 1e6, bytes / (written > 0 ? written : 1),
         bytes / (double)(total > 0 ? total : 1));
  return ds == 0 && dst == 0 && dsp == 0 && lost == 0 ? 0 : 1;
}

/* ---- writer mode ---- */

/* How fast the writer thread turns records into lines: one producer fills
 * a ring big enough for the whole burst (nothing is dropped), then the last
 * finalize waits for the writer to drain it; the drain rate is the writer's
 * throughput. */
static int run_writer(const options *o, ncclProfiler_v6_t *plug) {
  producer w = {.p = plug};
  int mask;
  plug->init(&w.ctx, 0x4000, &mask, "writer", 1, 1, 0, NULL);
  int collectives = (int)(o->rate * o->seconds / callbacks_per_collective);
  /* The writer's CPU time: the process's, less this (producing) thread's;
   * a joined thread's time stays in the process's. Steady under load,
   * unlike wall-clock throughput. */
  double self0 = cpu_s(RUSAGE_SELF), me0 = cpu_s(RUSAGE_THREAD);
  uint64_t t0 = now_ns();
  for (int i = 0; i < collectives; i++)
    one_collective(&w);
  uint64_t t1 = now_ns();
  double me1 = cpu_s(RUSAGE_THREAD);
  double io_thread_cpu = thread_cpu_s("cclscope-io");
  plug->finalize(w.ctx);
  uint64_t t2 = now_ns();
  double writer_cpu = (cpu_s(RUSAGE_SELF) - self0) - (me1 - me0);
  double callbacks = (double)collectives * callbacks_per_collective;
  double lines = -1, dropped = -1;
  read_counter(o->out_dir, "eventsWritten", &lines);
  read_counter(o->out_dir, "droppedStarts", &dropped);
  double bytes = trace_bytes(o->out_dir);
  /* The writer drained during production too: count from the start. */
  double secs = (double)(t2 - t0) / 1e9;
  printf("writer: %.0f callbacks (%d collectives) produced in %.2f s, all "
         "written after %.2f s\n",
         callbacks, collectives, (double)(t1 - t0) / 1e9, secs);
  printf("  writer throughput %.2f M callbacks/s, %.2f M lines/s, %.0f MB/s "
         "to disk (%.1f bytes/line, %.2f bytes/callback), dropped starts "
         "%.0f\n",
         callbacks / secs / 1e6, lines / secs / 1e6, bytes / secs / 1e6,
         bytes / (lines > 0 ? lines : 1), bytes / callbacks, dropped);
  printf("  writer CPU %.2f s = %.1f ns per callback (%.2f M callbacks/s per "
         "core; I/O thread %.2f s before the final drain)\n",
         writer_cpu, writer_cpu * 1e9 / callbacks, callbacks / writer_cpu / 1e6,
         io_thread_cpu);
  return dropped == 0 ? 0 : 1;
}

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: bench_plugin --plugin PATH --baseline PATH [options]\n"
      "  --mode overhead|sustain|writer  what to measure (default overhead)\n"
      "  --threads N              producer threads (default 1)\n"
      "  --rounds N               overhead: alternating rounds (200)\n"
      "  --per-round N            overhead: collectives per round (20)\n"
      "  --pause-ms N             overhead: untimed pause between rounds "
      "(10)\n"
      "  --seconds S              sustain: duration (10)\n"
      "  --rate R                 sustain: callbacks/s, all threads (5e6)\n"
      "  --out DIR                trace folder (default /tmp/bench-<pid>)\n");
}

int main(int argc, char **argv) {
  static char default_out[64];
  options o = {.mode = "overhead",
               .threads = 1,
               .rounds = 200,
               .collectives_per_round = 20,
               .pause_ms = 10,
               .seconds = 10,
               .rate = 5e6};
  static const struct option longopts[] = {
      {"plugin", required_argument, 0, 'p'},
      {"baseline", required_argument, 0, 'b'},
      {"mode", required_argument, 0, 'm'},
      {"threads", required_argument, 0, 't'},
      {"rounds", required_argument, 0, 'r'},
      {"per-round", required_argument, 0, 'c'},
      {"pause-ms", required_argument, 0, 'P'},
      {"seconds", required_argument, 0, 's'},
      {"rate", required_argument, 0, 'R'},
      {"out", required_argument, 0, 'o'},
      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (c) {
    case 'p':
      o.plugin_path = optarg;
      break;
    case 'b':
      o.baseline_path = optarg;
      break;
    case 'm':
      o.mode = optarg;
      break;
    case 't':
      o.threads = atoi(optarg);
      break;
    case 'r':
      o.rounds = atoi(optarg);
      break;
    case 'c':
      o.collectives_per_round = atoi(optarg);
      break;
    case 'P':
      o.pause_ms = atoi(optarg);
      break;
    case 's':
      o.seconds = atof(optarg);
      break;
    case 'R':
      o.rate = atof(optarg);
      break;
    case 'o':
      o.out_dir = optarg;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (!o.plugin_path || !o.baseline_path || o.threads < 1 || o.rounds < 2 ||
      o.collectives_per_round < 1 || o.seconds <= 0 || o.rate <= 0) {
    usage(stderr);
    return 2;
  }
  if (!o.out_dir) {
    snprintf(default_out, sizeof default_out, "/tmp/bench-%d", (int)getpid());
    o.out_dir = default_out;
  }
  mkdir(o.out_dir, 0755);
  setenv("CCLSCOPE_DIR", o.out_dir, 1);
  if (!getenv("CCLSCOPE_MASK"))
    setenv("CCLSCOPE_MASK", "all", 1);
  if (strcmp(o.mode, "writer") == 0 && !getenv("CCLSCOPE_RING_SIZE"))
    setenv("CCLSCOPE_RING_SIZE", "2G", 1); /* room for the whole burst */
  count_workload();
  ncclProfiler_v6_t *plug = load(o.plugin_path);
  ncclProfiler_v6_t *base = load(o.baseline_path);
  if (strcmp(o.mode, "overhead") == 0)
    return run_overhead(&o, base, plug);
  if (strcmp(o.mode, "sustain") == 0)
    return run_sustain(&o, plug);
  if (strcmp(o.mode, "writer") == 0)
    return run_writer(&o, plug);
  usage(stderr);
  return 2;
}
