/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/session.c — init/finalize bookkeeping, session start and end,
 * process exit, fork. See session.h for the lifecycle.
 */
#include "session.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bridge.h"
#include "bridge_cupti.h"
#include "bridge_nvtx.h"
#include "bridge_roctx.h"
#include "clock.h"
#include "config.h"
#include "context.h"
#include "event_types.h"
#include "gpu_uuid.h"
#include "handle.h"
#include "host_info.h"
#include "log.h"
#include "mode.h" /* what NCCL's threads read: quiet filters, pid */
#include "ring.h"
#include "sampling.h"
#include "writer.h"

/* Spare rings kept for the first callbacks of new threads (ring.c): a few
 * for threads that exist already (the application's), and a few more per
 * communicator (its proxy, service and network threads). */
#define SPARE_RINGS_BASE 8
#define SPARE_RINGS_PER_CONTEXT 8

typedef struct {
  pthread_mutex_t lock;
  bool atfork_registered;
  bool running;         /* a writer is recording */
  bool off;             /* mode off or could not start: mask 0 */
  bool restart_pending; /* fork child: start on the first event */
  int active_contexts;
  int mask; /* effective mask written at init */
  /* Control API: paused = mask 0 in NCCL's global (every pointer seen). */
  int paused;    /* -1: not decided yet (CCLSCOPE_START decides) */
  int *masks[4]; /* NCCL's (and RCCL's) process-global activation masks */
  int64_t last_step;
  cs_config cfg;
  cs_host_info host;
} session_state;

static session_state session = {
    .lock = PTHREAD_MUTEX_INITIALIZER, .paused = -1, .last_step = -1};

static bool restart_after_fork(void);
static void post_mark(cs_mark_kind kind, int64_t step, const char *label);

static void fill_writer_opts(cs_writer_opts *o, bool forked_child) {
  memset(o, 0, sizeof *o);
  o->env.pid = atomic_load(&cs_session_pid);
  o->env.ppid = getppid();
  o->env.forked_child = forked_child;
  o->env.hostname = session.cfg.hostname;
  o->env.run_id = session.cfg.run_id;
  o->env.run_id_source = session.cfg.run_id_source;
  o->env.file_rank = session.cfg.file_rank;
  o->env.dir = session.cfg.dir;
  o->env.host = &session.host;
  o->env.global_rank = session.cfg.global_rank;
  o->env.global_rank_source = session.cfg.global_rank_source;
  o->env.local_rank = session.cfg.local_rank;
  o->env.world_size = session.cfg.world_size;
  o->env.mask = session.mask;
  o->env.mask_source = session.cfg.mask_source;
  o->env.mode_trace = session.cfg.trace;
  o->env.mode_metrics = session.cfg.metrics;
  o->env.ring_bytes = session.cfg.ring_bytes;
  o->env.handle_tag = cs_handle_tag;
  o->env.direct_io = strcmp(session.cfg.direct_io, "on") == 0 ? CS_TF_DIRECT_ON
                     : strcmp(session.cfg.direct_io, "off") == 0
                         ? CS_TF_DIRECT_OFF
                         : CS_TF_DIRECT_AUTO;
  o->env.zstd_level = session.cfg.zstd_level;
  o->env.binary = session.cfg.binary_trace;
  o->clock = (cs_clock_kind)atomic_load(&cs_clock_source);
  o->max_live_events = session.cfg.max_live_events;
  o->reclaim_timeout_s = session.cfg.reclaim_timeout_s;
  o->env.flush_interval_s = session.cfg.flush_interval_s;
  o->timing_timeout_s = session.cfg.timing_timeout_s;
  o->metrics_window_s = session.cfg.metrics_window_s;
  o->metrics_max_series = session.cfg.metrics_max_series;
  o->metrics_window_events = session.cfg.metrics_window_events;
  o->prom_keep = session.cfg.prom_keep;
  o->prom_file = session.cfg.prom_file;
  o->prom_addr = session.cfg.prom_addr;
  o->prom_port = session.cfg.prom_port;
  o->local_rank = session.cfg.local_rank;
  o->metrics_global_rank = session.cfg.metrics_global_rank;
  o->otlp_timeout_ms = session.cfg.otlp_timeout_ms;
  o->exit_deadline_s = session.cfg.exit_deadline_s;
  o->summary = session.cfg.summary;
  o->hang_timeout_s = session.cfg.hang_timeout_s;
}

