/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/writer.c — the writer thread's loop.
 *
 * Each iteration (under state_lock, so fork() never sees half an update):
 *   1. take the lifecycle messages queued by init/finalize/control calls;
 *      a finalize first drains every ring, so the communicator's last
 *      records are in before its leftovers are reclaimed;
 *   2. drain every ring into the assembler (src/plugin/writer/assembler.c),
 * whose ended events go to the JSONL sink (src/plugin/trace/trace_jsonl.c);
 *   3. periodic work: clock calibration, reclaiming, flushing, freeing the
 *      rings of exited threads.
 * Then it sleeps briefly (producers never wake it: no system calls on the
 * hot path), or continues at once when there was a lot to do.
 */
#include "writer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "assembler.h"
#include "completion.h"
#include "export_http.h"
#include "export_otlp.h"
#include "inflight.h"
#include "log.h"
#include "metrics.h"
#include "out_dir.h"
#include "prom_textfile.h"
#include "ring.h"
#include "session.h"
#include "watchdog.h"

#define IDLE_SLEEP_NS 2000000               /* nothing happened: 2 ms */
#define BUSY_SLEEP_NS 500000                /* a little happened: 0.5 ms */
#define BUSY_UNITS (262144 / CS_UNIT_BYTES) /* 256 KiB drained: at once */
#define CALIBRATE_EVERY_NS 100000000        /* 100 ms */
#define TICK_EVERY_NS 1000000000            /* 1 s */
#define TIMING_EVERY_NS 10000000            /* completion checks: 10 ms */
#define TIMING_GRACE_NS INT64_C(100000000)  /* quiet time before a timing */
/* Ring units read ahead (the lines are in the producer's core's cache:
 * 1 KiB ahead), and how often a long drain gives room back to the
 * producer (every 16 KiB). */
#define PREFETCH_UNITS (1024 / CS_UNIT_BYTES)
#define RELEASE_EVERY_UNITS (16384 / CS_UNIT_BYTES)
#define FINAL_DRAIN_DEADLINE_NS INT64_C(2000000000)

typedef struct {
  uint64_t dropped_starts, dropped_states, dropped_stops;
  uint64_t null_handles, foreign_handles;
  uint64_t sampled_out, too_small;
  uint64_t high_water;
  uint64_t threads;
} ring_totals;

typedef struct {
  pthread_mutex_t state_lock; /* held by the writer during an iteration */
  pthread_mutex_t ctl_lock;   /* queue, stop flag */
  pthread_cond_t ctl_cond;
  pthread_t thread;
  bool running;
  bool thread_started; /* writer_main has begun (under ctl_lock) */
  bool stop_requested;
  bool stop_at_exit;
  cs_ctl_msg *queue;
  size_t queue_len, queue_cap;
  pthread_cond_t dump_cond; /* dumps_done moved (under ctl_lock) */
  uint64_t dumps_requested, dumps_done;

  cs_writer_opts opts;
  cs_clock_cal cal;
  cs_assembler *assembler;
  cs_completion *completion;
  cs_metrics *metrics;
  cs_watchdog *watchdog;
  uint64_t recoveries_seen; /* cs_watchdog_recoveries at the last scan */
  bool finalizing;          /* a communicator was finalized (or aborted) */
  cs_out_dir out_dir;       /* opts.env.dir, opened once (out_dir.h) */
  cs_prom_textfile prom;    /* the Prometheus textfile, if any */
  bool otlp_on;
  uint64_t records; /* records processed: the callbacks recorded */
  cs_trace_sink trace;
  bool trace_open;
  ring_totals retired; /* counters of freed rings */

  int64_t next_calibration_ns;
  int64_t next_tick_ns;
  int64_t next_timing_ns;
} writer_state;

static writer_state writer = {
    .state_lock = PTHREAD_MUTEX_INITIALIZER,
    .ctl_lock = PTHREAD_MUTEX_INITIALIZER,
    .ctl_cond = PTHREAD_COND_INITIALIZER,
    .dump_cond = PTHREAD_COND_INITIALIZER,
};

static int64_t mono_ns(void) {
  return (int64_t)cs_clock_monotonic_ns();
}

/* ---- assembler and completion callbacks ---- */

