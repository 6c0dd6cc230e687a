/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_lifecycle.c — the plugin's life inside someone else's
 * process: unload and reload, exit without finalize, SIGKILL, fork() (also
 * while the writer is busy, or an OTLP push in flight), a ring too small
 * for a burst. Each scenario that ends a process runs in a child, and the
 * parent reads what it left behind.
 * Also run under valgrind by the suite (tests/plugin/CMakeLists.txt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plugin_driver.h"

static uint64_t id_of(void *h) {
  return (uint64_t)(uintptr_t)h & ((1ull << 47) - 1);
}

/* A Coll with one ProxyOp and two steps; returns the Coll's handle. */
static void *one_collective(ncclProfiler_v6_t *p, void *ctx, bool stop_op) {
  ncclProfilerEventDescr_v6_t e;
  void *c, *po, *ps;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileColl;
  e.coll.func = "AllReduce";
  e.coll.datatype = "ncclFloat32";
  e.coll.count = 256;
  p->startEvent(ctx, &c, &e);
  p->stopEvent(c);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileProxyOp;
  e.parentObj = c;
  e.proxyOp.pid = getpid();
  e.proxyOp.nSteps = 2;
  p->startEvent(ctx, &po, &e);
  for (int s = 0; s < 2; s++) {
    memset(&e, 0, sizeof e);
    e.type = ncclProfileProxyStep;
    e.parentObj = po;
    e.proxyStep.step = s;
    p->startEvent(ctx, &ps, &e);
    ncclProfilerEventStateArgs_v6_t a = {.proxyStep = {.transSize = 1024}};
    p->recordEventState(ps, ncclProfilerProxyStepSendWait, &a);
    p->stopEvent(ps);
  }
  if (stop_op)
    p->stopEvent(po);
  return c;
}

static const cJSON *end_record(const trace_t *t) {
  const cJSON *end = trace_find_record(t, "processEnd");
  if (!end)
    fail_msg("%s has no processEnd record", t->path);
  return end;
}

static void assert_identity(const cJSON *counters) {
  double started = json_num(counters, "eventsStarted");
  double ended =
      json_num(counters, "stopped") + json_num(counters, "reclaimed") +
      json_num(counters, "inflight") + json_num(counters, "droppedStarts");
  assert_true(started == ended);
}

/* dlclose after the last finalize, then load again: a second valid file. */
static void test_reload_after_unload(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  for (int round = 0; round < 2; round++) {
    if (round)
      driver_reopen(&d);
    int mask = 0;
    void *ctx = NULL;
    d.v6->init(&ctx, 100 + (uint64_t)round, &mask, "reload", 1, 1, 0, NULL);
    one_collective(d.v6, ctx, true);
    d.v6->finalize(ctx);
    assert_true(driver_close(&d)); /* really unloaded: threads joined */
  }
  char paths[4][4096];
  assert_int_equal(trace_find_files(d.dir, paths, 4), 2);
  for (int i = 0; i < 2; i++) {
    trace_t t;
    assert_true(trace_load(&t, paths[i]));
    assert_int_equal(t.bad_lines, 0);
    assert_int_equal(trace_count_events(&t, "ncclProfileProxyStep"), 2);
    const cJSON *end = end_record(&t);
    assert_string_equal(json_str(end, "reason"), "finalize");
    assert_identity(json_obj(end, "counters"));
    trace_free(&t);
  }
  driver_cleanup(&d);
}

/* The process exits (PyTorch often never destroys communicators). */
static void test_exit_without_finalize(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  void *coll = NULL;
  int pipefd[2];
  assert_int_equal(pipe(pipefd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    int mask = 0;
    void *ctx = NULL;
    d.v6->init(&ctx, 7, &mask, "noexit", 1, 1, 0, NULL);
    for (int i = 0; i < 50; i++)
      one_collective(d.v6, ctx, true);
    coll = one_collective(d.v6, ctx, false); /* its ProxyOp stays open */
    if (write(pipefd[1], &coll, sizeof coll) != sizeof coll)
      _exit(3);
    exit(0); /* no finalize, no dlclose: destructors run */
  }
  close(pipefd[1]);
  assert_int_equal(read(pipefd[0], &coll, sizeof coll), sizeof coll);
  int status;
  waitpid(pid, &status, 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  driver_close(&d);

  trace_t t;
  driver_load_single_trace(&d, &t);
  assert_int_equal(trace_count_events(&t, "ncclProfileColl"), 51);
  assert_int_equal(trace_count_events(&t, "ncclProfileProxyStep"), 102);
  const cJSON *end = end_record(&t);
  assert_string_equal(json_str(end, "reason"), "exit");
  assert_identity(json_obj(end, "counters"));
  /* The open ProxyOp is listed as in flight, child of the last Coll. */
  size_t inflight = 0;
  for (size_t i = 0; i < t.count; i++) {
    const char *endk = json_str(t.lines[i], "end");
    if (endk && strcmp(endk, "inflight") == 0) {
      inflight++;
      assert_string_equal(json_str(t.lines[i], "type"), "ncclProfileProxyOp");
      assert_int_equal(json_hex(t.lines[i], "parentId"), id_of(coll));
      assert_true(json_is_null(t.lines[i], "stop"));
    }
  }
  assert_int_equal(inflight, 1);
  trace_free(&t);
  driver_cleanup(&d);
}

/* Wait until the folder's single trace file holds `bytes` (the writer is
 * slow under valgrind on a busy machine: wait for what it did, with a cap
 * far beyond any run that works). Returns the size reached. */
static off_t wait_for_trace_bytes(const driver_t *d, off_t bytes) {
  char paths[2][4096];
  struct stat st = {0};
  for (int i = 0; i < 24000; i++) { /* 240 s */
    if (trace_find_files(d->dir, paths, 2) == 1 && stat(paths[0], &st) == 0 &&
        st.st_size >= bytes)
      break;
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return st.st_size;
}

/* SIGKILL a forked writer and check that it died of it. */
static void kill_and_reap(pid_t pid) {
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  assert_true(WIFSIGNALED(status));
}

/* Killed without warning: only complete lines, never half of one. */
static void test_sigkill_leaves_complete_lines(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  setenv("CCLSCOPE_FLUSH_INTERVAL", "0.01", 1);
  pid_t pid = fork();
  if (pid == 0) {
    int mask = 0;
    void *ctx = NULL;
    d.v6->init(&ctx, 9, &mask, "killed", 1, 1, 0, NULL);
    for (;;) {
      one_collective(d.v6, ctx, true);
      struct timespec ts = {0, 20000};
      nanosleep(&ts, NULL);
    }
  }
  unsetenv("CCLSCOPE_FLUSH_INTERVAL");
  /* A few flushes out: well over 10 ProxySteps' lines. */
  off_t size = wait_for_trace_bytes(&d, 32 * 1024);
  kill_and_reap(pid);
  assert_true(size >= 32 * 1024);
  driver_close(&d);

  trace_t t;
  driver_load_single_trace(&d, &t); /* fails on any partial line */
  assert_true(trace_count_events(&t, "ncclProfileProxyStep") > 10);
  assert_null(trace_find_record(&t, "processEnd")); /* it was killed */
  trace_free(&t);
  driver_cleanup(&d);
}

/* Killed while writing fast: several megabytes went out in bulk writes
 * (O_DIRECT where the folder takes it), some may be in flight, and still
 * the file holds only complete lines. */
static void test_sigkill_during_fast_writing(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  pid_t pid = fork();
  if (pid == 0) {
    int mask = 0;
    void *ctx = NULL;
    d.v6->init(&ctx, 10, &mask, "killed-fast", 1, 1, 0, NULL);
    for (;;)
      one_collective(d.v6, ctx, true);
  }
  /* Wait until 4 MiB are in the file (bulk writes of 1 MiB happened). */
  off_t size = wait_for_trace_bytes(&d, 4 << 20);
  kill_and_reap(pid);
  assert_true(size >= (4 << 20));
  driver_close(&d);

  trace_t t;
  driver_load_single_trace(&d, &t); /* fails on any partial line */
  assert_int_equal(t.crossing_lines, 0);
  /* Megabytes of whole event lines (an event line is well under 1 KiB; a
   * run here holds about 5100 ProxySteps, 2560 Colls and 2560 ProxyOps in
   * its 4 MiB). Counted over the three types, not ProxySteps alone: which
   * events a loaded valgrind run drops, or still holds, varies. */
  int events = trace_count_events(&t, "ncclProfileProxyStep") +
               trace_count_events(&t, "ncclProfileColl") +
               trace_count_events(&t, "ncclProfileProxyOp");
  assert_true(events > (int)(size / 1024));
  assert_true(trace_count_events(&t, "ncclProfileProxyStep") > 0);
  assert_null(trace_find_record(&t, "processEnd"));
  const cJSON *proc = trace_find_record(&t, "process");
  assert_int_equal(cJSON_IsTrue(json_obj(proc, "directIo")),
                   test_dir_takes_direct_io(d.dir));
  trace_free(&t);
  driver_cleanup(&d);
}

/* fork() in the host: the child writes its own file, the parent's file
 * holds only the parent's events. */
static void test_fork_child_writes_own_file(void **state) {
  (void)state;
#ifdef CCLSCOPE_TSAN_BUILD
  /* TSan cannot follow threads created in a fork child of a multi-threaded
   * process ("dup thread with used id"). Covered by the plain, ASan+UBSan
   * and valgrind runs of this test. */
  print_message("fork with threads is not supported by TSan: skipped here, "
                "run in the plain, ASan and valgrind builds\n");
  skip();
#endif
  driver_t d;
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL;
  d.v6->init(&ctx, 11, &mask, "forking", 1, 1, 0, NULL);
  for (int i = 0; i < 5; i++)
    one_collective(d.v6, ctx, true);
  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < 7; i++)
      one_collective(d.v6, ctx, true);
    exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int i = 0; i < 3; i++)
    one_collective(d.v6, ctx, true);
  d.v6->finalize(ctx);
  driver_close(&d);

  char paths[4][4096];
  assert_int_equal(trace_find_files(d.dir, paths, 4), 2);
  size_t parent_colls = 0, child_colls = 0;
  for (int i = 0; i < 2; i++) {
    trace_t t;
    assert_true(trace_load(&t, paths[i]));
    assert_int_equal(t.bad_lines, 0);
    const cJSON *proc = trace_find_record(&t, "process");
    size_t colls = trace_count_events(&t, "ncclProfileColl");
    if (cJSON_IsTrue(json_obj(proc, "forkedChild"))) {
      child_colls = colls;
      assert_int_equal((int)json_num(proc, "pid"), pid);
      /* The inherited communicator is described in the child's file. */
      const cJSON *init = trace_find_lifecycle(&t, "ProfilerInit", -1);
      assert_non_null(init);
      assert_true(cJSON_IsTrue(
          json_obj(json_obj(init, "details"), "inheritedFromParent")));
      assert_string_equal(json_str(end_record(&t), "reason"), "exit");
    } else {
      parent_colls = colls;
      assert_string_equal(json_str(end_record(&t), "reason"), "finalize");
    }
    trace_free(&t);
  }
  assert_int_equal(parent_colls, 8);
  assert_int_equal(child_colls, 7);
  driver_cleanup(&d);
}

#define BUSY_FORK_CHILDREN 15
#ifdef CCLSCOPE_TSAN_BUILD
/* TSan cannot follow threads created in a fork child of a multi-threaded
 * process (see test_fork_child_writes_own_file): its children only exit. */
#define BUSY_FORK_RESTARTS 0
#else
#define BUSY_FORK_RESTARTS 5 /* children that go on using NCCL */
#endif

/* Fork BUSY_FORK_CHILDREN children, each right after a burst of `burst`
 * collectives (so that the writer has lines to format and hand to the I/O
 * thread while fork() runs). The first BUSY_FORK_RESTARTS children
 * record 20 collectives of their own (the plugin starts again for them),
 * then each calls exit(): destructors, then LeakSanitizer in the ASan
 * build, which makes the exit code 1 for any leak. Returns how many did
 * not exit with 0. */
static int fork_busy_children(ncclProfiler_v6_t *p, void *ctx, int burst) {
  pid_t children[BUSY_FORK_CHILDREN];
  for (int i = 0; i < BUSY_FORK_CHILDREN; i++) {
    for (int k = 0; k < burst; k++)
      one_collective(p, ctx, true);
    children[i] = fork();
    assert_true(children[i] >= 0);
    if (children[i] == 0) {
      if (i < BUSY_FORK_RESTARTS)
        for (int k = 0; k < 20; k++)
          one_collective(p, ctx, true);
      exit(0);
    }
  }
  int failed = 0;
  for (int i = 0; i < BUSY_FORK_CHILDREN; i++) {
    int status;
    assert_int_equal(waitpid(children[i], &status, 0), children[i]);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      print_error("child %d (pid %d) ended with status 0x%x\n", i,
                  (int)children[i], status);
      failed++;
    }
  }
  return failed;
}

/* Decompress every trace_*.jsonl.zst in `dir` into its .jsonl (zstd is a
 * test dependency, as for the e2e tests of compressed traces). */
static void decompress_traces(const char *dir) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "zstd -q -d --rm '%s'/trace_*.jsonl.zst", dir);
  assert_int_equal(system(cmd), 0);
}

