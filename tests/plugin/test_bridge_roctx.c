/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_bridge_roctx.c — the ROCTX bridge
 * (src/plugin/hot/bridge_roctx.c) through the real plugin, with
 * tests/stand_in_plugins/fake_roctx as libroctx64.so: ranges named as the
 * NVTX bridge names them and balanced per thread (also when NCCL stops out
 * of LIFO order, on another thread, or deeper than the limit), marks; off
 * by default; left alone on NVIDIA's NCCL, where NVTX still works; forced
 * on any host; a missing library and a failing one each give one warning
 * and nothing else. Each case runs in a child process with its own
 * environment (set by the parent before the fork); the parent reads what
 * the fake ROCTX and the plugin's logger wrote.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <fcntl.h>
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
static FILE *log_file; /* the child's logger writes here */

/* NCCL's logger, as the plugin receives it: "W text" or "I text". */
__attribute__((format(printf, 5, 6))) static void
child_logger(ncclDebugLogLevel level, unsigned long flags, const char *file,
             int line, const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  va_list ap;
  va_start(ap, fmt);
  fprintf(log_file, "%c ", level == NCCL_LOG_WARN ? 'W' : 'I');
  vfprintf(log_file, fmt, ap);
  fprintf(log_file, "\n");
  fflush(log_file);
  va_end(ap);
}

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

typedef struct {
  void (*body)(driver_t *d);
  int sessions;     /* init ... finalize this many times */
  int nccl_version; /* what ncclGetVersion answers; 0: no answer */
} child_plan;

static void session(driver_t *d, void (*body)(driver_t *d)) {
  int mask = 0;
  assert_int_equal(p->init(&ctx, 1, &mask, "roctx", 1, 1, 0, child_logger), 0);
  if (body)
    body(d);
  p->finalize(ctx);
}

/* Runs the plan in a child; returns its pid. The child's log (the
 * plugin's lines, then whether the fake ROCTX is loaded) goes to
 * <work>/log.<pid>. */
static pid_t run_child(child_plan plan) {
  pid_t pid = fork();
  if (pid == 0) {
    char path[4200];
    snprintf(path, sizeof path, "%s/log.%d", work, (int)getpid());
    log_file = fopen(path, "w");
    /* The plugin's warnings go to stderr, not to NCCL's logger. */
    snprintf(path, sizeof path, "%s/stderr.%d", work, (int)getpid());
    int err = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err < 0 || dup2(err, STDERR_FILENO) < 0)
      _exit(3);
    close(err);
    driver_t d;
    driver_set_nccl_version(plan.nccl_version);
    driver_open(&d);
    p = d.v6;
    for (int i = 0; i < plan.sessions; i++)
      session(&d, plan.body);
    void *fake = dlopen(FAKE_ROCTX_PATH, RTLD_NOW | RTLD_NOLOAD);
    fprintf(log_file, "loaded %s\n", fake ? "yes" : "no");
    if (fake)
      dlclose(fake);
    driver_close(&d);
    /* What was recorded: one trace per session, its Coll events. */
    char traces[8][4096];
    size_t ntraces = trace_find_files(d.dir, traces, 8), colls = 0;
    for (size_t i = 0; i < ntraces; i++) {
      trace_t t;
      if (trace_load(&t, traces[i])) {
        colls += trace_count_events(&t, "ncclProfileColl");
        trace_free(&t);
      }
    }
    fprintf(log_file, "traces %zu colls %zu\n", ntraces, colls);
    fclose(log_file);
    driver_cleanup(&d);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return pid;
}

/* ---- the parent's side: what the child left ---- */

typedef struct {
  long tid;
  char call[8];
  char msg[80];
  int rc;
} roctx_call;

/* The calls the fake ROCTX saw in child `pid`, in order; 0 if it saw
 * none (no file). */