/* The watchdog watches the starts and ends of types the completion takes
 * too, so most events (steps, network events) pass both after one test. */
_Static_assert((CS_WATCHDOG_START_TYPES & ~CS_COMPLETION_START_TYPES) == 0,
               "on_start: a type only the watchdog takes would be skipped");
_Static_assert((CS_WATCHDOG_END_TYPES & ~CS_COMPLETION_END_TYPES) == 0,
               "on_event: a type only the watchdog takes would be skipped");

static void on_start(void *arg, const cs_event *e) {
  (void)arg;
  if (e->etype >= 32 || !((CS_COMPLETION_START_TYPES >> e->etype) & 1u))
    return;
  cs_completion_started(writer.completion, e);
  cs_watchdog_started(writer.watchdog, e);
}

/* The Coll/P2p a ProxyStep works for: its ProxyOp's parent (the ProxyOp
 * ends after its steps, so it is still live); 0 when unknown. */
static uint64_t step_operation(const cs_event *e) {
  if (e->etype != CS_EV_PROXY_STEP || e->parent_kind != CS_PARENT_LOCAL)
    return 0;
  const cs_event *op =
      e->op ? e->op : cs_asm_live_get(writer.assembler, e->parent);
  return op && op->parent_kind == CS_PARENT_LOCAL ? op->parent : 0;
}

static void on_event(void *arg, const cs_event *e) {
  (void)arg;
  if (writer.trace_open)
    cs_trace_event(&writer.trace, e);
  if (e->etype < 32 && (CS_COMPLETION_END_TYPES >> e->etype) & 1u) {
    cs_completion_ended(writer.completion, e);
    cs_watchdog_ended(writer.watchdog, e);
  }
  /* The operation is looked up only for the steps whose transfer counts. */
  cs_metrics_event(writer.metrics, e,
                   cs_metrics_takes_transfer(e) ? step_operation(e) : 0,
                   &writer.cal);
}

static void on_timing(void *arg, const cs_timing *t) {
  (void)arg;
  if (writer.trace_open)
    cs_trace_timing(&writer.trace, t);
  cs_metrics_timing(writer.metrics, t);
  cs_watchdog_timing(writer.watchdog, t);
}

static void on_late_state(void *arg, uint64_t id, const cs_state_rec *s,
                          int32_t tid, uint8_t etype) {
  (void)arg;
  uint32_t ctx = 0;
  int32_t rank = -1;
  cs_asm_lookup_owner(writer.assembler, id, &ctx, &rank);
  if (writer.trace_open)
    cs_trace_late_state(&writer.trace, id, s, tid, etype, ctx, rank);
}

/* ---- counters ---- */

static void add_ring(ring_totals *t, const cs_ring *r) {
  t->dropped_starts +=
      atomic_load_explicit(&r->dropped_starts, memory_order_relaxed);
  t->dropped_states +=
      atomic_load_explicit(&r->dropped_states, memory_order_relaxed);
  t->dropped_stops +=
      atomic_load_explicit(&r->dropped_stops, memory_order_relaxed);
  t->null_handles +=
      atomic_load_explicit(&r->null_handles, memory_order_relaxed);
  t->foreign_handles +=
      atomic_load_explicit(&r->foreign_handles, memory_order_relaxed);
  t->sampled_out += atomic_load_explicit(&r->sampled_out, memory_order_relaxed);
  t->too_small += atomic_load_explicit(&r->too_small, memory_order_relaxed);
  if (r->high_water > t->high_water)
    t->high_water = r->high_water;
  t->threads++;
}

static void on_ring_freed(const cs_ring *r, void *arg) {
  (void)arg;
  add_ring(&writer.retired, r);
}

static void gather_counters(cs_trace_counters *c) {
  ring_totals t = writer.retired;
  for (cs_ring *r = cs_ring_list(); r; r = r->next)
    add_ring(&t, r);
  c->asm_counters = cs_asm_get_counters(writer.assembler);
  c->dropped_starts = t.dropped_starts;
  c->dropped_states = t.dropped_states;
  c->dropped_stops = t.dropped_stops;
  c->null_handles = t.null_handles;
  c->foreign_handles = t.foreign_handles;
  c->sampled_out = t.sampled_out;
  c->too_small = t.too_small;
  c->ring_high_water = t.high_water;
  c->ring_inline_allocs = cs_ring_inline_allocs();
  c->threads = t.threads;
}

