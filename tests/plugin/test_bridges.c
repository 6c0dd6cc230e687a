/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_bridges.c — the bridges' threading rules (bridge.h)
 * in the cases NCCL's normal call sequences (and so ncclemu) do not
 * produce: an event stopped on another thread than the one that started
 * it, stops out of LIFO order, repeated and foreign stops, a stack deeper
 * than the limit, a KernelLaunch stopped elsewhere. The real plugin is
 * driven directly; tests/stand_in_plugins/nvtx_recorder and fake_cupti record
 * what the tools saw. Each case runs in a child process (NVTX attaches a tool
 * once per process); the parent reads the child's recordings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin_driver.h"

static char work[4096];

/* ---- the child's side ---- */

typedef ncclProfilerEventDescr_v6_t descr;

static ncclProfiler_v6_t *p;
static void *ctx;

static void *start(uint64_t type, void *parent, const char *func) {
  descr d;
  void *h = NULL;
  memset(&d, 0, sizeof d);
  d.type = type;
  d.parentObj = parent;
  if (type == ncclProfileColl) {
    d.coll.func = func;
    d.coll.seqNumber = 7;
    d.coll.datatype = "ncclFloat32";
    d.coll.count = 1024;
  } else if (type == ncclProfileP2p) {
    d.p2p.func = func;
    d.p2p.datatype = "ncclFloat32";
    d.p2p.count = 256;
  } else if (type == ncclProfileCollApi) {
    d.collApi.func = func;
    d.collApi.count = 99;
    d.collApi.datatype = "ncclFloat32";
  }
  p->startEvent(ctx, &h, &d);
  return h;
}

static void stop(void *h) {
  p->stopEvent(h);
}

static void *launch_elsewhere(void *arg) {
  stop(arg); /* a KernelLaunch started on the main thread */
  return NULL;
}

