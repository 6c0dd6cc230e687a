/*
 * src/plugin/writer.c — the writer thread's loop.
 *
 * Each iteration (under state_lock, so fork() never sees half an update):
 *   1. take the lifecycle messages queued by init/finalize/control calls;
 *      a finalize first drains every ring, so the communicator's last
 *      records are in before its leftovers are reclaimed;
 *   2. drain every ring into the assembler (src/plugin/assembler.c), whose
 *      ended events go to the JSONL sink (src/plugin/trace_jsonl.c);
 *   3. periodic work: clock calibration, reclaiming, flushing, freeing the
 *      rings of exited threads.
 * Then it sleeps briefly (producers never wake it: no system calls on the
 * hot path), or continues at once when there was a lot to do.
 */
#include "writer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "assembler.h"
#include "log.h"
#include "ring.h"

#define IDLE_SLEEP_NS 2000000           /* nothing happened: 2 ms */
#define BUSY_SLEEP_NS 500000            /* a little happened: 0.5 ms */
#define BUSY_UNITS 4096                 /* this much: go again at once */
#define CALIBRATE_EVERY_NS 100000000    /* 100 ms */
#define TICK_EVERY_NS 1000000000        /* 1 s */
#define FLUSH_BYTES (256u * 1024u)
#define FINAL_DRAIN_DEADLINE_NS INT64_C(2000000000)

typedef struct {
  uint64_t dropped_starts, dropped_states, dropped_stops;
  uint64_t null_handles, foreign_handles;
  uint64_t high_water;
  uint64_t threads;
} ring_totals;

typedef struct {
  pthread_mutex_t state_lock; /* held by the writer during an iteration */
  pthread_mutex_t ctl_lock;   /* queue, stop flag */
  pthread_cond_t ctl_cond;
  pthread_t thread;
  bool running;
  bool stop_requested;
  bool stop_at_exit;
  cs_ctl_msg *queue;
  size_t queue_len, queue_cap;

  cs_writer_opts opts;
  cs_clock_cal cal;
  cs_assembler *assembler;
  cs_trace_sink trace;
  bool trace_open;
  ring_totals retired; /* counters of freed rings */

  int64_t next_calibration_ns;
  int64_t next_tick_ns;
  int64_t last_flush_ns;
} writer_state;

static writer_state w = {
    .state_lock = PTHREAD_MUTEX_INITIALIZER,
    .ctl_lock = PTHREAD_MUTEX_INITIALIZER,
    .ctl_cond = PTHREAD_COND_INITIALIZER,
};

static int64_t mono_ns(void) {
  return (int64_t)cs_clock_monotonic_ns();
}

/* ---- assembler callbacks ---- */

static void on_event(void *arg, const cs_event *e) {
  (void)arg;
  if (w.trace_open)
    cs_trace_event(&w.trace, e);
}

static void on_late_state(void *arg, uint64_t id, const cs_state_rec *s,
                          int32_t tid, uint8_t etype) {
  (void)arg;
  uint32_t ctx = 0;
  int32_t rank = -1;
  cs_asm_lookup_owner(w.assembler, id, &ctx, &rank);
  if (w.trace_open)
    cs_trace_late_state(&w.trace, id, s, tid, etype, ctx, rank);
}

/* ---- counters ---- */

static void add_ring(ring_totals *t, const cs_ring *r) {
  t->dropped_starts += atomic_load_explicit(&r->dropped_starts,
                                            memory_order_relaxed);
  t->dropped_states += atomic_load_explicit(&r->dropped_states,
                                            memory_order_relaxed);
  t->dropped_stops += atomic_load_explicit(&r->dropped_stops,
                                           memory_order_relaxed);
  t->null_handles += atomic_load_explicit(&r->null_handles,
                                          memory_order_relaxed);
  t->foreign_handles += atomic_load_explicit(&r->foreign_handles,
                                             memory_order_relaxed);
  if (r->high_water > t->high_water)
    t->high_water = r->high_water;
  t->threads++;
}

static void on_ring_freed(const cs_ring *r, void *arg) {
  (void)arg;
  add_ring(&w.retired, r);
}

static void gather_counters(cs_trace_counters *c) {
  ring_totals t = w.retired;
  for (cs_ring *r = cs_ring_list(); r; r = r->next)
    add_ring(&t, r);
  c->asm_counters = cs_asm_get_counters(w.assembler);
  c->dropped_starts = t.dropped_starts;
  c->dropped_states = t.dropped_states;
  c->dropped_stops = t.dropped_stops;
  c->null_handles = t.null_handles;
  c->foreign_handles = t.foreign_handles;
  c->ring_high_water = t.high_water;
  c->threads = t.threads;
}

/* ---- draining ---- */