/* ---- draining ---- */

static size_t drain_ring(cs_ring *r) {
  uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  /* The ring's own fields share a cache line with `head`, which the
   * producer writes on every callback: read them once, not per record. */
  const uint64_t mask = r->mask;
  const cs_unit *ring_units = r->units;
  const int32_t tid = r->tid;
  uint64_t cap = mask + 1;
  size_t units = 0, records = 0;
  /* Loaded once: the calls below cannot change them, but the compiler,
   * not knowing that, would load them again for every record. */
  cs_assembler *const assembler = writer.assembler;
  const bool trace_open = writer.trace_open;
  if (head - tail > r->high_water)
    r->high_water = head - tail;
  if (!r->announced) {
    r->announced = true;
    if (writer.trace_open)
      cs_trace_thread(&writer.trace, r->tid, r->thread_name, cs_clock_now());
  }
  while (tail < head) {
    const cs_unit *u = &ring_units[tail & mask];
    /* The producer wrote these lines on another core: ask for the next
     * ones while this record is processed. */
    if (tail + PREFETCH_UNITS < head)
      __builtin_prefetch(&ring_units[(tail + PREFETCH_UNITS) & mask]);
    if (u->h.kind == CS_REC_PAD) {
      tail += cap - (tail & mask);
      continue;
    }
    unsigned n = u->h.units ? u->h.units : 1;
    cs_asm_record(assembler, u, tid);
    records++;
    /* Write as we go: the buffer stays small (in cache, no page faults)
     * however much a burst left in the rings. */
    if (trace_open)
      cs_trace_write_if_due(&writer.trace);
    tail += n;
    units += n;
    if ((units & (RELEASE_EVERY_UNITS - 1)) < n)
      atomic_store_explicit(&r->tail, tail, memory_order_release);
  }
  atomic_store_explicit(&r->tail, tail, memory_order_release);
  writer.records += records;
  return units;
}

static size_t drain_all(void) {
  size_t units = 0;
  for (cs_ring *r = cs_ring_list(); r; r = r->next)
    units += drain_ring(r);
  return units;
}

/* ---- hang watchdog and snapshots ---- */

static const char *const mark_names[8] = {"step", "label", "pause", "resume",
                                          "dump", "mark",  "mark",  "mark"};

static void watchdog_say(void *arg, bool warning, const char *text) {
  (void)arg;
  /* The all-clear goes where the warning went (NCCL_DEBUG=WARN). */
  if (warning)
    cs_log_warn("possible hang: %s", text);
  else
    cs_log_warn("%s", text);
}

static void watchdog_check(int64_t epoch_now) {
  const cs_wd_picture *pic = NULL;
  size_t fresh = cs_watchdog_scan(writer.watchdog, writer.assembler, epoch_now,
                                  watchdog_say, NULL, &pic);
  if (fresh && pic && cs_inflight_write(&writer.opts.env, pic, "hang")) {
    char path[4096];
    cs_inflight_path(&writer.opts.env, path, sizeof path);
    cs_log_warn("everything in flight is in %s (cclscope hang DIR reads the "
                "snapshots of all ranks)",
                path);
  }
  /* A reported operation moved again or ended: its snapshot would claim a
   * hang that is over (and hide where the rank is now), so it is rewritten
   * with what is in flight now. Not once a communicator was finalized: a
   * hang ended by an abort keeps the snapshot that shows it. */
  uint64_t recoveries = cs_watchdog_recoveries(writer.watchdog);
  if (recoveries != writer.recoveries_seen) {
    writer.recoveries_seen = recoveries;
    if (!fresh && pic && !writer.finalizing)
      cs_inflight_write(&writer.opts.env, pic, "recovered");
  }
  if (fresh && writer.trace_open)
    cs_trace_sync(&writer.trace); /* the job may be killed soon */
}

