/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/emu/test_emu_watchdog.c — the --check watchdog judges what a
 * callback did, not wall time: the slow-call rule (pure), reading a
 * thread's usage from another thread, and the running watchdog with real
 * threads "in a call":
 *   - a thread that only waits for a CPU (pinned to the CPU of a busy
 *     thread, at nice 19) stays in its call past the limit and is excused,
 *     with its CPU time far below the limit; so is one that first sleeps
 *     1 ms (a briefly contended lock) and then only waits for a CPU;
 *   - a thread that sleeps in its call is reported as blocked on its own;
 *   - a thread that spins in its call is reported once it used the limit
 *     in CPU time;
 *   - a thread whose /proc entry cannot be read is judged by wall time.
 * Nothing here depends on how fast or busy the machine is: each thread
 * stays in its call until the watchdog has decided (with caps of tens of
 * seconds that only a broken watchdog reaches), and the CPU share of a
 * nice-19 thread next to a nice-0 one on the same CPU is ~1.5 %, however
 * loaded the machine is.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "check/emu_call_usage.h"
#include "check/emu_check.h"
#include "emu_threads.h"

#define LIMIT_MS 200.0
#define LIMIT_NS 200000000ULL
#define SECOND_NS 1000000000ULL

/* ---------- the rule ---------- */
static void test_rule(void **state) {
  (void)state;
  const uint64_t L = LIMIT_NS;
  /* descheduled: little CPU, never seen asleep, however long the wall */
  assert_int_equal(emu_call_judge(L / 100, 0, L), EMU_CALL_NOT_SLOW);
  assert_int_equal(emu_call_judge(L - 1, 0, L), EMU_CALL_NOT_SLOW);
  /* computed or spun for the limit */
  assert_int_equal(emu_call_judge(L, 0, L), EMU_CALL_SLOW_CPU);
  assert_int_equal(emu_call_judge(2 * L, L, L), EMU_CALL_SLOW_CPU);
  /* asleep on its own (plus running) for the limit */
  assert_int_equal(emu_call_judge(0, L, L), EMU_CALL_SLOW_BLOCKED);
  assert_int_equal(emu_call_judge(L / 2, L / 2, L), EMU_CALL_SLOW_BLOCKED);
  assert_int_equal(emu_call_judge(0, L - 1, L), EMU_CALL_NOT_SLOW);
  /* a short wait, then a long wait for a CPU: not slow */
  assert_int_equal(emu_call_judge(L / 1000, L / 8, L), EMU_CALL_NOT_SLOW);
  /* asleep time between two looks */
  assert_int_equal(emu_asleep_between(true, true, 1000), 1000);
  assert_int_equal(emu_asleep_between(true, false, 1000), 500);
  assert_int_equal(emu_asleep_between(false, true, 1000), 500);
  assert_int_equal(emu_asleep_between(false, false, 1000), 0);
}

/* ---------- /proc/.../status ---------- */
static void test_parse_status(void **state) {
  (void)state;
  uint64_t vol = 0;
  bool asleep = true;
  /* nonvoluntary_ctxt_switches first: it must not be taken for the other */
  const char *running = "Name:\tx\nState:\tR (running)\nTgid:\t1\n"
                        "nonvoluntary_ctxt_switches:\t99\n"
                        "voluntary_ctxt_switches:\t7\n";
  assert_true(emu_parse_task_status(running, &vol, &asleep));
  assert_int_equal(vol, 7);
  assert_false(asleep);
  const char *sleeping = "State:\tS (sleeping)\n"
                         "voluntary_ctxt_switches:\t123456789012\n"
                         "nonvoluntary_ctxt_switches:\t1\n";
  assert_true(emu_parse_task_status(sleeping, &vol, &asleep));
  assert_int_equal(vol, 123456789012ULL);
  assert_true(asleep);
  const char *disk = "State:\tD (disk sleep)\nvoluntary_ctxt_switches:\t0\n";
  assert_true(emu_parse_task_status(disk, &vol, &asleep));
  assert_true(asleep);
  assert_false(emu_parse_task_status("State:\tR (running)\n", &vol, &asleep));
  assert_false(emu_parse_task_status(
      "nonvoluntary_ctxt_switches:\t3\nState:\tR\n", &vol, &asleep));
}