static size_t drain_ring(cs_ring *r) {
  uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  uint64_t cap = r->mask + 1;
  size_t units = 0;
  if (head - tail > r->high_water)
    r->high_water = head - tail;
  if (!r->announced) {
    r->announced = true;
    if (w.trace_open)
      cs_trace_thread(&w.trace, r->tid, r->thread_name, cs_clock_now());
  }
  while (tail < head) {
    const cs_unit *u = &r->units[tail & r->mask];
    if (u->h.kind == CS_REC_PAD) {
      tail += cap - (tail & r->mask);
      continue;
    }
    unsigned n = u->h.units ? u->h.units : 1;
    cs_asm_record(w.assembler, u, r->tid);
    tail += n;
    units += n;
  }
  atomic_store_explicit(&r->tail, tail, memory_order_release);
  return units;
}

static size_t drain_all(void) {
  size_t units = 0;
  for (cs_ring *r = cs_ring_list(); r; r = r->next)
    units += drain_ring(r);
  return units;
}

/* ---- lifecycle messages ---- */

static void handle_message(const cs_ctl_msg *m) {
  cs_trace_counters counters;
  switch (m->kind) {
  case CS_CTL_CTX_INIT:
    if (w.trace_open)
      cs_trace_ctx_init(&w.trace, m->serial);
    break;
  case CS_CTL_CTX_FINALIZE:
    drain_all(); /* the communicator's last records come first */
    cs_asm_context_finalized(w.assembler, m->serial, m->raw_ts);
    if (w.trace_open) {
      gather_counters(&counters);
      cs_trace_ctx_finalize(&w.trace, m->serial, m->raw_ts, m->tid,
                            &counters);
    }
    break;
  case CS_CTL_MARK:
    drain_all();
    if (w.trace_open)
      cs_trace_mark(&w.trace, m->raw_ts, m->tid, m->label, m->step);
    break;
  case CS_CTL_FLUSH:
    drain_all();
    if (w.trace_open)
      cs_trace_flush(&w.trace);
    w.last_flush_ns = mono_ns();
    break;
  }
}

static size_t handle_queue(void) {
  cs_ctl_msg local[32];
  size_t handled = 0;
  for (;;) {
    size_t n = 0;
    pthread_mutex_lock(&w.ctl_lock);
    while (n < 32 && w.queue_len > 0) {
      local[n++] = w.queue[0];
      memmove(w.queue, w.queue + 1, --w.queue_len * sizeof *w.queue);
    }
    pthread_mutex_unlock(&w.ctl_lock);
    if (n == 0)
      return handled;
    for (size_t i = 0; i < n; i++)
      handle_message(&local[i]);
    handled += n;
  }
}

/* ---- periodic work ---- */

static void periodic(bool force_flush) {
  int64_t now = mono_ns();
  if (now >= w.next_calibration_ns) {
    cs_clock_cal_update(&w.cal);
    w.next_calibration_ns = now + CALIBRATE_EVERY_NS;
  }
  if (now >= w.next_tick_ns) {
    cs_asm_tick(w.assembler, cs_clock_now());
    cs_ring_reap_orphans(on_ring_freed, NULL);
    w.next_tick_ns = now + TICK_EVERY_NS;
  }
  if (w.trace_open &&
      (force_flush || w.trace.file.buf.len >= FLUSH_BYTES ||
       (w.trace.file.buf.len > 0 &&
        now - w.last_flush_ns >=
            (int64_t)(w.opts.flush_interval_s * 1e9)))) {
    cs_trace_flush(&w.trace);
    w.last_flush_ns = now;
  }
}

static void finish(void) {
  /* Records keep arriving while other threads run: drain until quiet or
   * until the deadline, whichever comes first. */
  int64_t deadline = mono_ns() + FINAL_DRAIN_DEADLINE_NS;
  while (handle_queue() + drain_all() > 0 && mono_ns() < deadline) {
  }
  cs_asm_end_all(w.assembler,
                 w.stop_at_exit ? CS_END_INFLIGHT : CS_END_RECLAIMED,
                 w.stop_at_exit ? CS_RECLAIM_NONE : CS_RECLAIM_FINALIZE,
                 cs_clock_now());
  if (w.trace_open) {
    cs_trace_counters counters;
    gather_counters(&counters);
    cs_trace_process_end(&w.trace, w.stop_at_exit ? "exit" : "finalize",
                         &counters);
    cs_trace_close(&w.trace);
    w.trace_open = false;
  }
}