/* Flush, snapshot, and tell the waiting cclscope_dump() caller. */
static void dump_now(uint64_t ticket, uint64_t raw_ts, int32_t tid) {
  drain_all();
  if (writer.trace_open) {
    cs_trace_mark(&writer.trace, raw_ts, tid, "dump", "", -1);
    cs_trace_sync_requested(&writer.trace);
  }
  int64_t now = cs_clock_epoch_now(&writer.cal);
  const cs_wd_picture *pic =
      cs_watchdog_picture(writer.watchdog, writer.assembler, now);
  cs_inflight_write(&writer.opts.env, pic, "dump");
  pthread_mutex_lock(&writer.ctl_lock);
  if (ticket > writer.dumps_done)
    writer.dumps_done = ticket;
  pthread_cond_broadcast(&writer.dump_cond);
  pthread_mutex_unlock(&writer.ctl_lock);
}

/* ---- lifecycle messages ---- */

static void handle_message(const cs_ctl_msg *m) {
  cs_trace_counters counters;
  switch (m->kind) {
  case CS_CTL_CTX_INIT:
    if (writer.trace_open)
      cs_trace_ctx_init(&writer.trace, m->serial);
    break;
  case CS_CTL_CTX_FINALIZE:
    drain_all(); /* the communicator's last records come first */
    /* What ended before the finalize is a recovery (the snapshot is
     * rewritten); what the finalize reclaims is not. */
    if (writer.opts.hang_timeout_s > 0 &&
        cs_watchdog_hangs_reported(writer.watchdog) > 0 && !writer.finalizing)
      watchdog_check(cs_clock_epoch_now(&writer.cal));
    writer.finalizing = true;
    cs_asm_context_finalized(writer.assembler, m->serial, m->raw_ts);
    cs_completion_set_now(writer.completion, cs_clock_epoch_now(&writer.cal));
    cs_completion_flush(writer.completion, m->serial);
    if (writer.trace_open) {
      gather_counters(&counters);
      cs_trace_ctx_finalize(&writer.trace, m->serial, m->raw_ts, m->tid,
                            &counters);
    }
    break;
  case CS_CTL_MARK:
    drain_all();
    if (writer.trace_open)
      cs_trace_mark(&writer.trace, m->raw_ts, m->tid, mark_names[m->mark & 7],
                    m->label, m->step);
    if (m->mark == CS_MARK_STEP)
      cs_metrics_step(writer.metrics, m->step,
                      cs_clock_to_epoch_ns(&writer.cal, m->raw_ts));
    break;
  case CS_CTL_FLUSH:
    drain_all();
    if (writer.trace_open)
      cs_trace_sync_requested(&writer.trace);
    break;
  case CS_CTL_DUMP:
    dump_now((uint64_t)m->step, m->raw_ts, m->tid);
    break;
  }
}

static size_t handle_queue(void) {
  cs_ctl_msg local[32];
  size_t handled = 0;
  for (;;) {
    size_t n = 0;
    pthread_mutex_lock(&writer.ctl_lock);
    while (n < 32 && writer.queue_len > 0) {
      local[n++] = writer.queue[0];
      memmove(writer.queue, writer.queue + 1,
              --writer.queue_len * sizeof *writer.queue);
    }
    pthread_mutex_unlock(&writer.ctl_lock);
    if (n == 0)
      return handled;
    for (size_t i = 0; i < n; i++)
      handle_message(&local[i]);
    handled += n;
  }
}

/* ---- metrics ---- */

static void health_snapshot(cs_metrics_health *h) {
  cs_trace_counters c;
  gather_counters(&c);
  const cs_asm_counters *a = c.asm_counters;
  const cs_completion_counters *t =
      cs_completion_get_counters(writer.completion);
  memset(h, 0, sizeof *h);
  h->callbacks = writer.records + c.null_handles + c.foreign_handles +
                 c.dropped_starts + c.dropped_states + c.dropped_stops;
  h->dropped_starts = c.dropped_starts + a->live_cap_drops;
  h->dropped_states = c.dropped_states;
  h->dropped_stops = c.dropped_stops;
  memcpy(h->reclaimed, a->reclaimed, sizeof h->reclaimed);
  h->inflight = a->live_now;
  h->ring_high_water_bytes = c.ring_high_water * CS_UNIT_BYTES;
  h->threads = c.threads;
  memcpy(h->timings, t->emitted, sizeof h->timings);
  h->timings_batched = t->batched;
  h->sampled_out = c.sampled_out;
  h->too_small = c.too_small;
  h->hangs = cs_watchdog_hangs_reported(writer.watchdog);
  h->trace_lines_lost =
      writer.opts.env.mode_trace ? writer.trace.file.lines_lost : 0;
}

