/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/check/emu_check.c — owns the --check violations (counters and
 * messages), the watchdog that finds slow callbacks (the rule:
 * emu_call_usage.h), and the guard region that foreign PXN pointers are aliased
 * into.
 */
#include "check/emu_check.h"

#include "check/emu_call_usage.h"
#include "emu_threads.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MESSAGES_PER_KIND 3
#define GUARD_REGION_SIZE (1u << 20)

static bool check_enabled;
static uint64_t max_callback_ns;
static uint64_t max_lifecycle_ns;
static uint64_t counts[EMU_CHECK_KIND_COUNT];
static pthread_mutex_t message_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static char *guard_region;

static const char *const kind_names[EMU_CHECK_KIND_COUNT] = {
    "unwritten *eHandle (docs/nccl-behaviour.md §3.1)",
    "init returned an error (docs/nccl-behaviour.md §2: never fail init)",
    "callback blocked too long (docs/invariants.md, invariant 3)"};

void emu_check_configure(bool enabled, double max_callback_ms,
                         double max_lifecycle_ms) {
  max_lifecycle_ns = (uint64_t)(max_lifecycle_ms * 1e6);
  check_enabled = enabled;
  max_callback_ns = (uint64_t)(max_callback_ms * 1e6);
}

bool emu_check_enabled(void) {
  return check_enabled;
}
uint64_t emu_check_max_callback_ns(void) {
  return max_callback_ns;
}

void emu_check_report(emu_check_kind kind, const char *fmt, ...) {
  uint64_t n = __atomic_add_fetch(&counts[kind], 1, __ATOMIC_RELAXED);
  if (n > MESSAGES_PER_KIND)
    return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&message_mutex);
  fprintf(stderr, "ncclemu: CHECK FAILED [pid %d]: %s\n", (int)getpid(), msg);
  pthread_mutex_unlock(&message_mutex);
}

uint64_t emu_check_count(emu_check_kind kind) {
  return __atomic_load_n(&counts[kind], __ATOMIC_RELAXED);
}

uint64_t emu_check_total(void) {
  uint64_t total = 0;
  for (int k = 0; k < EMU_CHECK_KIND_COUNT; k++)
    total += emu_check_count((emu_check_kind)k);
  return total;
}

void emu_check_summary(const char *worker_label) {
  for (int k = 0; k < EMU_CHECK_KIND_COUNT; k++) {
    uint64_t n = emu_check_count((emu_check_kind)k);
    if (n > 0)
      fprintf(stderr, "ncclemu: %s: %llu violation(s): %s\n", worker_label,
              (unsigned long long)n, kind_names[k]);
  }
}

/* ---------- watchdog ---------- */
#define WATCH_MAX 512

typedef struct watched {
  emu_thread *t;
  uint64_t seen_entered;  /* the call being timed (0 = none) */
  uint64_t since_ns;      /* when the watchdog first saw it */
  uint64_t reported;      /* the last call reported */
  uint64_t excused;       /* the last call excused (counted once) */
  bool measured;          /* every look at the call so far succeeded */
  emu_thread_usage first; /* at the first look */
  emu_thread_usage last;  /* at the latest look */
  uint64_t last_look_ns;
  uint64_t asleep_ns;     /* seen asleep since the first look (estimated) */
  emu_thread_usage slept; /* the latest look that saw it asleep */
  bool slept_seen;
  /* init/finalize only: the plugin's own threads (writer, exporters), for
   * the time they waited for a CPU while the call waited for them. */
  bool lifecycle;
  bool foreign_known;
  emu_foreign_threads foreign_last;
  uint64_t foreign_runq_ns;
} watched;

static pthread_mutex_t watch_mutex = PTHREAD_MUTEX_INITIALIZER;
static watched watch_list[WATCH_MAX];
static int watch_count;
static bool watch_running;
static bool watch_stop_requested;
static pthread_t watch_thread;
static pthread_cond_t watch_cv = PTHREAD_COND_INITIALIZER;
/* read by anyone without the mutex (emu_watchdog_counts_get) */
static emu_watchdog_counts verdict_counts;
static bool usage_warned;

void emu_watchdog_register(emu_thread *t) {
  pthread_mutex_lock(&watch_mutex);
  if (watch_running && watch_count < WATCH_MAX)
    watch_list[watch_count++] = (watched){.t = t};
  pthread_mutex_unlock(&watch_mutex);
}

