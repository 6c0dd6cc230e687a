/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/gen_trace.c — writes real cclscope traces for the CLI tests.
 *
 * It dlopens the plugin (build/libnccl-profiler-cclscope.so), forks one
 * process per "rank" and drives ncclProfiler_v6 the way NCCL does for a
 * ring AllReduce with network proxies, with KNOWN timing:
 *
 *   - every collective starts with all ranks aligned on a process-shared
 *     barrier; rank --delay-rank then sleeps --delay-us before it calls
 *     (it is the straggler: its CollApi/Coll start late);
 *   - the proxy thread of each rank sends to rank+1 and receives from
 *     rank-1 on --channels channels, --steps steps per channel; each send
 *     step stays in SendWait for exactly --lat-us + bytes / --bw-gbps, each
 *     receive step in RecvWait for the same time (the network model);
 *   - the Coll is stopped after a second barrier, i.e. when every rank has
 *     finished: this generator emulates a blocking collective, so the host
 *     (enqueue) span of the Coll ends at completion;
 *   - --pxn: every rank also runs one ProxyOp on behalf of its partner rank
 *     (rank ^ 1) whose parent is the partner's Coll handle (PXN), so traces
 *     contain foreign parents that resolve across files;
 *   - --kill-rank R: rank R leaves with _exit() after its last collective,
 *     without finalize (as if killed): its file has no processEnd;
 *   - --clean: remove *.jsonl files already in --dir first.
 *
 * Sizes: collective k uses --sizes[k % nsizes] bytes per step; Coll count is
 * steps * channels * size / 4 floats. Output: DIR/trace_gen_<host>_pid*.jsonl
 * (CCLSCOPE_DIR, CCLSCOPE_JOB_ID=gen, CCLSCOPE_HOSTNAME=node<rank/2>).
 * Exit status 0 when every rank exited 0.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nccl/profiler.h"

typedef struct {
  const char *plugin;
  const char *dir;
  int ranks;
  int iters;
  int delay_rank;
  double delay_us;
  double lat_us;
  double bw_gbps;
  int channels;
  int steps;
  unsigned long long sizes[16];
  int nsizes;
  int pxn;
  int kill_rank;
  int clean;
  const char *mask;
} gen_options;

/* Shared between the rank processes (anonymous shared mapping). */
typedef struct {
  pthread_barrier_t barrier;
  void *coll_handle[64]; /* this collective's Coll handle, per rank (PXN) */
  pid_t pid[64];
} gen_shared;

/* Work handed from the main thread to the proxy thread. */
typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int pending; /* 1: work to do, 0: idle */
  int quit;
  void *coll; /* parent of the ProxyOps */
  void *partner_coll;
  pid_t partner_pid;
  unsigned long long step_bytes;
} proxy_work;

static gen_options opt;
static gen_shared *shared;
static ncclProfiler_v6_t *prof;
static void *context;
static int my_rank;
static proxy_work work = {PTHREAD_MUTEX_INITIALIZER,
                          PTHREAD_COND_INITIALIZER,
                          0,
                          0,
                          NULL,
                          NULL,
                          0,
                          0};

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Wait until `deadline` (CLOCK_MONOTONIC ns): sleep most of it, spin the
 * rest, so that durations are exact to a few microseconds. */