/* Start the writer; on failure the plugin turns itself off. */
static void start_recording(bool forked_child) {
  cs_writer_opts opts;
  fill_writer_opts(&opts, forked_child);
  if (!cs_writer_start(&opts)) {
    cs_log_warn_once(CS_ONCE_THREAD,
                     "cannot start the writer thread (%s); profiling is off "
                     "for this process",
                     strerror(errno));
    session.off = true;
    session.mask = 0;
    return;
  }
  if (session.cfg.trace && !session.cfg.metrics &&
      cs_writer_trace_path()[0] == '\0') {
    /* Nothing could be written anywhere: do not make NCCL emit events. */
    cs_writer_stop(false);
    session.off = true;
    session.mask = 0;
    return;
  }
  if (!cs_ring_session_begin()) {
    cs_writer_stop(false);
    session.off = true;
    session.mask = 0;
    return;
  }
  session.running = true;
  if (session.paused == 1)
    post_mark(CS_MARK_PAUSE, -1, "CCLSCOPE_START=paused");
}

/* Bridges (bridge.h): set up what the configuration asks for; events may
 * be handed to them from now on. */
static void start_bridges(void) {
  uint32_t b = 0;
  if (session.cfg.nvtx && cs_nvtx_session_begin())
    b |= CS_BRIDGE_NVTX;
  if (session.cfg.cupti && cs_cupti_session_begin())
    b |= CS_BRIDGE_CUPTI;
  /* ROCTX only under RCCL unless forced: on NVIDIA's NCCL, NVTX is the
   * bridge (bridge_roctx.h says so once). */
  if (strcmp(session.cfg.roctx, "off") != 0 &&
      cs_roctx_session_begin(strcmp(session.cfg.roctx, "force") == 0,
                             session.host.kind == CS_HOST_RCCL,
                             cs_host_kind_name(session.host.kind)))
    b |= CS_BRIDGE_ROCTX;
  atomic_store_explicit(&cs_bridges, b, memory_order_release);
}

/* Before the logger is forgotten: their end-of-session lines. */
static void stop_bridges(void) {
  uint32_t b = atomic_exchange(&cs_bridges, 0);
  if (b & CS_BRIDGE_ROCTX)
    cs_roctx_session_end();
  if (b & CS_BRIDGE_CUPTI)
    cs_cupti_session_end();
  if (b & CS_BRIDGE_NVTX)
    cs_nvtx_session_end();
}

/* In metrics-only mode, what aggregation does not use is not recorded:
 * those callbacks return before reading the clock. */
static void set_quiet_filters(void) {
  uint32_t types = 0;
  uint64_t states = 0;
  if (session.cfg.metrics && !session.cfg.trace) {
    static const cs_etype unused[] = {
        CS_EV_GROUP,    CS_EV_PROXY_CTRL, CS_EV_NET_PLUGIN,    CS_EV_GROUP_API,
        CS_EV_COLL_API, CS_EV_P2P_API,    CS_EV_KERNEL_LAUNCH, CS_EV_CE_SYNC,
        CS_EV_CE_BATCH, CS_EV_PROXY_DIAG, CS_EV_UNKNOWN};
    for (size_t i = 0; i < sizeof unused / sizeof *unused; i++)
      types |= 1u << unused[i];
    /* Kept: sizes (SendWait 9, RecvFlushWait 11), InProgress (19),
     * GPU stop stamps (KernelChStop 22, KernelPhaseStop 31). */
    states = ~((UINT64_C(1) << 9) | (UINT64_C(1) << 11) | (UINT64_C(1) << 19) |
               (UINT64_C(1) << 22) | (UINT64_C(1) << 31));
  }
  cs_sampling_config sampling = {.coll_every = session.cfg.sample_coll,
                                 .p2p_every = session.cfg.sample_p2p,
                                 .step_every = session.cfg.sample_steps,
                                 .min_bytes = session.cfg.min_bytes};
  cs_sampling_configure(&sampling);
  /* Starts of these types go through the slow twin (emit.h). */
  uint64_t policy = 0;
  if (cs_sampling_active())
    policy = CS_QUIET_POLICY_ALL;
  uint32_t bridges = atomic_load(&cs_bridges);
  if (bridges & CS_BRIDGE_NVTX) {
    types &= ~(uint32_t)CS_BRIDGE_NVTX_TYPES; /* a bridge needs them */
    policy |= CS_QUIET_POLICY(CS_BRIDGE_NVTX_TYPES);
  }
  if (bridges & CS_BRIDGE_CUPTI) {
    types &= ~(uint32_t)CS_BRIDGE_CUPTI_TYPES;
    policy |= CS_QUIET_POLICY(CS_BRIDGE_CUPTI_TYPES);
  }
  if (bridges & CS_BRIDGE_ROCTX) {
    types &= ~(uint32_t)CS_BRIDGE_ROCTX_TYPES;
    policy |= CS_QUIET_POLICY(CS_BRIDGE_ROCTX_TYPES);
  }
  atomic_store(&cs_quiet_types, types | policy);
  atomic_store(&cs_quiet_states, states);
}