/* Runs `body` in a child with both bridges on; returns the child's pid. */
static pid_t run_child(void (*body)(void)) {
  pid_t pid = fork();
  if (pid == 0) {
    driver_t d;
    driver_open(&d);
    p = d.v6;
    int mask = 0;
    p->init(&ctx, 1, &mask, "bridges", 1, 1, 0, NULL);
    body();
    p->finalize(ctx);
    driver_close(&d);
    driver_cleanup(&d);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return pid;
}

/* ---- the parent's side: what the recorders wrote ---- */

typedef struct {
  long tid;
  char call[24];
  char msg[64];
  long cat;
} nvtx_call;

/* The push/pop/mark calls of one child, in order. */
static size_t read_nvtx(pid_t pid, nvtx_call *out, size_t max) {
  char path[4200];
  snprintf(path, sizeof path, "%s/nvtx.%d", work, (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  char line[2048];
  size_t n = 0;
  while (fgets(line, sizeof line, f) && n < max) {
    cJSON *o = cJSON_Parse(line);
    assert_non_null(o);
    const char *call = json_str(o, "call");
    if (call && (strcmp(call, "push") == 0 || strcmp(call, "pop") == 0 ||
                 strcmp(call, "mark") == 0)) {
      nvtx_call *c = &out[n++];
      c->tid = (long)json_num(o, "tid");
      snprintf(c->call, sizeof c->call, "%s", call);
      snprintf(c->msg, sizeof c->msg, "%s",
               json_str(o, "msg") ? json_str(o, "msg") : "");
      c->cat = strcmp(call, "pop") ? (long)json_num(o, "cat") : -1;
    }
    cJSON_Delete(o);
  }
  fclose(f);
  return n;
}

#if CCLSCOPE_HAVE_NVTX

typedef struct {
  void *to_stop;   /* stopped on the other thread */
  void *own_group; /* the other thread's own range */
  long tid;
} other_args;

static void *other_thread(void *arg) {
  other_args *a = arg;
  a->tid = (long)syscall(SYS_gettid);
  void *g = start(ncclProfileGroup, NULL, NULL);
  stop(a->to_stop); /* not on this thread's stack: nothing is popped */
  stop(g);          /* its own range: popped */
  return NULL;
}

/* "push:Group push:AllReduce pop pop" for the calls of thread `tid`
 * (0 = the first thread that made a call). */
static void sequence(const nvtx_call *c, size_t n, long tid, char *out,
                     size_t len) {
  out[0] = '\0';
  if (tid == 0 && n)
    tid = c[0].tid;
  for (size_t i = 0; i < n; i++) {
    if (c[i].tid != tid)
      continue;
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s%s%s%s", used ? " " : "", c[i].call,
             strcmp(c[i].call, "pop") ? ":" : "",
             strcmp(c[i].call, "pop") ? c[i].msg : "");
  }
}

static size_t count_thread(const nvtx_call *c, size_t n, long tid) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    k += c[i].tid == tid;
  return k;
}

static long other_tid;

static void body_cross_thread(void) {
  void *g = start(ncclProfileGroup, NULL, NULL);
  void *c = start(ncclProfileColl, g, "AllReduce");
  other_args a = {.to_stop = c};
  pthread_t t;
  pthread_create(&t, NULL, other_thread, &a);
  pthread_join(t, NULL);
  stop(g); /* closes the Coll still open on this thread, then the Group */
  /* tell the parent which thread was the other one */
  FILE *f = fopen(getenv("BRIDGES_TID_FILE"), "w");
  fprintf(f, "%ld\n", a.tid);
  fclose(f);
}

/* A Coll stopped on another thread stays open on its own thread until
 * the Group below it closes; the other thread pops only its own range. */
static void cross_thread_stop(void **state) {
  (void)state;
  char tid_file[4200];
  snprintf(tid_file, sizeof tid_file, "%s/tid", work);
  setenv("BRIDGES_TID_FILE", tid_file, 1);
  pid_t pid = run_child(body_cross_thread);
  FILE *f = fopen(tid_file, "r");
  assert_non_null(f);
  assert_int_equal(fscanf(f, "%ld", &other_tid), 1);
  fclose(f);
  nvtx_call c[64];
  size_t n = read_nvtx(pid, c, 64);
  char seq[512];
  sequence(c, n, 0, seq, sizeof seq);
  assert_string_equal(seq, "push:Group push:AllReduce pop pop");
  sequence(c, n, other_tid, seq, sizeof seq);
  assert_string_equal(seq, "push:Group pop");
  assert_int_equal(n, 6);
}

static void body_out_of_order(void) {
  void *g = start(ncclProfileGroup, NULL, NULL);
  void *c1 = start(ncclProfileColl, g, "AllReduce");
  void *c2 = start(ncclProfileColl, g, "AllGather");
  void *c3 = start(ncclProfileColl, g, "ReduceScatter");
  stop(c2); /* closes c3 first, then c2 */
  stop(c3); /* already closed: nothing */
  stop(c1);
  stop(c1);   /* a double stop (NCCL does that to CollApi, §6.2) */
  stop(NULL); /* NetPlugin completions (§3.2) */
  stop((void *)(uintptr_t)0x1234); /* not ours */
  stop(g);
}

/* NCCL starts every task of a plan before it stops any: a stop closes
 * what lies above it; repeated, NULL and foreign stops pop nothing. */
static void out_of_order_stops(void **state) {
  (void)state;
  pid_t pid = run_child(body_out_of_order);
  nvtx_call c[64];
  size_t n = read_nvtx(pid, c, 64);
  char seq[512];
  sequence(c, n, 0, seq, sizeof seq);
  assert_string_equal(seq, "push:Group push:AllReduce push:AllGather "
                           "push:ReduceScatter pop pop pop pop");
  assert_int_equal(count_thread(c, n, c[0].tid), n);
}

static void body_too_deep(void) {
  void *g = start(ncclProfileGroup, NULL, NULL);
  void *first = NULL;
  for (int i = 0; i < 140; i++) { /* an AlltoAll on 70 ranks */
    void *h = start(ncclProfileP2p, g, i % 2 ? "Recv" : "Send");
    if (!first)
      first = h;
  }
  stop(first); /* closes all of them */
  stop(g);
}

/* Beyond the depth limit ranges are skipped, and the rest stays
 * balanced. */
static void deeper_than_the_limit(void **state) {
  (void)state;
  pid_t pid = run_child(body_too_deep);
  nvtx_call c[512];
  size_t n = read_nvtx(pid, c, 512);
  size_t pushes = 0, pops = 0;
  for (size_t i = 0; i < n; i++) {
    pushes += strcmp(c[i].call, "push") == 0;
    pops += strcmp(c[i].call, "pop") == 0;
  }
  assert_int_equal(pushes, 128); /* CS_BRIDGE_DEPTH: Group + 127 P2p */
  assert_int_equal(pops, 128);
}

#else /* a build without NVTX headers */

static void body_without_nvtx(void) {
  void *g = start(ncclProfileGroup, NULL, NULL);
  stop(start(ncclProfileColl, g, "AllReduce"));
  stop(g);
}

/* CCLSCOPE_NVTX=1 in a build without NVTX: no NVTX call at all (the tool
 * is never loaded), the plugin works on. */
static void nvtx_compiled_out(void **state) {
  (void)state;
  pid_t pid = run_child(body_without_nvtx);
  nvtx_call c[8];
  assert_int_equal(read_nvtx(pid, c, 8), 0);
}

#endif

/* ---- CUPTI ---- */

static void body_cupti(void) {
  void *g = start(ncclProfileGroupApi, NULL, NULL);
  void *k1 = start(ncclProfileKernelLaunch, g, NULL);
  stop(k1);
  void *k2 = start(ncclProfileKernelLaunch, g, NULL);
  pthread_t t;
  pthread_create(&t, NULL, launch_elsewhere, k2); /* no pop there */
  pthread_join(t, NULL);
  void *k3 = start(ncclProfileKernelLaunch, g, NULL); /* pops k2 first */
  stop(k3);
  stop(k3); /* again: nothing */
  stop(g);
}

/* Push/pop pairs on the launching thread only; a KernelLaunch stopped on
 * another thread is popped by the next launch of its own thread. */
static void cupti_pairs(void **state) {
  (void)state;
  pid_t pid = run_child(body_cupti);
  char path[4200], line[256];
  snprintf(path, sizeof path, "%s/cupti.%d", work, (int)pid);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char seq[1024] = "";
  long first_tid = -1;
  while (fgets(line, sizeof line, f)) {
    char call[8];
    long tid;
    int kind, rc;
    unsigned long long id;
    assert_int_equal(
        sscanf(line, "%7s %ld %d %llu %d", call, &tid, &kind, &id, &rc), 5);
    assert_int_equal(kind, 5);
    assert_int_equal(rc, 0);
    if (first_tid < 0)
      first_tid = tid;
    assert_int_equal(tid, first_tid); /* never on the other thread */
    size_t used = strlen(seq);
    snprintf(seq + used, sizeof seq - used, "%s%s:%llu", used ? " " : "", call,
             id);
  }
  fclose(f);
  /* ids: GroupApi 1, then the launches 2, 3, 4 */
  assert_string_equal(seq, "push:2 pop:2 push:3 pop:3 push:4 pop:4");
}

int main(void) {
  test_make_tmpdir(work, sizeof work);
  char path[4200];
  snprintf(path, sizeof path, "%s/nvtx", work);
  setenv("NVTX_RECORDER_FILE", path, 1);
  setenv("NVTX_INJECTION64_PATH", NVTX_RECORDER_PATH, 1);
  setenv("CCLSCOPE_NVTX", "1", 1);
  snprintf(path, sizeof path, "%s/cupti", work);
  setenv("FAKE_CUPTI_FILE", path, 1);
  setenv("CCLSCOPE_CUPTI_LIBRARY", FAKE_CUPTI_PATH, 1);
  setenv("CCLSCOPE_CUPTI", "1", 1);
  setenv("CCLSCOPE_MASK", "all", 1);
  setenv("CCLSCOPE_SUMMARY", "off", 1);
  const struct CMUnitTest tests[] = {
#if CCLSCOPE_HAVE_NVTX
    cmocka_unit_test(cross_thread_stop),
    cmocka_unit_test(out_of_order_stops),
    cmocka_unit_test(deeper_than_the_limit),
#else
    cmocka_unit_test(nvtx_compiled_out),
#endif
    cmocka_unit_test(cupti_pairs),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  test_remove_tree(work);
  return rc;
}