void emu_watchdog_unregister(emu_thread *t) {
  pthread_mutex_lock(&watch_mutex);
  for (int i = 0; i < watch_count; i++)
    if (watch_list[i].t == t) {
      watch_list[i] = watch_list[--watch_count];
      break;
    }
  pthread_mutex_unlock(&watch_mutex);
}

void emu_watchdog_counts_get(emu_watchdog_counts *c) {
  c->slow_cpu = __atomic_load_n(&verdict_counts.slow_cpu, __ATOMIC_RELAXED);
  c->slow_blocked =
      __atomic_load_n(&verdict_counts.slow_blocked, __ATOMIC_RELAXED);
  c->slow_wall = __atomic_load_n(&verdict_counts.slow_wall, __ATOMIC_RELAXED);
  c->excused = __atomic_load_n(&verdict_counts.excused, __ATOMIC_RELAXED);
}

static void count_verdict(uint64_t *counter) {
  __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

static const char *call_name(uint32_t what) {
  static const char *const names[] = {
      "?", "init", "startEvent", "recordEventState", "stopEvent", "finalize"};
  uint32_t kind = what >> 16;
  return kind < sizeof names / sizeof *names ? names[kind] : "?";
}

/* A look at the thread of `w`; on failure the wall-time rule is used for
 * the call, and the first failure in the process is said once. */
static bool look(const watched *w, emu_thread_usage *u) {
  const char *why = NULL;
  if (emu_thread_usage_sample(w->t->self, w->t->tid, u, &why))
    return true;
  if (!__atomic_exchange_n(&usage_warned, true, __ATOMIC_RELAXED))
    emu_warn("--check: cannot read %s of thread %s: calls of threads that "
             "cannot be read are judged by wall time alone, so one that was "
             "only descheduled may be reported",
             why, w->t->name);
  return false;
}

static bool same_call_in_flight(const watched *w) {
  return EMU_LOAD_RELAXED(&w->t->calls_entered) == w->seen_entered &&
         EMU_LOAD_RELAXED(&w->t->calls_left) != w->seen_entered;
}

static void report_slow(const watched *w, uint64_t wall, uint64_t limit,
                        const char *why) {
  uint32_t what = EMU_LOAD_RELAXED(&w->t->call_what);
  const char *type = (what >> 16) == EMU_CALL_START
                         ? emu_event_type_name(1ULL << (what & 0xFF))
                         : "-";
  emu_check_report(EMU_CHECK_SLOW_CALLBACK,
                   "%s(%s) on thread %s blocked %.1f ms (limit %.1f ms): %s",
                   call_name(what), type, w->t->name, (double)wall / 1e6,
                   (double)limit / 1e6, why);
}

static uint64_t grown_by(uint64_t before, uint64_t after) {
  return after > before ? after - before : 0;
}

/* Another look at the thread of `w`, inside the same call: the time since
 * the previous look adds to its asleep time. */
static void look_again(watched *w, uint64_t now_ns) {
  emu_thread_usage now;
  if (!w->measured)
    return;
  if (!look(w, &now)) {
    w->measured = false;
    return;
  }
  if (!same_call_in_flight(w))
    return; /* the look fell after the call: it says nothing of it */
  w->asleep_ns +=
      emu_asleep_between(w->last.asleep, now.asleep, now_ns - w->last_look_ns);
  if (now.asleep) {
    w->slept = now;
    w->slept_seen = true;
  }
  w->last = now;
  if (w->foreign_known) {
    emu_foreign_threads f;
    w->foreign_known = emu_foreign_threads_sample(emu_thread_is_own, &f);
    if (w->foreign_known) {
      w->foreign_runq_ns += emu_foreign_wait_between(&w->foreign_last, &f,
                                                     now_ns - w->last_look_ns);
      w->foreign_last = f;
    }
  }
  w->last_look_ns = now_ns;
}

/* ", last seen asleep in <wait channel> (system call N)" for a report. */
static void describe_sleep(const emu_thread_usage *u, char *out, size_t cap) {
  char call[48];
  if (u->syscall_nr >= 0)
    snprintf(call, sizeof call, "system call %d", u->syscall_nr);
  else if (u->syscall_nr == -1)
    snprintf(call, sizeof call, "outside a system call: a page fault");
  else
    snprintf(call, sizeof call, "system call unknown");
  snprintf(out, cap, ", last seen asleep in %s (%s)",
           u->wait_channel[0] ? u->wait_channel : "?", call);
}

/* The call of `w` has been in flight for `wall` >= `limit`: report it if
 * the callback itself took that long (emu_call_judge), else excuse it. */
static void judge(watched *w, uint64_t wall, uint64_t limit) {
  if (!same_call_in_flight(w))
    return;
  if (!w->measured) {
    w->reported = w->seen_entered;
    count_verdict(&verdict_counts.slow_wall);
    report_slow(w, wall, limit,
                "wall time only (CPU time and context switches unreadable)");
    return;
  }
  uint64_t cpu = grown_by(w->first.cpu_ns, w->last.cpu_ns);
  uint64_t switches =
      grown_by(w->first.voluntary_switches, w->last.voluntary_switches);
  /* Asleep: as sampled at each look, but never more than the wall time
   * less CPU time less time waiting for a CPU, where the kernel keeps
   * run-queue times (it adds a wait only once the thread gets a CPU, so
   * that bound alone would count a wait still going on as sleep). */
  uint64_t asleep = w->asleep_ns;
  if (w->first.runq_known && w->last.runq_known) {
    uint64_t bound =
        emu_asleep_exact(w->last_look_ns - w->since_ns, cpu,
                         grown_by(w->first.runq_ns, w->last.runq_ns));
    if (bound < asleep)
      asleep = bound;
  }
  /* init/finalize may wait for the plugin's own threads (finalize joins
   * its writer): their wait for a CPU is the machine's, not the call's. */
  uint64_t helpers_starved = 0;
  if (w->lifecycle && w->foreign_known) {
    helpers_starved = w->foreign_runq_ns < asleep ? w->foreign_runq_ns : asleep;
    asleep -= helpers_starved;
  }
  emu_call_verdict v = emu_call_judge(cpu, asleep, limit);
  if (v == EMU_CALL_NOT_SLOW) {
    if (w->excused != w->seen_entered) {
      w->excused = w->seen_entered;
      count_verdict(&verdict_counts.excused);
    }
    return;
  }
  w->reported = w->seen_entered;
  count_verdict(v == EMU_CALL_SLOW_CPU ? &verdict_counts.slow_cpu
                                       : &verdict_counts.slow_blocked);
  char where[128] = "";
  if (w->slept_seen)
    describe_sleep(&w->slept, where, sizeof where);
  char helpers[96] = "";
  if (helpers_starved > 0)
    snprintf(helpers, sizeof helpers,
             " (not counted: %.1f ms its own threads waited for a CPU)",
             (double)helpers_starved / 1e6);
  char why[420];
  snprintf(why, sizeof why,
           "%s: CPU %.1f ms, asleep about %.1f ms%s%s, %llu voluntary "
           "context switch%s",
           v == EMU_CALL_SLOW_CPU ? "it used the CPU (computing or spinning)"
                                  : "it waited on its own (sleep, lock or I/O)",
           (double)cpu / 1e6, (double)asleep / 1e6, helpers, where,
           (unsigned long long)switches, switches == 1 ? "" : "es");
  report_slow(w, wall, limit, why);
}

static void watch_pass(uint64_t now) {
  for (int i = 0; i < watch_count; i++) {
    watched *w = &watch_list[i];
    uint64_t entered = EMU_LOAD_RELAXED(&w->t->calls_entered);
    uint64_t left = EMU_LOAD_RELAXED(&w->t->calls_left);
    if (entered == left) {
      w->seen_entered = 0;
      continue;
    }
    if (w->seen_entered != entered) {
      /* first look at this call: only the watchdog samples, never the
       * emitting thread; a call that ends before the next pass costs
       * nothing more */
      w->seen_entered = entered;
      w->since_ns = now;
      w->measured = look(w, &w->first);
      w->last = w->first;
      w->slept = w->first;
      w->slept_seen = w->measured && w->first.asleep;
      uint32_t kind = EMU_LOAD_RELAXED(&w->t->call_what) >> 16;
      w->lifecycle = kind == EMU_CALL_INIT || kind == EMU_CALL_FINALIZE;
      w->foreign_runq_ns = 0;
      w->foreign_known =
          w->lifecycle &&
          emu_foreign_threads_sample(emu_thread_is_own, &w->foreign_last);
      w->last_look_ns = now;
      w->asleep_ns = 0;
      continue;
    }
    if (w->reported == entered)
      continue;
    look_again(w, now);
    uint32_t what = EMU_LOAD_RELAXED(&w->t->call_what);
    bool lifecycle =
        (what >> 16) == EMU_CALL_INIT || (what >> 16) == EMU_CALL_FINALIZE;
    uint64_t limit = lifecycle ? max_lifecycle_ns : max_callback_ns;
    uint64_t wall = now - w->since_ns;
    if (wall >= limit)
      judge(w, wall, limit);
  }
}

static void *watchdog_main(void *arg) {
  (void)arg;
  emu_thread_note_own();
  uint64_t period = max_callback_ns / 4;
  if (period < 1000000)
    period = 1000000;
  if (period > 50000000)
    period = 50000000;
  pthread_mutex_lock(&watch_mutex);
  while (!watch_stop_requested) {
    watch_pass(emu_now_ns());
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + period;
    ts.tv_sec += (time_t)(ns / 1000000000ULL);
    ts.tv_nsec = (long)(ns % 1000000000ULL);
    pthread_cond_timedwait(&watch_cv, &watch_mutex, &ts);
  }
  pthread_mutex_unlock(&watch_mutex);
  return NULL;
}

void emu_watchdog_start(void) {
  if (!check_enabled || max_callback_ns == 0)
    return;
  pthread_mutex_lock(&watch_mutex);
  watch_running = true;
  watch_stop_requested = false;
  pthread_mutex_unlock(&watch_mutex);
  if (pthread_create(&watch_thread, NULL, watchdog_main, NULL) != 0)
    emu_die("cannot start the callback watchdog");
  pthread_setname_np(watch_thread, "emu-watchdog");
}

void emu_watchdog_stop(void) {
  pthread_mutex_lock(&watch_mutex);
  bool running = watch_running;
  watch_stop_requested = true;
  watch_running = false;
  pthread_cond_signal(&watch_cv);
  pthread_mutex_unlock(&watch_mutex);
  if (running)
    pthread_join(watch_thread, NULL);
}

bool emu_address_readable(const void *p) {
  if (p == NULL)
    return false;
  char byte;
  struct iovec local = {&byte, 1};
  struct iovec remote = {(void *)(uintptr_t)p, 1};
  ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (n == 1)
    return true;
  if (errno == EFAULT)
    return false;
  return true; /* cannot tell (e.g. EPERM): assume readable, alias it */
}

static void map_guard_region(void) {
  void *m = mmap(NULL, GUARD_REGION_SIZE, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  guard_region = m == MAP_FAILED ? NULL : m;
}

void *emu_foreign_pointer(void *v, bool guard) {
  if (!guard || v == NULL)
    return v;
  if (!emu_address_readable(v))
    return v; /* already faults here: keep the real value */
  pthread_once(&guard_once, map_guard_region);
  if (guard_region == NULL)
    return v;
  uint64_t offset =
      emu_mix64((uint64_t)(uintptr_t)v) % (GUARD_REGION_SIZE - 64);
  return guard_region + (offset & ~(uint64_t)15);
}

/* ---------- which unwritten slots matter (§3.1, §12) ---------- */
emu_slot_kind emu_check_slot_kind(uint64_t event_type) {
  switch (event_type) {
  case ncclProfileCeSync:
  case ncclProfileCeBatch:
    return EMU_SLOT_FRESH_NULL; /* ce_coll.cc: `void* h = NULL;` per call */
  case ncclProfileKernelPhase:  /* 2.31 profiler.cc: a NULL local per phase */
    return EMU_SLOT_FRESH_NULL;
  case ncclProfileProxyCtrl:
    return EMU_SLOT_UNINITIALISED; /* proxy.cc: a local never set */
  default:
    return EMU_SLOT_RECYCLED;
  }
}

const char *emu_check_unwritten_hazard(emu_slot_kind kind) {
  switch (kind) {
  case EMU_SLOT_FRESH_NULL:
    return NULL;
  case EMU_SLOT_UNINITIALISED:
    return "NCCL's slot for it is an uninitialised local, so it passes "
           "whatever the stack held to recordEventState/stopEvent";
  default:
    return "NCCL keeps the stale slot value and later passes it to "
           "stopEvent/recordEventState";
  }
}