/* fork() while the plugin writes: the parent's queued chunks and the one
 * its I/O thread is writing are the parent's. A child that just exits
 * must leave nothing behind; a child that goes on using NCCL writes its
 * own file. Nothing of the parent's reaches a file twice. Compressed at
 * level 6, so that the I/O thread (which compresses) falls behind the
 * writer: most forks find a chunk being written and more queued (9 to 12
 * of the 15 children leaked them before the fix), and the files stay
 * small. */
static void test_fork_while_writing(void **state) {
  (void)state;
  setenv("CCLSCOPE_COMPRESS", "zstd:6", 1);
  driver_t d;
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL;
  d.v6->init(&ctx, 13, &mask, "fork-busy", 1, 1, 0, NULL);
  int failed = fork_busy_children(d.v6, ctx, 300);
  d.v6->finalize(ctx);
  driver_close(&d);
  unsetenv("CCLSCOPE_COMPRESS");
  assert_int_equal(failed, 0);
  decompress_traces(d.dir);

  char paths[BUSY_FORK_RESTARTS + 2][4096];
  assert_int_equal(trace_find_files(d.dir, paths, BUSY_FORK_RESTARTS + 2),
                   BUSY_FORK_RESTARTS + 1);
  int child_files = 0;
  for (int i = 0; i < BUSY_FORK_RESTARTS + 1; i++) {
    trace_t t;
    assert_true(trace_load(&t, paths[i]));
    assert_int_equal(t.bad_lines, 0);
    const cJSON *proc = trace_find_record(&t, "process");
    const cJSON *end = end_record(&t);
    const cJSON *counters = json_obj(end, "counters");
    assert_identity(counters);
    /* Every event line once: a child that wrote the parent's queued
     * chunks again would add lines no counter accounts for. */
    size_t lines = trace_count_events(&t, "ncclProfileColl") +
                   trace_count_events(&t, "ncclProfileProxyOp") +
                   trace_count_events(&t, "ncclProfileProxyStep");
    assert_int_equal(lines, (size_t)(json_num(counters, "stopped") +
                                     json_num(counters, "reclaimed")));
    if (cJSON_IsTrue(json_obj(proc, "forkedChild"))) {
      child_files++;
      assert_int_equal(trace_count_events(&t, "ncclProfileColl"), 20);
      assert_string_equal(json_str(end, "reason"), "exit");
    } else {
      assert_true(trace_count_events(&t, "ncclProfileColl") > 0);
      assert_string_equal(json_str(end, "reason"), "finalize");
    }
    trace_free(&t);
  }
  assert_int_equal(child_files, BUSY_FORK_RESTARTS);
  driver_cleanup(&d);
}