/* ---------- sampling another thread ---------- */
static pid_t my_tid(void) {
  return (pid_t)syscall(SYS_gettid);
}

static uint64_t own_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * SECOND_NS + (uint64_t)ts.tv_nsec;
}

static uint64_t wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * SECOND_NS + (uint64_t)ts.tv_nsec;
}

typedef struct sleeper {
  pthread_mutex_t m;
  pthread_cond_t cv;
  bool release;
  pid_t tid;
} sleeper;

static void *sleeper_main(void *arg) {
  sleeper *s = arg;
  pthread_mutex_lock(&s->m);
  s->tid = my_tid();
  pthread_cond_broadcast(&s->cv);
  while (!s->release)
    pthread_cond_wait(&s->cv, &s->m);
  pthread_mutex_unlock(&s->m);
  return NULL;
}

static void test_parse_syscall(void **state) {
  (void)state;
  assert_int_equal(emu_parse_task_syscall("202 0x7f 0x80 0x0 0x0 0x0 0x0 "
                                          "0x7ffc 0x7f12\n"),
                   202);
  assert_int_equal(emu_parse_task_syscall("9 0x0 0x400000\n"), 9);
  /* blocked outside a system call (a page fault) */
  assert_int_equal(emu_parse_task_syscall("-1 0x7ffc 0x7f12\n"), -1);
  assert_int_equal(emu_parse_task_syscall("running\n"), -2);
  assert_int_equal(emu_parse_task_syscall(""), -2);
  assert_int_equal(emu_parse_task_syscall("12x 0x0"), -2);
  assert_int_equal(emu_parse_task_syscall("-12 0x0"), -2);
}

static void test_parse_schedstat(void **state) {
  (void)state;
  uint64_t cpu = 0, runq = 0;
  assert_true(emu_parse_task_schedstat("2190355 4711 1\n", &cpu, &runq));
  assert_int_equal(cpu, 2190355);
  assert_int_equal(runq, 4711);
  assert_false(emu_parse_task_schedstat("", &cpu, &runq));
  assert_false(emu_parse_task_schedstat("12", &cpu, &runq));
  assert_false(emu_parse_task_schedstat("12 x 1", &cpu, &runq));
  /* the most the thread can have slept: wall less CPU less waiting */
  assert_int_equal(emu_asleep_exact(100, 30, 20), 50);
  assert_int_equal(emu_asleep_exact(100, 80, 30), 0);
}

static void test_foreign_wait(void **state) {
  (void)state;
  const uint64_t ms = 1000000;
  emu_foreign_threads a = {.count = 2,
                           .tid = {10, 11},
                           .cpu_ns = {0, 0},
                           .runq_ns = {0, 0},
                           .runnable = {true, false}};
  emu_foreign_threads b = a;
  /* runnable at both looks, ran 2 ms of 10: waited 8 (schedstat not yet) */
  b.cpu_ns[0] = 2 * ms;
  assert_int_equal(emu_foreign_wait_between(&a, &b, 10 * ms), 8 * ms);
  /* runnable at one look only: half of that */
  b.runnable[0] = false;
  assert_int_equal(emu_foreign_wait_between(&a, &b, 10 * ms), 4 * ms);
  /* the kernel's run-queue time wins when larger; never over the interval */
  b.runq_ns[1] = 6 * ms;
  assert_int_equal(emu_foreign_wait_between(&a, &b, 10 * ms), 6 * ms);
  b.runq_ns[1] = 60 * ms;
  assert_int_equal(emu_foreign_wait_between(&a, &b, 10 * ms), 10 * ms);
  /* asleep at both looks, no run-queue time: it did not wait for a CPU */
  emu_foreign_threads c = a, d = a;
  c.runnable[0] = d.runnable[0] = false;
  assert_int_equal(emu_foreign_wait_between(&c, &d, 10 * ms), 0);
  /* a thread that appeared between the looks says nothing */
  d.tid[0] = 99;
  d.runnable[0] = true;
  assert_int_equal(emu_foreign_wait_between(&c, &d, 10 * ms), 0);
}