static void *writer_main(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "cclscope-writer");
  for (;;) {
    pthread_mutex_lock(&w.state_lock);
    pthread_mutex_lock(&w.ctl_lock);
    bool stopping = w.stop_requested;
    pthread_mutex_unlock(&w.ctl_lock);
    if (stopping) {
      finish();
      pthread_mutex_unlock(&w.state_lock);
      return NULL;
    }
    size_t work = handle_queue() + drain_all();
    periodic(false);
    pthread_mutex_unlock(&w.state_lock);

    if (work >= BUSY_UNITS)
      continue;
    long wait_ns = work > 0 ? BUSY_SLEEP_NS : IDLE_SLEEP_NS;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += wait_ns;
    if (until.tv_nsec >= 1000000000) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&w.ctl_lock);
    while (!w.stop_requested && w.queue_len == 0) {
      if (pthread_cond_timedwait(&w.ctl_cond, &w.ctl_lock, &until) ==
          ETIMEDOUT)
        break;
    }
    pthread_mutex_unlock(&w.ctl_lock);
  }
}

/* ---- public ---- */

bool cs_writer_start(const cs_writer_opts *opts) {
  pthread_condattr_t attr;
  if (w.running)
    return true;
  w.opts = *opts;
  memset(&w.retired, 0, sizeof w.retired);
  cs_clock_cal_start(&w.cal, opts->clock);
  w.opts.env.cal = &w.cal;

  cs_asm_config acfg = {
      .on_event = on_event,
      .on_late_state = on_late_state,
      .arg = NULL,
      .max_live = opts->max_live_events,
      .reclaim_ticks =
          (uint64_t)(opts->reclaim_timeout_s * 1e9 / w.cal.ns_per_tick),
  };
  w.assembler = cs_asm_create(&acfg);
  if (!w.assembler)
    return false;
  w.trace_open = opts->env.mode_trace && cs_trace_open(&w.trace, &w.opts.env);

  w.stop_requested = false;
  w.stop_at_exit = false;
  w.next_calibration_ns = mono_ns() + CALIBRATE_EVERY_NS;
  w.next_tick_ns = mono_ns() + TICK_EVERY_NS;
  w.last_flush_ns = mono_ns();
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_destroy(&w.ctl_cond);
  pthread_cond_init(&w.ctl_cond, &attr);
  pthread_condattr_destroy(&attr);

  /* The writer must never receive the application's signals. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&w.thread, NULL, writer_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    if (w.trace_open)
      cs_trace_close(&w.trace);
    w.trace_open = false;
    cs_asm_destroy(w.assembler);
    w.assembler = NULL;
    return false;
  }
  w.running = true;
  return true;
}

void cs_writer_post(const cs_ctl_msg *msg) {
  pthread_mutex_lock(&w.ctl_lock);
  if (w.running) {
    if (w.queue_len == w.queue_cap) {
      size_t cap = w.queue_cap ? w.queue_cap * 2 : 16;
      cs_ctl_msg *q = realloc(w.queue, cap * sizeof *q);
      if (q) {
        w.queue = q;
        w.queue_cap = cap;
      }
    }
    if (w.queue_len < w.queue_cap) {
      w.queue[w.queue_len++] = *msg;
      pthread_cond_signal(&w.ctl_cond);
    }
  }
  pthread_mutex_unlock(&w.ctl_lock);
}

void cs_writer_stop(bool at_exit) {
  if (!w.running)
    return;
  pthread_mutex_lock(&w.ctl_lock);
  w.stop_requested = true;
  w.stop_at_exit = at_exit;
  pthread_cond_signal(&w.ctl_cond);
  pthread_mutex_unlock(&w.ctl_lock);
  pthread_join(w.thread, NULL);
  w.running = false;
  cs_asm_destroy(w.assembler);
  w.assembler = NULL;
  free(w.queue);
  w.queue = NULL;
  w.queue_len = w.queue_cap = 0;
}

bool cs_writer_running(void) {
  return w.running;
}

const char *cs_writer_trace_path(void) {
  return w.trace_open ? w.trace.file.path : "";
}

void cs_writer_atfork_prepare(void) {
  pthread_mutex_lock(&w.state_lock);
  pthread_mutex_lock(&w.ctl_lock);
}

void cs_writer_atfork_parent(void) {
  pthread_mutex_unlock(&w.ctl_lock);
  pthread_mutex_unlock(&w.state_lock);
}

void cs_writer_atfork_child(void) {
  /* The writer thread does not exist here; its state is consistent because
   * the parent held state_lock across fork(). The parent's file is the
   * parent's: close it without writing. */
  if (w.running) {
    if (w.trace_open)
      cs_tf_abandon(&w.trace.file);
    w.trace_open = false;
    cs_asm_destroy(w.assembler);
    w.assembler = NULL;
    free(w.queue);
    w.queue = NULL;
    w.queue_len = w.queue_cap = 0;
    w.running = false;
  }
  pthread_mutex_init(&w.ctl_lock, NULL);
  pthread_mutex_init(&w.state_lock, NULL);
  pthread_cond_init(&w.ctl_cond, NULL);
}