static void close_metrics_window(int64_t now_ns) {
  cs_metrics_health h;
  health_snapshot(&h);
  cs_metrics_close_window(writer.metrics, now_ns, &h);
  if (!writer.opts.env.mode_metrics)
    return;
  cs_prom_textfile_write(&writer.prom, writer.metrics->prom.data,
                         writer.metrics->prom.len);
  if (writer.opts.prom_port)
    cs_http_publish(writer.metrics->prom.data, writer.metrics->prom.len);
  if (writer.otlp_on && writer.metrics->otlp.len)
    cs_otlp_submit(writer.metrics->otlp.data, writer.metrics->otlp.len);
}

static void summary_line(void *arg, const char *text) {
  (void)arg;
  if (strcmp(writer.opts.summary, "stderr") == 0)
    fprintf(stderr, "cclscope: %s\n", text);
  else
    cs_log_info("%s", text);
}

/* ---- periodic work ---- */

static void periodic(bool force_flush) {
  int64_t now = mono_ns();
  if (now >= writer.next_calibration_ns) {
    cs_clock_cal_update(&writer.cal);
    writer.next_calibration_ns = now + CALIBRATE_EVERY_NS;
  }
  if (now >= writer.next_timing_ns) {
    cs_completion_tick(writer.completion);
    writer.next_timing_ns = now + TIMING_EVERY_NS;
    int64_t epoch_now = cs_clock_epoch_now(&writer.cal);
    if (cs_metrics_window_due(writer.metrics, epoch_now))
      close_metrics_window(epoch_now);
    if (writer.opts.hang_timeout_s > 0 &&
        cs_watchdog_due(writer.watchdog, epoch_now))
      watchdog_check(epoch_now);
  }
  /* Rings taken by new threads are replaced here, not in their callbacks. */
  cs_ring_spares_fill(false);
  if (now >= writer.next_tick_ns) {
    cs_asm_tick(writer.assembler, cs_clock_now());
    cs_ring_reap_orphans(on_ring_freed, NULL);
    writer.next_tick_ns = now + TICK_EVERY_NS;
  }
  if (writer.trace_open)
    cs_trace_tick(&writer.trace, now, force_flush);
}

static void finish(void) {
  /* Records keep arriving while other threads run: drain until quiet or
   * until the deadline, whichever comes first. */
  int64_t deadline = mono_ns() + FINAL_DRAIN_DEADLINE_NS;
  while (handle_queue() + drain_all() > 0 && mono_ns() < deadline) {
  }
  cs_completion_set_now(writer.completion, cs_clock_epoch_now(&writer.cal));
  if (writer.opts.hang_timeout_s > 0) /* say which reported operations ended */
    watchdog_check(cs_clock_epoch_now(&writer.cal));
  cs_asm_end_all(writer.assembler,
                 writer.stop_at_exit ? CS_END_INFLIGHT : CS_END_RECLAIMED,
                 writer.stop_at_exit ? CS_RECLAIM_NONE : CS_RECLAIM_FINALIZE,
                 cs_clock_now());
  cs_completion_flush(writer.completion, 0);
  if (writer.trace_open) {
    cs_trace_counters counters;
    gather_counters(&counters);
    cs_trace_process_end(&writer.trace,
                         writer.stop_at_exit ? "exit" : "finalize", &counters);
    cs_trace_close(&writer.trace);
    writer.trace_open = false;
  }
  /* After the trace is closed, so that the last window and the summary
   * count every line it lost, processEnd's own included. */
  close_metrics_window(cs_clock_epoch_now(&writer.cal)); /* the last window */
  if (strcmp(writer.opts.summary, "off") != 0)
    cs_metrics_summary(writer.metrics, summary_line, NULL);
}