static void test_sample(void **state) {
  (void)state;
  const char *why = NULL;
  emu_thread_usage a, b;
  /* itself: running, CPU time grows with work, a sleep is voluntary */
  assert_true(emu_thread_usage_sample(pthread_self(), my_tid(), &a, &why));
  assert_false(a.asleep);
  uint64_t until = own_cpu_ns() + 5000000;
  while (own_cpu_ns() < until)
    ;
  struct timespec nap = {0, 1000000};
  nanosleep(&nap, NULL);
  assert_true(emu_thread_usage_sample(pthread_self(), my_tid(), &b, &why));
  assert_true(b.cpu_ns >= a.cpu_ns + 5000000);
  assert_true(b.voluntary_switches > a.voluntary_switches);

  /* another thread, blocked in a condition wait: seen asleep (it may take
   * a few looks until it is really in the wait) */
  sleeper s = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, sleeper_main, &s), 0);
  pthread_mutex_lock(&s.m);
  while (s.tid == 0)
    pthread_cond_wait(&s.cv, &s.m);
  pid_t tid = s.tid;
  pthread_mutex_unlock(&s.m);
  bool seen_asleep = false;
  for (int i = 0; i < 10000 && !seen_asleep; i++) {
    assert_true(emu_thread_usage_sample(th, tid, &a, &why));
    seen_asleep = a.asleep;
    if (!seen_asleep)
      nanosleep(&nap, NULL);
  }
  assert_true(seen_asleep);
  /* ... and where: a condition wait is a futex system call */
  assert_int_equal(a.syscall_nr, SYS_futex);
  pthread_mutex_lock(&s.m);
  s.release = true;
  pthread_cond_broadcast(&s.cv);
  pthread_mutex_unlock(&s.m);
  pthread_join(th, NULL);

  /* a thread id with no /proc entry: unreadable, and it says what */
  why = NULL;
  assert_false(emu_thread_usage_sample(pthread_self(), INT_MAX, &a, &why));
  assert_non_null(why);
  assert_non_null(strstr(why, "/proc"));
}

/* ---------- the running watchdog ---------- */
typedef enum {
  SPIN_UNTIL_EXCUSED,   /* spin in the call until the watchdog excuses it */
  SLEEP_UNTIL_REPORTED, /* sleep in the call until it is reported */
  SPIN_UNTIL_REPORTED,  /* spin in the call until it is reported */
  NAP_THEN_SPIN_UNTIL_EXCUSED /* sleep 1 ms (a short lock wait), then as
                                 SPIN_UNTIL_EXCUSED */
} victim_action;

typedef struct victim {
  victim_action action;
  int cpu;        /* pin to this CPU, -1: not pinned */
  int nice;       /* 0: unchanged */
  pid_t fake_tid; /* nonzero: register with this (unreadable) tid */
  emu_thread t;
  /* its own measurements around the call */
  int setup_errno;
  bool measured;
  uint64_t wall_ns, cpu_ns, voluntary_switches;
} victim;

static uint64_t reported(const emu_watchdog_counts *c) {
  return c->slow_cpu + c->slow_blocked + c->slow_wall;
}

static bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

/* The victim's call: only relaxed loads and CLOCK_MONOTONIC (vDSO) in the
 * spinning loops, nothing that could sleep. */
static void victim_call(victim *v, uint64_t start) {
  emu_watchdog_counts before, now;
  emu_watchdog_counts_get(&before);
  now = before;
  switch (v->action) {
  case NAP_THEN_SPIN_UNTIL_EXCUSED: {
    struct timespec nap = {0, 1000000};
    nanosleep(&nap, NULL);
  }
    /* fall through */
  case SPIN_UNTIL_EXCUSED:
    while (now.excused == before.excused &&
           reported(&now) == reported(&before) &&
           wall_ns() - start < 30 * SECOND_NS)
      emu_watchdog_counts_get(&now);
    break;
  case SLEEP_UNTIL_REPORTED:
    for (int i = 0; i < 100 && reported(&now) == reported(&before); i++) {
      struct timespec ts = {0, (long)(LIMIT_NS / 2)};
      nanosleep(&ts, NULL);
      emu_watchdog_counts_get(&now);
    }
    break;
  case SPIN_UNTIL_REPORTED: {
    uint64_t cpu0 = own_cpu_ns();
    while (reported(&now) == reported(&before) &&
           own_cpu_ns() - cpu0 < 30 * LIMIT_NS &&
           wall_ns() - start < 120 * SECOND_NS)
      emu_watchdog_counts_get(&now);
    break;
  }
  }
}