static void wait_until(long long deadline) {
  long long left = deadline - now_ns();
  if (left > 200000) {
    struct timespec ts = {0, (long)(left - 150000)};
    while (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    nanosleep(&ts, NULL);
  }
  while (now_ns() < deadline)
    ;
}

static long long transfer_ns(unsigned long long bytes) {
  /* bw GB/s = bw bytes/ns */
  return (long long)(opt.lat_us * 1000.0 + (double)bytes / opt.bw_gbps);
}

static void *start(ncclProfilerEventDescr_v6_t *d) {
  void *h = NULL;
  prof->startEvent(context, &h, d);
  return h;
}

static void state(void *h, ncclProfilerEventState_v6_t s, size_t trans) {
  ncclProfilerEventStateArgs_v6_t a;
  memset(&a, 0, sizeof a);
  a.proxyStep.transSize = trans;
  prof->recordEventState(h, s, &a);
}

static void proxy_op(void *parent, int channel, int peer, int is_send,
                     pid_t origin_pid, unsigned long long step_bytes) {
  ncclProfilerEventDescr_v6_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileProxyOp;
  d.parentObj = parent;
  d.rank = origin_pid == getpid() ? my_rank : (my_rank ^ 1);
  d.proxyOp.pid = origin_pid;
  d.proxyOp.channelId = (uint8_t)channel;
  d.proxyOp.peer = peer;
  d.proxyOp.nSteps = opt.steps;
  d.proxyOp.chunkSize = (int)step_bytes;
  d.proxyOp.isSend = is_send;
  int rank = d.rank;
  void *op = start(&d);
  state(op, ncclProfilerProxyOpInProgress_v4, 0);
  for (int s = 0; s < opt.steps; s++) {
    memset(&d, 0, sizeof d);
    d.type = ncclProfileProxyStep;
    d.parentObj = op;
    d.rank = rank; /* under PXN: the originating rank */
    d.proxyStep.step = s;
    void *st = start(&d);
    if (is_send) {
      state(st, ncclProfilerProxyStepSendGPUWait, 0);
      state(st, ncclProfilerProxyStepSendWait, step_bytes);
      wait_until(now_ns() + transfer_ns(step_bytes));
    } else {
      state(st, ncclProfilerProxyStepRecvWait, 0);
      wait_until(now_ns() + transfer_ns(step_bytes));
      state(st, ncclProfilerProxyStepRecvFlushWait, step_bytes);
      state(st, ncclProfilerProxyStepRecvGPUWait, 0);
    }
    prof->stopEvent(st);
  }
  prof->stopEvent(op);
}

static void *proxy_main(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "NCCL Progress 0");
  pthread_mutex_lock(&work.lock);
  for (;;) {
    while (!work.pending && !work.quit)
      pthread_cond_wait(&work.cond, &work.lock);
    if (work.quit)
      break;
    pthread_mutex_unlock(&work.lock);
    int next = (my_rank + 1) % opt.ranks;
    int prev = (my_rank + opt.ranks - 1) % opt.ranks;
    for (int c = 0; c < opt.channels; c++) {
      proxy_op(work.coll, c, next, 1, getpid(), work.step_bytes);
      proxy_op(work.coll, c, prev, 0, getpid(), work.step_bytes);
    }
    if (work.partner_coll) /* PXN: the partner's send, through our NIC */
      proxy_op(work.partner_coll, 0, ((my_rank ^ 1) + 1) % opt.ranks, 1,
               work.partner_pid, work.step_bytes);
    pthread_mutex_lock(&work.lock);
    work.pending = 0;
    pthread_cond_broadcast(&work.cond);
  }
  pthread_mutex_unlock(&work.lock);
  return NULL;
}

static void log_ignore(ncclDebugLogLevel level, unsigned long flags,
                       const char *file, int line, const char *fmt, ...) {
  (void)level;
  (void)flags;
  (void)file;
  (void)line;
  (void)fmt;
}