static void *writer_main(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "cclscope-writer");
  pthread_mutex_lock(&writer.ctl_lock);
  writer.thread_started = true; /* see cs_writer_start */
  pthread_cond_broadcast(&writer.ctl_cond);
  pthread_mutex_unlock(&writer.ctl_lock);
  for (;;) {
    pthread_mutex_lock(&writer.state_lock);
    pthread_mutex_lock(&writer.ctl_lock);
    bool stopping = writer.stop_requested;
    pthread_mutex_unlock(&writer.ctl_lock);
    if (stopping) {
      finish();
      pthread_mutex_unlock(&writer.state_lock);
      return NULL;
    }
    cs_completion_set_now(writer.completion, cs_clock_epoch_now(&writer.cal));
    size_t work = handle_queue() + drain_all();
    periodic(false);
    pthread_mutex_unlock(&writer.state_lock);

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
    pthread_mutex_lock(&writer.ctl_lock);
    while (!writer.stop_requested && writer.queue_len == 0) {
      if (pthread_cond_timedwait(&writer.ctl_cond, &writer.ctl_lock, &until) ==
          ETIMEDOUT)
        break;
    }
    pthread_mutex_unlock(&writer.ctl_lock);
  }
}

/* ---- public ---- */

/* With several processes per node, use base port + local rank if the
 * launcher says which one we are, else the first free port. */
static void start_http(const cs_writer_opts *opts) {
  int port = opts->prom_port;
  bool search = opts->local_rank < 0;
  if (!search && port + opts->local_rank > 65535) {
    cs_log_warn_once(CS_ONCE_EXPORTER,
                     "CCLSCOPE_PROM_PORT %d + local rank %d is beyond 65535; "
                     "the HTTP endpoint is off",
                     port, opts->local_rank);
    return;
  }
  if (!search)
    port += opts->local_rank;
  /* Serve something from the first scrape on, not only after a window. */
  cs_metrics_render_prom_now(writer.metrics);
  cs_http_publish(writer.metrics->prom.data, writer.metrics->prom.len);
  cs_http_start(opts->prom_addr, port, search);
}

static bool start_metrics(const cs_writer_opts *opts) {
  char otlp_url[1024];
  const char *url = cs_otlp_endpoint_from_env(otlp_url, sizeof otlp_url);
  const cs_trace_env *env = &opts->env;
  writer.records = 0;
  writer.otlp_on = false;
  cs_metrics_config mcfg = {
      .window_s = opts->metrics_window_s > 0 ? opts->metrics_window_s : 5.0,
      .max_series = opts->metrics_max_series,
      .window_events = opts->metrics_window_events,
      .hostname = env->hostname,
      .run_id = env->run_id,
      .pid = env->pid,
      .label_global_rank = opts->metrics_global_rank,
      .global_rank = env->global_rank,
      .want_otlp = env->mode_metrics && url != NULL,
      .service_name = getenv("OTEL_SERVICE_NAME"),
      .resource_attrs = getenv("OTEL_RESOURCE_ATTRIBUTES"),
  };
  writer.metrics = cs_metrics_create(&mcfg, cs_clock_epoch_now(&writer.cal));
  if (!writer.metrics)
    return false;
  if (!env->mode_metrics)
    return true;
  cs_prom_textfile_start(&writer.prom, opts->prom_file,
                         !opts->prom_port && !url, &writer.out_dir, env);
  if (opts->prom_port)
    start_http(opts);
  if (url)
    writer.otlp_on = cs_otlp_start(url, opts->otlp_timeout_ms);
  return true;
}

/* Never waits for a client; the OTLP exporter gets until the exit deadline,
 * counted from here (after the last window was rendered and queued). */
static void stop_metrics(void) {
  int64_t deadline = mono_ns() + (int64_t)(writer.opts.exit_deadline_s * 1e9);
  cs_http_stop();
  if (writer.otlp_on)
    cs_otlp_stop(deadline);
  writer.otlp_on = false;
  cs_metrics_destroy(writer.metrics);
  writer.metrics = NULL;
}

/* The folders the writer's files are in (the files are closed already). */
static void close_output_folders(void) {
  cs_prom_textfile_stop(&writer.prom);
  cs_out_dir_close(&writer.out_dir);
}