static void *victim_main(void *arg) {
  victim *v = arg;
  if (v->cpu >= 0 && !pin_to(v->cpu)) {
    v->setup_errno = errno;
    return NULL;
  }
  if (v->nice != 0 && setpriority(PRIO_PROCESS, (id_t)my_tid(), v->nice) != 0) {
    v->setup_errno = errno;
    return NULL;
  }
  emu_thread_init(&v->t, 0, EMU_STREAM_APP(0), EMU_ROLE_APP, "victim", 1);
  if (v->fake_tid != 0) {
    v->t.tid = v->fake_tid;
    v->t.self = pthread_self();
    emu_watchdog_register(&v->t);
  } else {
    emu_thread_attach(&v->t);
  }
  const char *why;
  emu_thread_usage u0, u1;
  bool ok = emu_thread_usage_sample(pthread_self(), my_tid(), &u0, &why);
  uint64_t start = wall_ns();
  emu_thread_enter_call(&v->t, EMU_CALL_STOP, 0);
  victim_call(v, start);
  emu_thread_leave_call(&v->t);
  v->wall_ns = wall_ns() - start;
  ok = ok && emu_thread_usage_sample(pthread_self(), my_tid(), &u1, &why);
  emu_thread_detach(&v->t);
  v->measured = ok;
  if (ok) {
    v->cpu_ns = u1.cpu_ns - u0.cpu_ns;
    v->voluntary_switches = u1.voluntary_switches - u0.voluntary_switches;
  }
  return NULL;
}

/* Runs the victim on a thread of its own; false if it could not start.
 * `delta`: what the watchdog decided meanwhile. */
static bool run_victim(victim *v, emu_watchdog_counts *delta) {
  emu_watchdog_counts before, after;
  memset(delta, 0, sizeof *delta);
  emu_watchdog_counts_get(&before);
  pthread_t th;
  if (pthread_create(&th, NULL, victim_main, v) != 0)
    return false;
  pthread_join(th, NULL);
  emu_watchdog_counts_get(&after);
  delta->slow_cpu = after.slow_cpu - before.slow_cpu;
  delta->slow_blocked = after.slow_blocked - before.slow_blocked;
  delta->slow_wall = after.slow_wall - before.slow_wall;
  delta->excused = after.excused - before.excused;
  return v->setup_errno == 0;
}

/* A nice-0 thread that keeps one CPU busy. */
typedef struct hog {
  int cpu;
  int ready, stop;
  int setup_errno;
} hog;

static void *hog_main(void *arg) {
  hog *h = arg;
  if (!pin_to(h->cpu))
    h->setup_errno = errno;
  __atomic_store_n(&h->ready, 1, __ATOMIC_RELEASE);
  while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED))
    ;
  return NULL;
}

static int first_allowed_cpu(void) {
  cpu_set_t set;
  assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set))
      return c;
  fail_msg("no CPU in the affinity mask");
  return -1;
}