static void one_collective(unsigned long long seq, unsigned long long bytes) {
  ncclProfilerEventDescr_v6_t d;
  pthread_barrier_wait(&shared->barrier);
  if (my_rank == opt.delay_rank && opt.delay_us > 0)
    wait_until(now_ns() + (long long)(opt.delay_us * 1000.0));

  memset(&d, 0, sizeof d);
  d.type = ncclProfileGroupApi;
  d.rank = my_rank;
  d.groupApi.groupDepth = 1;
  void *group_api = start(&d);

  unsigned long long count = bytes * (unsigned long long)opt.steps *
                             (unsigned long long)opt.channels / 4;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileCollApi;
  d.parentObj = group_api;
  d.rank = my_rank;
  d.collApi.func = "AllReduce";
  d.collApi.count = count;
  d.collApi.datatype = "ncclFloat32";
  d.collApi.stream = (void *)0x7f00;
  void *coll_api = start(&d);

  memset(&d, 0, sizeof d);
  d.type = ncclProfileGroup;
  d.rank = my_rank;
  void *group = start(&d);

  memset(&d, 0, sizeof d);
  d.type = ncclProfileColl;
  d.parentObj = coll_api;
  d.rank = my_rank;
  d.coll.seqNumber = seq;
  d.coll.func = "AllReduce";
  d.coll.sendBuff = (void *)0x10000;
  d.coll.recvBuff = (void *)0x20000;
  d.coll.count = count;
  d.coll.datatype = "ncclFloat32";
  d.coll.nChannels = (uint8_t)opt.channels;
  d.coll.nWarps = 16;
  d.coll.algo = "RING";
  d.coll.proto = "SIMPLE";
  d.coll.parentGroup = group;
  void *coll = start(&d);
  prof->stopEvent(coll_api);

  shared->coll_handle[my_rank] = coll;
  pthread_barrier_wait(&shared->barrier);
  int partner = my_rank ^ 1;
  pthread_mutex_lock(&work.lock);
  work.coll = coll;
  work.partner_coll = NULL;
  if (opt.pxn && partner < opt.ranks) {
    work.partner_coll = shared->coll_handle[partner];
    work.partner_pid = shared->pid[partner];
  }
  work.step_bytes = bytes;
  work.pending = 1;
  pthread_cond_broadcast(&work.cond);
  while (work.pending)
    pthread_cond_wait(&work.cond, &work.lock);
  pthread_mutex_unlock(&work.lock);

  pthread_barrier_wait(&shared->barrier); /* everyone done: completion */
  prof->stopEvent(coll);
  prof->stopEvent(group);
  prof->stopEvent(group_api);
}

static int run_rank(int rank) {
  char host[32];
  my_rank = rank;
  snprintf(host, sizeof host, "node%d", rank / 2);
  setenv("CCLSCOPE_DIR", opt.dir, 1);
  setenv("CCLSCOPE_JOB_ID", "gen", 1);
  setenv("CCLSCOPE_HOSTNAME", host, 1);
  setenv("CCLSCOPE_MASK", opt.mask, 1);
  setenv("CCLSCOPE_FLUSH_INTERVAL", "0.05", 1);
  void *lib = dlopen(opt.plugin, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "gen_trace: %s\n", dlerror());
    return 1;
  }
  prof = (ncclProfiler_v6_t *)dlsym(lib, "ncclProfiler_v6");
  if (!prof) {
    fprintf(stderr, "gen_trace: no ncclProfiler_v6 in %s\n", opt.plugin);
    return 1;
  }
  int mask = 0;
  prof->init(&context, 0xc0ffee1234ULL, &mask, "gencomm", (opt.ranks + 1) / 2,
             opt.ranks, rank, log_ignore);
  pthread_t proxy;
  pthread_create(&proxy, NULL, proxy_main, NULL);
  unsigned long long seq = 0;
  for (int it = 0; it < opt.iters; it++)
    for (int s = 0; s < opt.nsizes; s++)
      one_collective(seq++, opt.sizes[s]);
  pthread_mutex_lock(&work.lock);
  work.quit = 1;
  pthread_cond_broadcast(&work.cond);
  pthread_mutex_unlock(&work.lock);
  pthread_join(proxy, NULL);
  if (rank == opt.kill_rank) {
    struct timespec ts = {0, 300000000L}; /* let the writer flush */
    nanosleep(&ts, NULL);
    _exit(0);
  }
  prof->finalize(context);
  dlclose(lib);
  return 0;
}