static size_t read_roctx(pid_t pid, roctx_call *out, size_t max) {
  char path[4200];
  snprintf(path, sizeof path, "%s/roctx.%d", work, (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  char line[1024];
  size_t n = 0;
  while (fgets(line, sizeof line, f) && n < max) {
    cJSON *o = cJSON_Parse(line);
    assert_non_null(o);
    roctx_call *c = &out[n++];
    c->tid = (long)json_num(o, "tid");
    snprintf(c->call, sizeof c->call, "%s", json_str(o, "call"));
    snprintf(c->msg, sizeof c->msg, "%s",
             json_str(o, "msg") ? json_str(o, "msg") : "");
    c->rc = strcmp(c->call, "mark") ? (int)json_num(o, "rc") : 0;
    cJSON_Delete(o);
  }
  fclose(f);
  return n;
}

/* "push:Group push:AllReduce pop mark:step 5" for thread `tid` (0: the
 * first thread that made a call). */
static void sequence(const roctx_call *c, size_t n, long tid, char *out,
                     size_t len) {
  out[0] = '\0';
  if (tid == 0 && n)
    tid = c[0].tid;
  for (size_t i = 0; i < n; i++) {
    if (c[i].tid != tid)
      continue;
    size_t used = strlen(out);
    bool named = strcmp(c[i].call, "pop") != 0;
    snprintf(out + used, len - used, "%s%s%s%s", used ? " " : "", c[i].call,
             named ? ":" : "", named ? c[i].msg : "");
  }
}

/* Per thread: every pop closes a range the thread pushed, none is left
 * open, and ROCTX's levels agree (push -> its level, pop -> the same). */
static void assert_balanced(const roctx_call *c, size_t n) {
  long tids[16];
  int depth[16];
  size_t ntids = 0;
  for (size_t i = 0; i < n; i++) {
    if (strcmp(c[i].call, "mark") == 0)
      continue;
    size_t k = 0;
    while (k < ntids && tids[k] != c[i].tid)
      k++;
    if (k == ntids) {
      assert_true(ntids < 16);
      tids[ntids] = c[i].tid;
      depth[ntids++] = 0;
    }
    if (strcmp(c[i].call, "push") == 0) {
      assert_int_equal(c[i].rc, depth[k]);
      depth[k]++;
    } else {
      assert_true(depth[k] > 0);
      depth[k]--;
      assert_int_equal(c[i].rc, depth[k]);
    }
  }
  for (size_t k = 0; k < ntids; k++)
    assert_int_equal(depth[k], 0);
}

/* How many lines of child `pid`'s file `name` start with `prefix` and
 * contain `text` and `text2` (NULL: any). */
static size_t file_lines(pid_t pid, const char *name, const char *prefix,
                         const char *text, const char *text2) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.%d", work, name, (int)pid);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[2048];
  size_t n = 0;
  while (fgets(line, sizeof line, f))
    n += strncmp(line, prefix, strlen(prefix)) == 0 &&
         (!text || strstr(line, text)) && (!text2 || strstr(line, text2));
  fclose(f);
  return n;
}

/* How many of child `pid`'s messages are of kind `prefix` and contain
 * `text` (NULL: any): "W " warnings (its stderr: the logger must have
 * had none), "I " the logger's information, "loaded yes" its own line. */
static size_t log_lines(pid_t pid, const char *prefix, const char *text) {
  if (strcmp(prefix, "W ") != 0)
    return file_lines(pid, "log", prefix, text, NULL);
  assert_int_equal(file_lines(pid, "log", "W ", NULL, NULL), 0);
  return file_lines(pid, "stderr", "", " NCCL WARN cclscope: ", text);
}

/* The environment of a case (CCLSCOPE_ROCTX, CCLSCOPE_HOST, the library;
 * NULL: unset). */
static void set_case(const char *roctx, const char *host, const char *library) {
  if (roctx)
    setenv("CCLSCOPE_ROCTX", roctx, 1);
  else
    unsetenv("CCLSCOPE_ROCTX");
  if (host)
    setenv("CCLSCOPE_HOST", host, 1);
  else
    unsetenv("CCLSCOPE_HOST");
  setenv("CCLSCOPE_ROCTX_LIBRARY", library, 1);
  unsetenv("CCLSCOPE_NVTX");
  unsetenv("FAKE_ROCTX_FAIL");
}

/* ---- cases ---- */

static void body_every_kind(driver_t *d) {
  int (*step)(int64_t) = (int (*)(int64_t))dlsym(d->lib, "cclscope_step");
  int (*mark)(const char *) =
      (int (*)(const char *))dlsym(d->lib, "cclscope_mark");
  assert_non_null(step);
  assert_non_null(mark);
  void *ga = start(ncclProfileGroupApi, NULL, NULL);
  stop(start(ncclProfileCollApi, ga, "AllReduce"));
  stop(start(ncclProfileKernelLaunch, ga, NULL));
  void *g = start(ncclProfileGroup, NULL, NULL);
  void *c = start(ncclProfileColl, g, "AllGather");
  void *s = start(ncclProfileP2p, g, "Send");
  stop(c); /* NCCL's order (§6.6): closes Send first */
  stop(s); /* already closed: nothing */
  stop(g);
  stop(ga);
  assert_int_equal(step(5), 0);
  assert_int_equal(mark("fwd \"x\""), 0);
}

/* Under RCCL, every host-side type becomes a range named as the NVTX
 * bridge names it; the control API's calls become marks. */
static void ranges_named_and_balanced(void **state) {
  (void)state;
  set_case("1", "rccl", FAKE_ROCTX_PATH);
  pid_t pid = run_child((child_plan){body_every_kind, 1, 0});
  roctx_call c[64];
  size_t n = read_roctx(pid, c, 64);
  char seq[1024];
  sequence(c, n, 0, seq, sizeof seq);
  assert_string_equal(seq, "push:GroupApi push:AllReduce pop "
                           "push:KernelLaunch pop push:Group push:AllGather "
                           "push:Send pop pop pop pop mark:step 5 "
                           "mark:fwd \"x\"");
  assert_balanced(c, n);
  assert_int_equal(log_lines(pid, "I ", "ROCTX ranges on (" FAKE_ROCTX_PATH),
                   1);
  assert_int_equal(log_lines(pid, "W ", NULL), 0);
}

typedef struct {
  void *to_stop;
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

static void body_cross_thread(driver_t *d) {
  (void)d;
  void *g = start(ncclProfileGroup, NULL, NULL);
  void *c = start(ncclProfileColl, g, "AllReduce");
  other_args a = {.to_stop = c};
  pthread_t t;
  pthread_create(&t, NULL, other_thread, &a);
  pthread_join(t, NULL);
  stop(g); /* closes the Coll still open here, then the Group */
  stop(c); /* again: nothing */
  stop(NULL);
  stop((void *)(uintptr_t)0x1234); /* not ours */
}

/* A Coll stopped on another thread stays open on its own thread until
 * the Group below it closes; that thread pops only its own range; NULL,
 * repeated and foreign stops pop nothing. */
static void other_thread_stops(void **state) {
  (void)state;
  set_case("1", "rccl", FAKE_ROCTX_PATH);
  pid_t pid = run_child((child_plan){body_cross_thread, 1, 0});
  roctx_call c[64];
  size_t n = read_roctx(pid, c, 64);
  assert_int_equal(n, 6);
  char seq[512];
  sequence(c, n, 0, seq, sizeof seq);
  assert_string_equal(seq, "push:Group push:AllReduce pop pop");
  long other = 0;
  for (size_t i = 0; i < n; i++)
    if (c[i].tid != c[0].tid)
      other = c[i].tid;
  assert_true(other != 0);
  sequence(c, n, other, seq, sizeof seq);
  assert_string_equal(seq, "push:Group pop");
  assert_balanced(c, n);
}

static void body_too_deep(driver_t *d) {
  (void)d;
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

/* Beyond the depth limit ranges are skipped, counted and reported once;
 * the rest stays balanced. */
static void deeper_than_the_limit(void **state) {
  (void)state;
  set_case("1", "rccl", FAKE_ROCTX_PATH);
  pid_t pid = run_child((child_plan){body_too_deep, 1, 0});
  roctx_call c[512];
  size_t n = read_roctx(pid, c, 512);
  size_t pushes = 0, pops = 0;
  for (size_t i = 0; i < n; i++) {
    pushes += strcmp(c[i].call, "push") == 0;
    pops += strcmp(c[i].call, "pop") == 0;
  }
  assert_int_equal(pushes, 128); /* CS_BRIDGE_DEPTH: Group + 127 P2p */
  assert_int_equal(pops, 128);
  assert_balanced(c, n);
  /* 1 Group + 140 P2p started, 128 pushed */
  assert_int_equal(log_lines(pid, "W ", "ROCTX: 13 ranges were not pushed"), 1);
  assert_int_equal(log_lines(pid, "W ", NULL), 1);
}

/* Nothing asked: ROCTX is neither loaded nor called, even under RCCL with
 * the library at hand. */
static void off_by_default(void **state) {
  (void)state;
  set_case(NULL, "rccl", FAKE_ROCTX_PATH);
  pid_t pid = run_child((child_plan){body_every_kind, 1, 0});
  roctx_call c[8];
  assert_int_equal(read_roctx(pid, c, 8), 0);
  assert_int_equal(log_lines(pid, "loaded no", NULL), 1);
  assert_int_equal(log_lines(pid, "W ", "ROCTX"), 0);
  assert_int_equal(log_lines(pid, "I ", "ROCTX"), 0);
}

/* CCLSCOPE_ROCTX=1 on NVIDIA's NCCL (found by ncclGetVersion, no librccl
 * module): ROCTX is not loaded, one info line per process (two sessions
 * here), no warning; NVTX, asked for as well, still gets its ranges. */
static void nvidia_host_keeps_nvtx(void **state) {
  (void)state;
  set_case("1", NULL, FAKE_ROCTX_PATH);
  setenv("CCLSCOPE_NVTX", "1", 1);
  pid_t pid = run_child((child_plan){body_every_kind, 2, 22703});
  roctx_call c[8];
  assert_int_equal(read_roctx(pid, c, 8), 0);
  assert_int_equal(log_lines(pid, "loaded no", NULL), 1);
  assert_int_equal(
      log_lines(pid, "I ", "CCLSCOPE_ROCTX=1 is ignored: the host is NVIDIA"),
      1);
  assert_int_equal(log_lines(pid, "I ", "ROCTX ranges on"), 0);
#if CCLSCOPE_HAVE_NVTX
  assert_int_equal(log_lines(pid, "W ", NULL), 0);
  char path[4200];
  snprintf(path, sizeof path, "%s/nvtx.%d", work, (int)pid);
  FILE *f = fopen(path, "r");
  assert_non_null(f); /* the NVTX recorder saw the ranges */
  char line[2048];
  size_t pushes = 0;
  while (fgets(line, sizeof line, f))
    pushes += strstr(line, "\"call\":\"push\"") != NULL;
  fclose(f);
  assert_int_equal(pushes, 2 * 6); /* body_every_kind's 6 ranges, twice */
#else
  /* No NVTX in this build: its one warning, and nothing about ROCTX. */
  assert_int_equal(log_lines(pid, "W ", "CCLSCOPE_NVTX=1 is ignored"), 1);
  assert_int_equal(log_lines(pid, "W ", NULL), 1);
#endif
}

/* CCLSCOPE_ROCTX=force: ROCTX on NVIDIA's NCCL too. */
static void forced_on_any_host(void **state) {
  (void)state;
  set_case("force", "nccl", FAKE_ROCTX_PATH);
  pid_t pid = run_child((child_plan){body_every_kind, 1, 22703});
  roctx_call c[64];
  size_t n = read_roctx(pid, c, 64);
  assert_int_equal(n, 14); /* 6 pushes, 6 pops, 2 marks */
  assert_balanced(c, n);
  assert_int_equal(log_lines(pid, "loaded yes", NULL), 1);
  assert_int_equal(log_lines(pid, "W ", NULL), 0);
}

/* A host cclscope cannot name (no ncclGetVersion answer, no librccl):
 * CCLSCOPE_ROCTX=1 is not applied, and one warning says how to. */
static void unknown_host_warns(void **state) {
  (void)state;
  set_case("on", NULL, FAKE_ROCTX_PATH);
  pid_t pid = run_child((child_plan){body_every_kind, 2, 0});
  roctx_call c[8];
  assert_int_equal(read_roctx(pid, c, 8), 0);
  assert_int_equal(log_lines(pid, "loaded no", NULL), 1);
  assert_int_equal(
      log_lines(pid, "W ", "host (unknown) was not recognised as RCCL"), 1);
  assert_int_equal(log_lines(pid, "W ", NULL), 1);
}

/* No ROCTX library: one warning per process (two sessions here), and the
 * plugin records as usual. */
static void missing_library_warns_once(void **state) {
  (void)state;
  char missing[4200];
  snprintf(missing, sizeof missing, "%s/no/libroctx64.so", work);
  set_case("1", "rccl", missing);
  pid_t pid = run_child((child_plan){body_every_kind, 2, 0});
  char expected[4400];
  snprintf(expected, sizeof expected,
           "CCLSCOPE_ROCTX: no usable ROCTX library (tried %s); no ROCTX "
           "ranges",
           missing);
  assert_int_equal(log_lines(pid, "W ", expected), 1);
  assert_int_equal(log_lines(pid, "W ", NULL), 1);
  assert_int_equal(log_lines(pid, "I ", "ROCTX"), 0);
  assert_int_equal(log_lines(pid, "loaded no", NULL), 1);
  assert_int_equal(log_lines(pid, "traces 2 colls 2", NULL), 1);
}

/* A ROCTX whose pushes fail: nothing is popped for them, and one warning
 * at session end counts them. */
static void failing_pushes(void **state) {
  (void)state;
  set_case("1", "rccl", FAKE_ROCTX_PATH);
  setenv("FAKE_ROCTX_FAIL", "1", 1);
  pid_t pid = run_child((child_plan){body_every_kind, 1, 0});
  roctx_call c[64];
  size_t n = read_roctx(pid, c, 64);
  size_t pushes = 0, others = 0;
  for (size_t i = 0; i < n; i++) {
    if (strcmp(c[i].call, "push") == 0) {
      pushes++;
      assert_int_equal(c[i].rc, -1);
    } else {
      others += strcmp(c[i].call, "mark") != 0;
    }
  }
  assert_int_equal(pushes, 6);
  assert_int_equal(others, 0); /* no pop */
  assert_int_equal(
      log_lines(pid, "W ",
                "ROCTX: 0 ranges were not pushed (more than 128 open on one "
                "thread), 6 pushes and 0 pops failed"),
      1);
  assert_int_equal(log_lines(pid, "W ", NULL), 1);
}

int main(void) {
  test_make_tmpdir(work, sizeof work);
  char path[4200];
  snprintf(path, sizeof path, "%s/roctx", work);
  setenv("FAKE_ROCTX_FILE", path, 1);
  snprintf(path, sizeof path, "%s/nvtx", work);
  setenv("NVTX_RECORDER_FILE", path, 1);
  setenv("NVTX_INJECTION64_PATH", NVTX_RECORDER_PATH, 1);
  setenv("CCLSCOPE_MASK", "all", 1);
  setenv("CCLSCOPE_SUMMARY", "off", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ranges_named_and_balanced),
      cmocka_unit_test(other_thread_stops),
      cmocka_unit_test(deeper_than_the_limit),
      cmocka_unit_test(off_by_default),
      cmocka_unit_test(nvidia_host_keeps_nvtx),
      cmocka_unit_test(forced_on_any_host),
      cmocka_unit_test(unknown_host_warns),
      cmocka_unit_test(missing_library_warns_once),
      cmocka_unit_test(failing_pushes),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  test_remove_tree(work);
  return rc;
}