static void test_descheduled_excused_sleeper_reported(void **state) {
  (void)state;
  hog h = {.cpu = first_allowed_cpu()};
  pthread_t hog_th;
  assert_int_equal(pthread_create(&hog_th, NULL, hog_main, &h), 0);
  while (!__atomic_load_n(&h.ready, __ATOMIC_ACQUIRE))
    sched_yield();
  assert_int_equal(h.setup_errno, 0);

  /* only descheduled: stays in its call past the limit, not reported */
  victim v = {.action = SPIN_UNTIL_EXCUSED, .cpu = h.cpu, .nice = 19};
  emu_watchdog_counts d;
  bool ran = run_victim(&v, &d);
  /* a short wait of its own first (a lock contended for 1 ms), then only
   * descheduled: not reported either (a voluntary switch alone is no
   * proof of a long wait) */
  victim n = {.action = NAP_THEN_SPIN_UNTIL_EXCUSED, .cpu = h.cpu, .nice = 19};
  emu_watchdog_counts dn;
  bool ran_n = run_victim(&n, &dn);
  __atomic_store_n(&h.stop, 1, __ATOMIC_RELAXED);
  pthread_join(hog_th, NULL);
  assert_true(ran);
  assert_true(ran_n);
  print_message("napped, then descheduled: wall %.1f ms, CPU %.2f ms, %llu "
                "voluntary switches\n",
                (double)n.wall_ns / 1e6, (double)n.cpu_ns / 1e6,
                (unsigned long long)n.voluntary_switches);
  assert_int_equal(reported(&dn), 0);
  assert_int_equal(dn.excused, 1);
  assert_true(n.measured);
  assert_true(n.wall_ns >= LIMIT_NS);
  assert_true(n.voluntary_switches >= 1);
  print_message("descheduled: wall %.1f ms, CPU %.2f ms, %llu voluntary "
                "switches\n",
                (double)v.wall_ns / 1e6, (double)v.cpu_ns / 1e6,
                (unsigned long long)v.voluntary_switches);
  assert_int_equal(reported(&d), 0);
  assert_int_equal(d.excused, 1);
  assert_true(v.measured);
  assert_true(v.wall_ns >= LIMIT_NS);
  assert_true(v.cpu_ns < LIMIT_NS / 4); /* ~1.5 % of its wall time */
  assert_int_equal(v.voluntary_switches, 0);
  assert_int_equal(emu_call_judge(v.cpu_ns, 0, LIMIT_NS), EMU_CALL_NOT_SLOW);

  /* sleeps in its call: reported as blocked on its own */
  victim s = {.action = SLEEP_UNTIL_REPORTED, .cpu = -1};
  assert_true(run_victim(&s, &d));
  assert_int_equal(d.slow_blocked, 1);
  assert_int_equal(d.slow_cpu + d.slow_wall, 0);
  assert_true(s.measured);
  assert_true(s.voluntary_switches > 0);
  assert_true(s.cpu_ns < LIMIT_NS / 4);
  assert_int_equal(emu_call_judge(s.cpu_ns, s.wall_ns, LIMIT_NS),
                   EMU_CALL_SLOW_BLOCKED);
}

/* ---------- init/finalize waiting for the plugin's own thread ---------- */
typedef struct helper {
  bool starved; /* true: spin pinned beside a hog at nice 19; false: sleep */
  int cpu;
  pthread_mutex_t m;
  pthread_cond_t cv;
  bool done;
  int setup_errno;
} helper;

/* The plugin's writer, as finalize waits for it: not an emulator thread.
 * Works (spins, or sleeps) until the watchdog has decided on the call. */
static void *helper_main(void *arg) {
  helper *h = arg;
  if (h->starved &&
      (!pin_to(h->cpu) || setpriority(PRIO_PROCESS, (id_t)my_tid(), 19) != 0))
    h->setup_errno = errno;
  emu_watchdog_counts before, now;
  emu_watchdog_counts_get(&before);
  now = before;
  uint64_t start = wall_ns();
  /* The starved one stops at the first verdict; the sleeping one only when
   * reported (it may be excused first, at a look where its sleep was just
   * under the limit, as any sleeper). */
  while ((!h->starved || now.excused == before.excused) &&
         reported(&now) == reported(&before) &&
         wall_ns() - start < 30 * SECOND_NS) {
    if (!h->starved) {
      struct timespec ts = {0, (long)(LIMIT_NS / 4)};
      nanosleep(&ts, NULL);
    }
    emu_watchdog_counts_get(&now);
  }
  pthread_mutex_lock(&h->m);
  h->done = true;
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->m);
  return NULL;
}

typedef struct finalizer {
  helper *h;
  emu_thread t;
} finalizer;

/* finalize: starts the helper and waits for it, as a plugin joins its
 * writer. */
static void *finalizer_main(void *arg) {
  finalizer *f = arg;
  emu_thread_init(&f->t, 0, EMU_STREAM_MAIN, EMU_ROLE_MAIN, "finalizer", 1);
  emu_thread_attach(&f->t);
  emu_thread_enter_call(&f->t, EMU_CALL_FINALIZE, 0);
  pthread_t th;
  if (pthread_create(&th, NULL, helper_main, f->h) == 0) {
    pthread_mutex_lock(&f->h->m);
    while (!f->h->done)
      pthread_cond_wait(&f->h->cv, &f->h->m);
    pthread_mutex_unlock(&f->h->m);
    pthread_join(th, NULL);
  }
  emu_thread_leave_call(&f->t);
  emu_thread_detach(&f->t);
  return NULL;
}