bool cs_writer_start(const cs_writer_opts *opts) {
  pthread_condattr_t attr;
  if (writer.running)
    return true;
  writer.opts = *opts;
  memset(&writer.retired, 0, sizeof writer.retired);
  cs_clock_cal_start(&writer.cal, opts->clock);
  writer.opts.env.cal = &writer.cal;
  cs_out_dir_init(&writer.out_dir, opts->env.dir, "CCLSCOPE_DIR");
  writer.opts.env.out_dir = &writer.out_dir;

  cs_completion_config ccfg = {
      .on_timing = on_timing,
      .cal = &writer.cal,
      .grace_ns = TIMING_GRACE_NS,
      .timeout_ns = (int64_t)(opts->timing_timeout_s * 1e9),
  };
  writer.completion = cs_completion_create(&ccfg);
  if (!writer.completion)
    return false;
  cs_completion_set_now(writer.completion, cs_clock_epoch_now(&writer.cal));
  if (!start_metrics(opts)) {
    cs_completion_destroy(writer.completion);
    writer.completion = NULL;
    return false;
  }
  cs_asm_config acfg = {
      .on_start = on_start,
      .on_event = on_event,
      .on_late_state = on_late_state,
      .arg = NULL,
      .max_live = opts->max_live_events,
      .reclaim_ticks =
          (uint64_t)(opts->reclaim_timeout_s * 1e9 / writer.cal.ns_per_tick),
  };
  writer.assembler = cs_asm_create(&acfg);
  writer.watchdog = cs_watchdog_create(opts->hang_timeout_s, &writer.cal);
  writer.recoveries_seen = 0;
  writer.finalizing = false;
  if (!writer.assembler || !writer.watchdog) {
    cs_asm_destroy(writer.assembler);
    writer.assembler = NULL;
    cs_watchdog_destroy(writer.watchdog);
    writer.watchdog = NULL;
    cs_completion_destroy(writer.completion);
    writer.completion = NULL;
    stop_metrics();
    close_output_folders();
    return false;
  }
  writer.trace_open =
      opts->env.mode_trace && cs_trace_open(&writer.trace, &writer.opts.env);

  writer.stop_requested = false;
  writer.stop_at_exit = false;
  writer.next_calibration_ns = mono_ns() + CALIBRATE_EVERY_NS;
  writer.next_tick_ns = mono_ns() + TICK_EVERY_NS;
  writer.next_timing_ns = mono_ns() + TIMING_EVERY_NS;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_destroy(&writer.ctl_cond);
  pthread_cond_init(&writer.ctl_cond, &attr);
  pthread_condattr_destroy(&attr);

  /* The writer must never receive the application's signals. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  writer.thread_started = false;
  int rc = pthread_create(&writer.thread, NULL, writer_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    if (writer.trace_open)
      cs_trace_close(&writer.trace);
    writer.trace_open = false;
    cs_asm_destroy(writer.assembler);
    writer.assembler = NULL;
    cs_watchdog_destroy(writer.watchdog);
    writer.watchdog = NULL;
    cs_completion_destroy(writer.completion);
    writer.completion = NULL;
    stop_metrics();
    close_output_folders();
    return false;
  }
  /* Return once the thread runs our code (as cs_io_start does): a fork()
   * right after init must not catch it inside thread start-up, holding
   * locks a child would inherit. */
  pthread_mutex_lock(&writer.ctl_lock);
  while (!writer.thread_started)
    pthread_cond_wait(&writer.ctl_cond, &writer.ctl_lock);
  pthread_mutex_unlock(&writer.ctl_lock);
  writer.running = true;
  return true;
}

void cs_writer_post(const cs_ctl_msg *msg) {
  pthread_mutex_lock(&writer.ctl_lock);
  if (writer.running) {
    if (writer.queue_len == writer.queue_cap) {
      size_t cap = writer.queue_cap ? writer.queue_cap * 2 : 16;
      cs_ctl_msg *q = realloc(writer.queue, cap * sizeof *q);
      if (q) {
        writer.queue = q;
        writer.queue_cap = cap;
      }
    }
    if (writer.queue_len < writer.queue_cap) {
      writer.queue[writer.queue_len++] = *msg;
      pthread_cond_signal(&writer.ctl_cond);
    }
  }
  pthread_mutex_unlock(&writer.ctl_lock);
}