/* A collector that accepts connections and never answers. */
static int silent_collector(int *port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(fd >= 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof a;
  assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(fd, 64), 0);
  assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
  *port = ntohs(a.sin_port);
  return fd;
}

/* fork() while an OTLP push is in flight (the collector never answers):
 * the payload being pushed and the parent's curl handles are the parent's;
 * a child that exits leaves nothing behind, one that goes on using NCCL
 * starts its own exporter. */
static void test_fork_while_pushing(void **state) {
  (void)state;
  int port;
  int collector = silent_collector(&port);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/metrics", port);
  setenv("CCLSCOPE_MODE", "metrics", 1);
  setenv("CCLSCOPE_OTLP_ENDPOINT", url, 1);
  setenv("CCLSCOPE_METRICS_WINDOW", "0.05", 1);
  setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "600000", 1); /* in flight for good */
  setenv("CCLSCOPE_EXIT_DEADLINE", "0", 1);          /* cut at exit */
  driver_t d;
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL;
  d.v6->init(&ctx, 14, &mask, "fork-push", 1, 1, 0, NULL);
  one_collective(d.v6, ctx, true);
  /* The first push reaches the collector: from now on one is in flight
   * (libcurl4 is a test dependency: without it no push ever comes). */
  struct pollfd pfd = {.fd = collector, .events = POLLIN};
  if (poll(&pfd, 1, 240 * 1000) != 1)
    fail_msg("no OTLP push reached %s within 240 s", url);
  int conn = accept(collector, NULL, NULL);
  assert_true(conn >= 0);

  int failed = fork_busy_children(d.v6, ctx, 100);
  /* The collector goes away first: the push in flight fails at once and
   * finalize ends the exporter, so no plugin thread is left at exit (a
   * thread ending while LeakSanitizer stops the process at exit can crash
   * its tracer). The same crash after this file's tests ("Tracer caught
   * signal 11") also came from the runtime misreading the main thread's
   * block of the plugin's thread-local variables: see
   * src/common/sanitizer_default_options.c. */
  close(conn);
  close(collector);
  d.v6->finalize(ctx);
  driver_close(&d);
  unsetenv("CCLSCOPE_MODE");
  unsetenv("CCLSCOPE_OTLP_ENDPOINT");
  unsetenv("CCLSCOPE_METRICS_WINDOW");
  unsetenv("OTEL_EXPORTER_OTLP_TIMEOUT");
  unsetenv("CCLSCOPE_EXIT_DEADLINE");
  assert_int_equal(failed, 0);
  driver_cleanup(&d);
}