static void run_finalizer(helper *h, emu_watchdog_counts *delta) {
  emu_watchdog_counts before, after;
  emu_watchdog_counts_get(&before);
  finalizer f = {.h = h};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, finalizer_main, &f), 0);
  pthread_join(th, NULL);
  emu_watchdog_counts_get(&after);
  delta->slow_cpu = after.slow_cpu - before.slow_cpu;
  delta->slow_blocked = after.slow_blocked - before.slow_blocked;
  delta->slow_wall = after.slow_wall - before.slow_wall;
  delta->excused = after.excused - before.excused;
}

static void test_finalize_waiting_for_a_starved_helper_excused(void **state) {
  (void)state;
  hog g = {.cpu = first_allowed_cpu()};
  pthread_t hog_th;
  assert_int_equal(pthread_create(&hog_th, NULL, hog_main, &g), 0);
  while (!__atomic_load_n(&g.ready, __ATOMIC_ACQUIRE))
    sched_yield();
  assert_int_equal(g.setup_errno, 0);
  /* finalize asleep while its helper waits for a CPU: the machine's fault */
  helper starved = {.starved = true,
                    .cpu = g.cpu,
                    .m = PTHREAD_MUTEX_INITIALIZER,
                    .cv = PTHREAD_COND_INITIALIZER};
  emu_watchdog_counts d;
  run_finalizer(&starved, &d);
  __atomic_store_n(&g.stop, 1, __ATOMIC_RELAXED);
  pthread_join(hog_th, NULL);
  assert_int_equal(starved.setup_errno, 0);
  assert_int_equal(reported(&d), 0);
  assert_int_equal(d.excused, 1);

  /* finalize asleep while its helper sleeps: the plugin's own wait */
  helper sleeping = {.starved = false,
                     .cpu = -1,
                     .m = PTHREAD_MUTEX_INITIALIZER,
                     .cv = PTHREAD_COND_INITIALIZER};
  run_finalizer(&sleeping, &d);
  assert_int_equal(d.slow_blocked, 1);
  assert_int_equal(d.slow_cpu + d.slow_wall, 0);
}

static void test_spinner_reported(void **state) {
  (void)state;
  victim v = {.action = SPIN_UNTIL_REPORTED, .cpu = -1};
  emu_watchdog_counts d;
  assert_true(run_victim(&v, &d));
  assert_int_equal(d.slow_cpu, 1);
  assert_int_equal(d.slow_blocked + d.slow_wall, 0);
  assert_true(v.measured);
  assert_true(v.cpu_ns >= LIMIT_NS);
}

static void test_unreadable_falls_back_to_wall_time(void **state) {
  (void)state;
  victim v = {.action = SLEEP_UNTIL_REPORTED, .cpu = -1, .fake_tid = INT_MAX};
  emu_watchdog_counts d;
  assert_true(run_victim(&v, &d));
  assert_int_equal(d.slow_wall, 1);
  assert_int_equal(d.slow_cpu + d.slow_blocked, 0);
}

static int start_watchdog(void **state) {
  (void)state;
  emu_check_configure(true, LIMIT_MS, LIMIT_MS);
  emu_watchdog_start();
  return 0;
}

static int stop_watchdog(void **state) {
  (void)state;
  emu_watchdog_stop();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rule),
      cmocka_unit_test(test_parse_status),
      cmocka_unit_test(test_parse_syscall),
      cmocka_unit_test(test_parse_schedstat),
      cmocka_unit_test(test_foreign_wait),
      cmocka_unit_test(test_sample),
      cmocka_unit_test(test_descheduled_excused_sleeper_reported),
      cmocka_unit_test(test_spinner_reported),
      cmocka_unit_test(test_finalize_waiting_for_a_starved_helper_excused),
      cmocka_unit_test(test_unreadable_falls_back_to_wall_time),
  };
  return cmocka_run_group_tests(tests, start_watchdog, stop_watchdog);
}