static void start_session(const cs_init_args *first) {
  cs_config_load(&session.cfg);
  /* Before anything is written: the run and file names may come from this
   * first communicator (run_name.h). */
  cs_config_name_run(&session.cfg, first->has_comm_info, first->comm_id,
                     first->rank);
  cs_host_info_probe(&session.host, session.cfg.host);
  atomic_store(&cs_session_pid, getpid());
  atomic_store(&cs_session_user_tag_ok, cs_host_has_user_tag(&session.host));
  atomic_store(&cs_session_host_rccl, session.host.kind == CS_HOST_RCCL);
  session.off = false;
  session.mask = session.cfg.mask;
  /* RCCL's ProxyDiag is 1 << 16 in later releases and 1 << 15 in its v6
   * builds (§12): under RCCL, asking for it asks for both. */
  if (session.host.kind == CS_HOST_RCCL &&
      (session.mask & rcclProfileProxyDiag_v7))
    session.mask |= rcclProfileProxyDiag_v6;
  if (session.paused == -1)
    session.paused = session.cfg.start_paused ? 1 : 0;
  if (!session.cfg.trace && !session.cfg.metrics) {
    session.off = true; /* CCLSCOPE_MODE=off */
    session.mask = 0;
    return;
  }
  cs_handle_new_tag();
  start_bridges();
  set_quiet_filters();
  atomic_store(&cs_clock_source, cs_clock_choose(session.cfg.clock));
  cs_ring_set_capacity(session.cfg.ring_bytes / CS_UNIT_BYTES);
  cs_ring_on_no_session = restart_after_fork;
  start_recording(false);
  if (session.off)
    stop_bridges(); /* nothing will be recorded */
}

static void end_session(bool at_exit) {
  stop_bridges();
  if (session.running) {
    cs_ring_session_end();
    cs_writer_stop(at_exit);
    session.running = false;
  }
  session.restart_pending = false;
  atomic_store(&cs_ring_restart_pending, false);
  if (!at_exit) {
    /* The last finalize: NCCL unloads us next. Free everything. */
    cs_ring_free_all();
    cs_sampling_forget_contexts();
    memset(session.masks, 0, sizeof session.masks);
    cs_ctx_clear_all();
    cs_log_forget_logger();
  }
}

/* ---- fork ---- */

static void atfork_prepare(void) {
  pthread_mutex_lock(&session.lock);
  cs_writer_atfork_prepare();
  cs_ring_atfork_prepare();
}

static void atfork_parent(void) {
  cs_ring_atfork_parent();
  cs_writer_atfork_parent();
  pthread_mutex_unlock(&session.lock);
}

/* Only the forking thread exists in the child. Whatever the parent's
 * threads held (rings, the writer's queue, the trace file's buffer, its
 * queued chunks and the one being written, the exporters' payloads) is
 * freed here, and none of it is written or sent: it is the parent's, and
 * its own threads write it, once. (The OTLP push's libcurl handle alone is
 * kept: see export_otlp.h.) Here rather than lazily (at the child's
 * first callback or at its exit): a child that never calls the plugin
 * again would otherwise carry the parent's chunks (up to 32 MiB,
 * CS_IO_MAX_QUEUED in trace_io.h) until it exits or execs, and its exit
 * path would need the same pass. POSIX allows only async-signal-safe calls
 * in the child of a multi-threaded process; we rely on glibc, whose fork()
 * holds malloc's locks across the fork and resets them in the child before
 * the child handlers run, so free() and pthread_*_init are usable here.
 * Our own locks were taken by atfork_prepare (among them the ones the I/O
 * and OTLP threads hold while they compress or call libcurl), so every
 * structure freed is consistent. */