/* A ring too small for a burst drops records and says so. */
static void test_full_ring_drops_and_counts(void **state) {
  (void)state;
  driver_t d;
  setenv("CCLSCOPE_RING_SIZE", "4K", 1); /* 128 units of 32 bytes */
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL;
  d.v6->init(&ctx, 12, &mask, "tiny", 1, 1, 0, NULL);
  const int n = 20000;
  ncclProfilerEventDescr_v6_t e;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileProxyCtrl;
  for (int i = 0; i < n; i++) {
    void *h;
    d.v6->startEvent(ctx, &h, &e);
    assert_non_null(h); /* a handle is always written */
    d.v6->stopEvent(h);
  }
  d.v6->finalize(ctx);
  driver_close(&d);
  unsetenv("CCLSCOPE_RING_SIZE");

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *c = json_obj(end_record(&t), "counters");
  assert_int_equal((int)json_num(c, "eventsStarted"), n);
  assert_true(json_num(c, "droppedStarts") > 0);
  assert_identity(c);
  assert_int_equal(trace_count_events(&t, "ncclProfileProxyCtrl"),
                   (size_t)(json_num(c, "stopped") + json_num(c, "reclaimed")));
  trace_free(&t);
  driver_cleanup(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reload_after_unload),
      cmocka_unit_test(test_exit_without_finalize),
      cmocka_unit_test(test_sigkill_leaves_complete_lines),
      cmocka_unit_test(test_sigkill_during_fast_writing),
      cmocka_unit_test(test_fork_child_writes_own_file),
      cmocka_unit_test(test_fork_while_writing),
      cmocka_unit_test(test_fork_while_pushing),
      cmocka_unit_test(test_full_ring_drops_and_counts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