void cs_writer_stop(bool at_exit) {
  if (!writer.running)
    return;
  pthread_mutex_lock(&writer.ctl_lock);
  writer.stop_requested = true;
  writer.stop_at_exit = at_exit;
  pthread_cond_signal(&writer.ctl_cond);
  pthread_mutex_unlock(&writer.ctl_lock);
  pthread_join(writer.thread, NULL);
  writer.running = false;
  stop_metrics(); /* joins the exporter threads: none may outlive us */
  cs_asm_destroy(writer.assembler);
  writer.assembler = NULL;
  cs_watchdog_destroy(writer.watchdog);
  writer.watchdog = NULL;
  pthread_mutex_lock(&writer.ctl_lock);
  writer.dumps_done =
      writer.dumps_requested; /* nobody waits for a stopped writer */
  pthread_cond_broadcast(&writer.dump_cond);
  pthread_mutex_unlock(&writer.ctl_lock);
  cs_completion_destroy(writer.completion);
  writer.completion = NULL;
  free(writer.queue);
  writer.queue = NULL;
  writer.queue_len = writer.queue_cap = 0;
  if (!writer.opts.prom_keep) /* no stale series after the job */
    cs_prom_textfile_remove(&writer.prom);
  close_output_folders();
}

bool cs_writer_dump(int timeout_ms) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += timeout_ms / 1000;
  until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&writer.ctl_lock);
  if (!writer.running || writer.stop_requested) {
    pthread_mutex_unlock(&writer.ctl_lock);
    return false;
  }
  uint64_t ticket = ++writer.dumps_requested;
  pthread_mutex_unlock(&writer.ctl_lock);
  cs_ctl_msg m = {.kind = CS_CTL_DUMP,
                  .step = (int64_t)ticket,
                  .raw_ts = cs_clock_now(),
                  .tid = (int32_t)gettid()};
  cs_writer_post(&m);
  pthread_mutex_lock(&writer.ctl_lock);
  int rc = 0;
  while (writer.dumps_done < ticket && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&writer.dump_cond, &writer.ctl_lock, &until);
  bool done = writer.dumps_done >= ticket;
  pthread_mutex_unlock(&writer.ctl_lock);
  return done;
}

bool cs_writer_running(void) {
  return writer.running;
}

const char *cs_writer_trace_path(void) {
  return writer.trace_open ? cs_trace_path(&writer.trace) : "";
}

void cs_writer_atfork_prepare(void) {
  pthread_mutex_lock(&writer.state_lock);
  pthread_mutex_lock(&writer.ctl_lock);
  if (writer.running &&
      writer.trace_open) /* the I/O thread's queue, consistent */
    cs_trace_atfork_prepare(&writer.trace);
  if (writer.running && writer.otlp_on) /* the OTLP payloads, consistent */
    cs_otlp_atfork_prepare();
  cs_http_atfork_prepare(); /* no /metrics snapshot half released */
}

void cs_writer_atfork_parent(void) {
  cs_http_atfork_parent();
  if (writer.running && writer.otlp_on)
    cs_otlp_atfork_parent();
  if (writer.running && writer.trace_open)
    cs_trace_atfork_parent(&writer.trace);
  pthread_mutex_unlock(&writer.ctl_lock);
  pthread_mutex_unlock(&writer.state_lock);
}

void cs_writer_atfork_child(void) {
  /* The writer thread does not exist here; its state is consistent because
   * the parent held state_lock across fork(). The parent's file is the
   * parent's: close it without writing. */
  if (writer.running) {
    if (writer.trace_open)
      cs_trace_abandon(&writer.trace);
    writer.trace_open = false;
    cs_asm_destroy(writer.assembler);
    writer.assembler = NULL;
    cs_watchdog_destroy(writer.watchdog);
    writer.watchdog = NULL;
    cs_completion_destroy(writer.completion);
    writer.completion = NULL;
    cs_metrics_destroy(writer.metrics); /* exporter threads are the parent's */
    writer.metrics = NULL;
    writer.otlp_on = false;
    cs_http_atfork_child();
    cs_otlp_atfork_child();
    close_output_folders();
    free(writer.queue);
    writer.queue = NULL;
    writer.queue_len = writer.queue_cap = 0;
    writer.running = false;
  }
  pthread_mutex_init(&writer.ctl_lock, NULL);
  pthread_mutex_init(&writer.state_lock, NULL);
  pthread_cond_init(&writer.ctl_cond, NULL);
  pthread_cond_init(&writer.dump_cond, NULL);
  writer.dumps_requested = writer.dumps_done = 0;
}