static void atfork_child(void) {
  cs_ring_atfork_child();
  cs_writer_atfork_child();
  atomic_store(&cs_session_pid, getpid());
  if (session.running) {
    session.running = false;
    session.restart_pending = true;
    cs_ring_session_end();
    atomic_store(&cs_ring_restart_pending, true);
  }
  pthread_mutex_init(&session.lock, NULL);
}

/* Called from a thread's first callback in a fork child (ring attach). */
static bool restart_after_fork(void) {
  bool running;
  pthread_mutex_lock(&session.lock);
  if (session.restart_pending && !session.running && !session.off &&
      session.active_contexts > 0) {
    session.restart_pending = false;
    atomic_store(&cs_ring_restart_pending, false);
    start_recording(true);
    if (session.running) {
      for (int i = 0; i < CS_MAX_CONTEXTS; i++) {
        cs_context *c = &cs_contexts[i];
        uint32_t serial = atomic_load(&c->serial);
        if (!serial || atomic_load(&c->state) != CS_CTX_ACTIVE)
          continue;
        c->inherited = true;
        cs_ctl_msg m = {.kind = CS_CTL_CTX_INIT, .serial = serial};
        cs_writer_post(&m);
      }
    }
  }
  running = session.running;
  pthread_mutex_unlock(&session.lock);
  return running;
}

/* ---- control (src/plugin/control.c) ---- */

static void remember_mask(int *mask) {
  for (size_t i = 0; i < sizeof session.masks / sizeof *session.masks; i++) {
    if (session.masks[i] == mask)
      return;
    if (!session.masks[i]) {
      session.masks[i] = mask;
      return;
    }
  }
}

static void post_mark(cs_mark_kind kind, int64_t step, const char *label) {
  cs_ctl_msg m = {.kind = CS_CTL_MARK,
                  .mark = kind,
                  .raw_ts = cs_clock_now(),
                  .tid = (int32_t)gettid(),
                  .step = step};
  snprintf(m.label, sizeof m.label, "%s", label ? label : "");
  cs_writer_post(&m);
}

int cs_session_set_paused(bool paused) {
  pthread_mutex_lock(&session.lock);
  session.paused = paused ? 1 : 0;
  int rc = -1;
  if (session.running && !session.off) {
    for (size_t i = 0;
         i < sizeof session.masks / sizeof *session.masks && session.masks[i];
         i++)
      __atomic_store_n(session.masks[i], paused ? 0 : session.mask,
                       __ATOMIC_RELAXED);
    post_mark(paused ? CS_MARK_PAUSE : CS_MARK_RESUME, -1, NULL);
    rc = 0;
  }
  pthread_mutex_unlock(&session.lock);
  return rc;
}

bool cs_session_recording(void) {
  pthread_mutex_lock(&session.lock);
  bool on = session.running && !session.off && session.paused != 1;
  pthread_mutex_unlock(&session.lock);
  return on;
}

int cs_session_mark(cs_mark_kind kind, int64_t step, const char *label) {
  pthread_mutex_lock(&session.lock);
  int rc = -1;
  if (session.running) {
    if (kind == CS_MARK_STEP) {
      if (step < 0)
        step = session.last_step + 1;
      session.last_step = step;
    }
    post_mark(kind, step, label);
    rc = 0;
    /* On the caller's thread, as NVTX and ROCTX marks must be. */
    uint32_t bridges = atomic_load(&cs_bridges);
    if ((kind == CS_MARK_STEP || kind == CS_MARK_LABEL) &&
        (bridges & CS_BRIDGE_NVTX))
      cs_nvtx_mark(kind == CS_MARK_STEP ? step : -1, label);
    if ((kind == CS_MARK_STEP || kind == CS_MARK_LABEL) &&
        (bridges & CS_BRIDGE_ROCTX))
      cs_roctx_mark(kind == CS_MARK_STEP ? step : -1, label);
  }
  pthread_mutex_unlock(&session.lock);
  return rc;
}

int cs_session_dump(int timeout_ms) {
  pthread_mutex_lock(&session.lock);
  bool running = session.running;
  pthread_mutex_unlock(&session.lock);
  if (!running)
    return -1;
  /* Not under the session lock: the writer may need it (it never does
   * today, but a finalize must not wait for a dump). */
  return cs_writer_dump(timeout_ms > 0 ? timeout_ms : 5000) ? 0 : -1;
}