static int parse_sizes(const char *text) {
  opt.nsizes = 0;
  const char *p = text;
  while (*p && opt.nsizes < 16) {
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (end == p || v == 0)
      return -1;
    if (*end == 'K' || *end == 'k')
      v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
      v <<= 20, end++;
    opt.sizes[opt.nsizes++] = v;
    if (*end == ',')
      end++;
    else if (*end)
      return -1;
    p = end;
  }
  return opt.nsizes > 0 ? 0 : -1;
}

/* --clean: remove *.jsonl files of an earlier run from the folder. */
static void remove_old_traces(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n > 6 && strcmp(e->d_name + n - 6, ".jsonl") == 0) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  }
  closedir(d);
}

static void usage(void) {
  fprintf(stderr,
          "usage: gen_trace --plugin SO --dir DIR [--ranks N] [--iters K]\n"
          "  [--delay-rank R --delay-us X] [--lat-us L] [--bw-gbps B]\n"
          "  [--channels C] [--steps S] [--sizes 64K,256K,1M] [--pxn]\n"
          "  [--kill-rank R] [--mask MASK] [--clean]\n");
}

int main(int argc, char **argv) {
  opt.ranks = 4;
  opt.iters = 3;
  opt.delay_rank = -1;
  opt.lat_us = 20;
  opt.bw_gbps = 2;
  opt.channels = 2;
  opt.steps = 2;
  opt.kill_rank = -1;
  opt.mask = "all";
  parse_sizes("64K,256K,1M");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--pxn")) {
      opt.pxn = 1;
      continue;
    }
    if (!strcmp(a, "--clean")) {
      opt.clean = 1;
      continue;
    }
    if (!v) {
      usage();
      return 2;
    }
    i++;
    if (!strcmp(a, "--plugin"))
      opt.plugin = v;
    else if (!strcmp(a, "--dir"))
      opt.dir = v;
    else if (!strcmp(a, "--ranks"))
      opt.ranks = atoi(v);
    else if (!strcmp(a, "--iters"))
      opt.iters = atoi(v);
    else if (!strcmp(a, "--delay-rank"))
      opt.delay_rank = atoi(v);
    else if (!strcmp(a, "--delay-us"))
      opt.delay_us = atof(v);
    else if (!strcmp(a, "--lat-us"))
      opt.lat_us = atof(v);
    else if (!strcmp(a, "--bw-gbps"))
      opt.bw_gbps = atof(v);
    else if (!strcmp(a, "--channels"))
      opt.channels = atoi(v);
    else if (!strcmp(a, "--steps"))
      opt.steps = atoi(v);
    else if (!strcmp(a, "--kill-rank"))
      opt.kill_rank = atoi(v);
    else if (!strcmp(a, "--mask"))
      opt.mask = v;
    else if (!strcmp(a, "--sizes")) {
      if (parse_sizes(v) != 0) {
        usage();
        return 2;
      }
    } else {
      usage();
      return 2;
    }
  }
  if (!opt.plugin || !opt.dir || opt.ranks < 1 || opt.ranks > 64 ||
      opt.bw_gbps <= 0 || opt.channels < 1 || opt.steps < 1) {
    usage();
    return 2;
  }
  if (opt.clean)
    remove_old_traces(opt.dir);
  shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    perror("gen_trace: mmap");
    return 1;
  }
  pthread_barrierattr_t ba;
  pthread_barrierattr_init(&ba);
  pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
  pthread_barrier_init(&shared->barrier, &ba, (unsigned)opt.ranks);
  pid_t kids[64];
  for (int r = 0; r < opt.ranks; r++) {
    kids[r] = fork();
    if (kids[r] < 0) {
      perror("gen_trace: fork");
      return 1;
    }
    if (kids[r] == 0) {
      shared->pid[r] = getpid();
      _exit(run_rank(r));
    }
    shared->pid[r] = kids[r];
  }
  int failed = 0;
  for (int r = 0; r < opt.ranks; r++) {
    int st = 0;
    while (waitpid(kids[r], &st, 0) < 0 && errno == EINTR)
      ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "gen_trace: rank %d failed (status %d)\n", r, st);
      failed = 1;
    }
  }
  return failed;
}