/* ---- init / finalize ---- */

void *cs_session_init(const cs_init_args *a) {
  void *handle;
  pthread_mutex_lock(&session.lock);
  if (!session.atfork_registered) {
    /* glibc removes these when the library is unloaded. */
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    session.atfork_registered = true;
  }
  cs_log_set_logger(a->logger);
  if (!session.running && !session.restart_pending &&
      session.active_contexts == 0)
    start_session(a);

  uint32_t serial = cs_ctx_reserve();
  if (serial) {
    cs_context *c = &cs_contexts[serial & (CS_MAX_CONTEXTS - 1)];
    c->abi = a->abi;
    c->has_comm_info = a->has_comm_info;
    c->comm_id = a->comm_id;
    c->nranks = a->nranks;
    c->nnodes = a->nnodes;
    c->rank = a->rank;
    c->mask = session.mask;
    snprintf(c->comm_name, sizeof c->comm_name, "%s",
             a->comm_name ? a->comm_name : "");
    cs_gpu_uuid_current(c->gpu_uuid, sizeof c->gpu_uuid, &c->device);
    c->init_raw_ts = cs_clock_now();
    c->init_tid = (int32_t)gettid();
    cs_sampling_context_added(serial, a->nranks);
    cs_ctx_publish(serial);
    session.active_contexts++;
    if (session.running) {
      cs_ctl_msg m = {.kind = CS_CTL_CTX_INIT, .serial = serial};
      cs_writer_post(&m);
    }
  }
  if (a->mask) {
    remember_mask(a->mask);
    /* NCCL's mask is process-global: last init wins. */
    /* Atomic: NCCL's proxy threads read it while another init writes. */
    __atomic_store_n(a->mask, session.paused == 1 ? 0 : session.mask,
                     __ATOMIC_RELAXED);
  }
  /* Each communicator brings threads (proxy, network): keep rings ready
   * for their first callbacks (ring.c). */
  bool running = session.running;
  if (running)
    cs_ring_spares_want(SPARE_RINGS_BASE +
                        SPARE_RINGS_PER_CONTEXT *
                            (unsigned)session.active_contexts);
  handle = cs_handle_from_ctx_serial(serial);
  bool first = session.active_contexts == 1 && session.running;
  const char *path = cs_writer_trace_path();
  pthread_mutex_unlock(&session.lock);
  if (running)
    cs_ring_spares_fill(true); /* not under session.lock: it maps memory */

  if (first)
    cs_log_info("recording (mask 0x%x from %s) to %s", session.mask,
                session.cfg.mask_source, path[0] ? path : "(no trace file)");
  return handle;
}

void cs_session_finalize(void *context) {
  pthread_mutex_lock(&session.lock);
  uint32_t serial = cs_ctx_serial_of(context);
  cs_context *c = cs_ctx_get(serial);
  if (!c || atomic_load(&c->state) != CS_CTX_ACTIVE) {
    pthread_mutex_unlock(&session.lock); /* unknown or already finalized */
    return;
  }
  atomic_store(&c->state, CS_CTX_FINALIZED);
  session.active_contexts--;
  if (session.running) {
    cs_ctl_msg m = {.kind = CS_CTL_CTX_FINALIZE,
                    .serial = serial,
                    .raw_ts = cs_clock_now(),
                    .tid = (int32_t)gettid()};
    cs_writer_post(&m);
  }
  if (session.active_contexts == 0)
    end_session(false);
  pthread_mutex_unlock(&session.lock);
}

bool cs_session_active(void) {
  pthread_mutex_lock(&session.lock);
  bool running = session.running;
  pthread_mutex_unlock(&session.lock);
  return running;
}

const char *cs_session_trace_path(void) {
  return cs_writer_trace_path();
}

/* Process exit (or an unload with communicators still alive): keep what was
 * recorded. Other threads may still be running, so nothing is freed. */
__attribute__((destructor)) static void session_at_unload(void) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 2;
  if (pthread_mutex_timedlock(&session.lock, &until) != 0)
    return; /* another thread is stuck in init/finalize: do not hang exit */
  if (session.running)
    end_session(true);
  pthread_mutex_unlock(&session.lock);
}
