/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_app.c — owns the application side of NCCL: what happens
 * between the user's API call and the proxy (nccl-behaviour §6.1-§6.7,
 * §8.2-§8.8): ncclEnqueueCheck (group depth bookkeeping, GroupApi start + state
 * 23, CollApi/P2pApi start/stop, task capture of mask and API handles),
 *   ncclGroupEndInternal (state 24, launch, GroupApi stop), kernel plans
 *   in scheduler order, KernelLaunch, hostStreamPlanTask (Group, Coll/P2p,
 *   proxy op upload, stops), CE collectives, graph capture/replay on the
 *   cuda-cb thread, non-blocking launches on "NCCL async" threads, comm
 *   init (grouped inits on concurrent threads) and destroy (finalize,
 *   unload). Ring neighbours per channel decide which ops use the network.
 */
#include "nccl/emu_app.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "check/emu_check.h"
#include "check/emu_truth.h"
#include "nccl/emu_profiler_thread.h"
#include "nccl/emu_pxn.h"
#include "scenarios/emu_scenarios.h"

static const emu_options *opts_of(const emu_app *a) {
  return a->worker->opts;
}

static void *fake_stream(const emu_comm *c) {
  return (void *)(uintptr_t)(0x7e5700000000ULL +
                             (uint64_t)c->global_rank * 0x100);
}

static void *fake_buffer(const emu_comm *c, uint64_t op, int which) {
  return (void *)(uintptr_t)(0x7f0000000000ULL +
                             ((uint64_t)c->global_rank << 32) +
                             ((op % 4096) << 20) + (uint64_t)which * 0x80000);
}

/* ---------- comm init / destroy ---------- */
void emu_truth_load_record(emu_thread *t, const emu_plugin *p,
                           const emu_options *o, bool replay) {
  emu_rec r;
  if (!emu_rec_begin(&r, t, "load"))
    return;
  char version[32];
  snprintf(version, sizeof version, "%d.%d.%d", o->nccl_version / 10000,
           (o->nccl_version / 100) % 100, o->nccl_version % 100);
  emu_rec_str(&r, "path", p->path);
  emu_rec_str(&r, "symbol", p->symbol_name);
  emu_rec_int(&r, "abi", p->abi);
  emu_rec_str(&r, "name", p->name);
  emu_rec_str(&r, "nccl_version", version);
  emu_rec_int(&r, "version_code", o->nccl_version);
  emu_rec_str(&r, "host", o->host == EMU_HOST_RCCL ? "rccl" : "nccl");
  emu_rec_bool(&r, "usertag_valid", p->usertag_valid);
  emu_rec_bool(&r, "from_net_plugin", p->from_net_plugin);
  if (replay)
    emu_rec_bool(&r, "replay", true);
  if (p->proxy_trace.wanted) { /* RCCL_ENABLE_PROXY_TRACE (§12) */
    emu_rec_str(&r, "proxytrace_path", p->proxy_trace.path);
    emu_rec_bool(&r, "proxytrace_tried", p->proxy_trace.tried);
    emu_rec_bool(&r, "proxytrace_loaded", p->proxy_trace.loaded);
    if (p->proxy_trace.error[0] != '\0')
      emu_rec_str(&r, "proxytrace_error", p->proxy_trace.error);
  }
  if (p->host_rccl) /* looked up with or without the variable */
    emu_rec_bool(&r, "proxytrace_dump", p->proxy_trace.dump != NULL);
  emu_rec_end(&r);
}

/* A failed init unloads (and the finalize path unloads again): NVIDIA,
 * and RCCL from 2.31 (§2, §12). */
static bool unloads_on_failure(const emu_plugin *p) {
  return !p->host_rccl || p->rccl_231;
}

static void comm_init(emu_thread *t, emu_comm *c, const char *quirk) {
  const emu_options *o = emu_self->opts;
  bool loaded_now = false;
  emu_plugin *p = emu_loader_acquire(&loaded_now);
  if (loaded_now)
    emu_truth_load_record(t, p, o, false);
  if (p == NULL) {
    const char *name = getenv("NCCL_PROFILER_PLUGIN");
    bool disabled = name != NULL && strcasecmp(name, "none") == 0;
    if (!disabled && emu_loader_status() == EMU_LOAD_FAILED) {
      fprintf(stderr, "ncclemu: %s\n", emu_loader_error());
      fflush(stderr);
      _exit(EMU_WORKER_LOAD_FAILED);
    }
    c->initialized = true;
    EMU_STORE_RELEASE(
        &emu_self->shared->workers[emu_self->index].first_init_done, 1);
    return;
  }
  int forced = o->mask;
  if (emu_cuda_set_device != NULL) /* as cudaSetDevice before the init */
    emu_cuda_set_device(emu_node_of(emu_self->layout, c->global_rank),
                        emu_local_of(emu_self->layout, c->global_rank));
  emu_thread_enter_call(t, EMU_CALL_INIT, 0);
  int rc = emu_shim_init(p, &c->profiler_context, c->hash, &emu_activation_mask,
                         c->commName, c->nnodes, c->nranks, c->rank,
                         emu_nccl_debug_log, o->mask_set ? &forced : NULL);
  emu_thread_leave_call(t);
  emu_thread_count_callback(t);
  EMU_STORE_RELEASE(&emu_self->shared->workers[emu_self->index].first_init_done,
                    1);
  if (rc == 0 && emu_core_231(o)) /* ncclProfilerEnforceMaskDeps (§12) */
    EMU_STORE_RELAXED(
        &emu_activation_mask,
        emu_enforce_mask_deps(EMU_LOAD_RELAXED(&emu_activation_mask)));
  c->init_rc = rc;
  if (rc != 0) {
    /* NCCL: "Profiler init failed ... Continue without profiler", one
     * unload; the context is not cleared (§2). RCCL before 2.31 does not
     * unload (§12): no double decrement there. */
    bool unloads = unloads_on_failure(p);
    if (o->check)
      emu_check_report(EMU_CHECK_INIT_ERROR,
                       "init returned %d for comm %d rank %d: %s; return "
                       "ncclSuccess instead",
                       rc, c->index, c->global_rank,
                       unloads ? "NCCL then decrements the plugin refcount "
                                 "twice (dlclose while other comms live)"
                               : "RCCL continues without the profiler");
    if (unloads)
      emu_loader_release(NULL);
  }
  emu_rec r;
  if (emu_rec_begin(&r, t, "init")) {
    emu_rec_int(&r, "comm", c->index);
    emu_rec_hex(&r, "commId", c->hash);
    emu_rec_int(&r, "rank", c->rank);
    emu_rec_int(&r, "grank", c->global_rank);
    emu_rec_int(&r, "nranks", c->nranks);
    emu_rec_int(&r, "nNodes", c->nnodes);
    emu_rec_str(&r, "commName", c->commName);
    emu_rec_ptr(&r, "ctx", c->profiler_context);
    emu_rec_int(&r, "rc", rc);
    emu_rec_hex(&r, "mask",
                (uint64_t)(uint32_t)EMU_LOAD_RELAXED(&emu_activation_mask));
    emu_rec_int(&r, "refcount", emu_loader_refcount());
    emu_rec_int(&r, "abi", p->abi);
    const char *q =
        rc != 0 && unloads_on_failure(p) ? "init_failed_refcount" : quirk;
    if (q != NULL)
      emu_rec_str(&r, "quirk", q);
    emu_rec_end(&r);
  }
  c->initialized = true;
}

typedef struct init_job {
  emu_thread thr;
  pthread_t th;
  emu_comm *comm;
} init_job;

static void *init_job_main(void *arg) {
  init_job *j = arg;
  emu_thread_attach(&j->thr);
  comm_init(&j->thr, j->comm, "concurrent_init");
  emu_thread_detach(&j->thr);
  return NULL;
}

static void attach_proxy(emu_app *a, emu_comm *c) {
  emu_worker *w = a->worker;
  emu_comm *parent = c->parent;
  if (c->spec->share_proxy && parent != NULL && parent->proxy != NULL) {
    c->proxy = parent->proxy;
    c->proxy->refs++; /* split sharing resources: one proxy thread */
    return;
  }
  c->proxy = emu_proxy_create(w, c, c->local_slot);
  /* 2.31 (NCCL and RCCL): a comm that loaded a profiler gets a profiler
   * thread (shared like the proxy by splits that share resources, §12). */
  if (emu_core_231(w->opts) && emu_loader_current() != NULL &&
      c->init_rc == 0) {
    c->proxy->profthread = emu_profthread_create(
        w->index, c->local_slot, c->index, c->global_rank, w->opts->seed,
        (uint64_t)w->opts->profiler_stall, w);
    emu_profthread_start(c->proxy->profthread);
  }
  emu_proxy_start(c->proxy);
  pthread_mutex_lock(&w->registry_mutex);
  w->proxies[w->nproxies++] = c->proxy;
  pthread_mutex_unlock(&w->registry_mutex);
}

void emu_app_init_comms(emu_app *a, int ci) {
  emu_worker *w = a->worker;
  emu_comm *members[EMU_MAX_LOCAL_RANKS];
  int n = 0;
  for (int i = 0; i < a->nslots; i++) {
    emu_comm *c = &w->comms[a->slots[i]][ci];
    if (c->spec != NULL && !c->initialized)
      members[n++] = c;
  }
  if (n == 1) {
    comm_init(&a->thr, members[0], NULL);
  } else if (n > 1) {
    /* ncclGroupStart; ncclCommInitRank x n; ncclGroupEnd: one async job
     * thread per comm, concurrently (§2). */
    init_job jobs[EMU_MAX_LOCAL_RANKS];
    for (int i = 0; i < n; i++) {
      char name[40];
      snprintf(name, sizeof name, "w%d/init.r%d.c%d", w->index,
               members[i]->global_rank, ci);
      emu_thread_init(&jobs[i].thr, w->index,
                      EMU_STREAM_INIT(members[i]->local_slot, ci),
                      EMU_ROLE_INIT, name, w->opts->seed);
      jobs[i].comm = members[i];
      emu_thread_spawn(&jobs[i].th, "NCCL init", init_job_main, &jobs[i]);
    }
    for (int i = 0; i < n; i++)
      pthread_join(jobs[i].th, NULL);
  }
  for (int i = 0; i < n; i++)
    attach_proxy(a, members[i]);
}

/* NCCL 2.31's ncclProfilerThreadDestroy, just before the comm's finalize:
 * the ops of `c` its profiler thread has not finished are purged without
 * a call (a started KernelCh never gets its stop, §12); the truth says how
 * many. */
static void purge_profiler_ops(emu_thread *t, emu_profthread *pt,
                               const emu_comm *c) {
  uint64_t started = 0;
  uint64_t n = emu_profthread_purge(pt, c, &started);
  emu_rec r;
  if (n > 0 && emu_rec_begin(&r, t, "purge")) {
    emu_rec_int(&r, "comm", c->index);
    emu_rec_int(&r, "grank", c->global_rank);
    emu_rec_ptr(&r, "ctx", c->profiler_context);
    emu_rec_int(&r, "ops", (int64_t)n);
    emu_rec_int(&r, "started", (int64_t)started);
    emu_rec_str(&r, "quirk", "profiler_thread_purge");
    emu_rec_str(&r, "quirk_ref", "docs/nccl-behaviour.md §12");
    emu_rec_end(&r);
  }
}

void emu_comm_destroy(emu_app *a, emu_comm *c) {
  if (c == NULL || c->destroyed || !c->initialized)
    return;
  emu_stream_sync(a);
  emu_thread *t = &a->thr;
  emu_proxy *px = c->proxy;
  bool last_user = px != NULL && --px->refs == 0;
  if (last_user)
    emu_proxy_join(px); /* the last user joins the proxy thread */
  if (px != NULL && px->profthread != NULL) {
    purge_profiler_ops(t, px->profthread, c);
    if (last_user) {
      emu_profthread_destroy(px->profthread);
      px->profthread = NULL;
    }
  }
  emu_plugin *p = emu_loader_current();
  if (p != NULL && c->profiler_context != NULL) {
    emu_thread_enter_call(t, EMU_CALL_FINALIZE, 0);
    int rc = emu_shim_finalize(p, c->profiler_context);
    emu_thread_leave_call(t);
    emu_thread_count_callback(t);
    emu_rec r;
    if (emu_rec_begin(&r, t, "finalize")) {
      emu_rec_int(&r, "comm", c->index);
      emu_rec_int(&r, "grank", c->global_rank);
      emu_rec_ptr(&r, "ctx", c->profiler_context);
      emu_rec_int(&r, "rc", rc);
      if (px != NULL && px->refs > 0 && px->owner == c) {
        emu_rec_bool(&r, "proxy_still_running", true);
        emu_rec_str(&r, "quirk", "finalized_context");
      }
      emu_rec_end(&r);
    }
  }
  if (px != NULL && px->refs > 0 && px->owner == c)
    emu_proxy_owner_finalized(px);
  bool closed = false;
  emu_loader_release(&closed);
  emu_rec r;
  if (closed && emu_rec_begin(&r, t, "unload")) {
    emu_rec_bool(&r, "dlclose", true);
    emu_rec_int(&r, "after_comm", c->index);
    emu_rec_end(&r);
  }
  c->destroyed = true;
}

emu_comm *emu_app_comm(emu_app *a, int i, int ci) {
  if (i < 0 || i >= a->nslots || ci < 0 || ci >= EMU_MAX_COMMS)
    return NULL;
  emu_comm *c = &a->worker->comms[a->slots[i]][ci];
  if (c->spec == NULL || !c->initialized || c->destroyed)
    return NULL;
  return c;
}

/* ---------- ring topology ---------- */
/* Ring order for channel `ch`: nodes ascending, and inside a node the
 * local ranks rotated by the channel, so each channel crosses nodes on a
 * different GPU (as NCCL spreads rings over NICs). */
static void ring_neighbors(const emu_comm *c, int ch, int *prev_g,
                           int *next_g) {
  const emu_layout *l = emu_self->layout;
  int n = c->nranks;
  int order[EMU_MAX_RANKS];
  int k = 0;
  int g_per_node = l->ranks_per_node;
  for (int node = 0; node < l->nodes; node++)
    for (int shift = 0; shift < g_per_node; shift++) {
      int local = (shift + ch) % g_per_node;
      int g = node * g_per_node + local;
      if (emu_comm_rank_of(c->spec, g) >= 0)
        order[k++] = g;
    }
  int me = 0;
  for (int i = 0; i < k; i++)
    if (order[i] == c->global_rank)
      me = i;
  *next_g = order[(me + 1) % n];
  *prev_g = order[(me + n - 1) % n];
}

/* ---------- proxy op upload ---------- */
/* NCCL's pattern for a Ring task (what RCCL reports as tracePattern). */
static uint8_t op_pattern(const emu_task *task, int kind) {
  if (task->is_p2p)
    return kind == EMU_OP_NET_RECV ? EMU_PATTERN_RECV : EMU_PATTERN_SEND;
  switch (task->func) {
  case EMU_FUNC_ALLREDUCE:
    return EMU_PATTERN_RING_TWICE;
  case EMU_FUNC_BROADCAST:
    return EMU_PATTERN_PIPELINE_FROM;
  case EMU_FUNC_REDUCE:
    return EMU_PATTERN_PIPELINE_TO;
  default:
    return EMU_PATTERN_RING;
  }
}

static void base_op(emu_proxy_op *op, const emu_comm *c, const emu_task *task,
                    int kind, int ch) {
  memset(op, 0, sizeof *op);
  op->kind = (uint8_t)kind;
  op->channel = (uint8_t)ch;
  op->slice_steps = 1;
  op->rank = c->rank;
  op->global_rank = c->global_rank;
  op->comm_index = c->index;
  op->mask = task->mask;
  op->pid = emu_self->pid;
  op->origin_worker = emu_self->index;
  op->context = c->profiler_context;
  op->task_handle = task->event.handle;
  op->task_id = task->event.handle != NULL ? task->event.id : 0;
  op->origin_context = op->context;
  op->origin_task_handle = op->task_handle;
  op->nsteps = 1;
  /* what RCCL's proxy trace reads (profiler_rccl_v6.h) */
  op->op_count = (int64_t)c->plan_seq;
  op->func = (uint8_t)task->func;
  op->proto = emu_v1_proto(task->proto);
  op->pattern = op_pattern(task, kind);
}

typedef struct op_list {
  emu_proxy_op *ops;
  int n, cap;
  emu_pxn_record *pxn; /* NULL unless this rank sends through PXN */
  uint64_t kernel_ns;
  uint64_t gpu_work_ns;   /* every task's GPU work, network or not */
  emu_flow_channel *flow; /* NULL unless the plan is a flow plan */
  int nflow;
} op_list;

/* A flow plan's channel: the ring neighbours and the ring program's shape
 * (emu_flow.h), in profiler steps. */
static void add_flow_channel(op_list *l, const emu_comm *c,
                             const emu_coll_shape *shape, int ch, int prev_g,
                             int next_g, int my_node) {
  if (l->flow == NULL || l->nflow >= EMU_MAX_CHANNELS)
    return;
  const emu_layout *lay = emu_self->layout;
  emu_flow_channel *f = &l->flow[l->nflow++];
  memset(f, 0, sizeof *f);
  int slice = shape->slice_steps > 0 ? shape->slice_steps : 1;
  f->channel = ch;
  f->nsteps = shape->profiler_steps;
  f->depth = EMU_NCCL_STEPS / slice;
  f->chunk_steps = (shape->chunk_steps + slice - 1) / slice;
  f->loop_steps = shape->nsteps_per_loop * f->chunk_steps;
  f->rank = c->rank;
  f->prev = emu_comm_rank_of(c->spec, prev_g);
  f->next = emu_comm_rank_of(c->spec, next_g);
  f->prev_net = emu_node_of(lay, prev_g) != my_node;
  f->next_net = emu_node_of(lay, next_g) != my_node;
  f->gpu_limit = -1;
}

static void push_op(op_list *l, const emu_proxy_op *op) {
  if (l->n < l->cap)
    l->ops[l->n++] = *op;
}

static void push_send(op_list *l, const emu_proxy_op *op) {
  if (l->pxn != NULL) {
    if (l->pxn->nops < EMU_PXN_MAX_OPS)
      l->pxn->ops[l->pxn->nops++] = *op;
    return;
  }
  push_op(l, op);
}

/* One KernelCh carrier of task `i` on channel `ch`. */
static void add_kernel_op(const emu_comm *c, const emu_task *task, int i,
                          int ch, bool batched, op_list *l) {
  emu_proxy_op op;
  base_op(&op, c, task, EMU_OP_KERNEL, ch);
  /* Work batches: small collectives of a plan share one batch per
   * channel; a p2p send and recv on a channel share theirs (§6.11). */
  op.batch = (task->is_p2p || batched) ? ch : 1000 + i * 64 + ch;
  /* NCCL 2.31: the host callback posts the carrier to the profiler
   * thread; the proxy only models the GPU for it (§12). */
  if (c->proxy != NULL && c->proxy->profthread != NULL && l->n < l->cap)
    emu_profthread_post(c->proxy->profthread, c, &op);
  push_op(l, &op);
}

static void add_task_ops(emu_app *a, emu_app_plan *ap, int i, bool batched,
                         op_list *l) {
  emu_plan *plan = &ap->plan;
  const emu_comm *c = plan->comm;
  const emu_task *task = &plan->tasks[i];
  const emu_coll_shape *shape = &ap->shapes[i];
  const emu_layout *lay = emu_self->layout;
  int my_node = emu_node_of(lay, c->global_rank);
  bool kernel_ch = (task->mask & ncclProfileKernelCh) != 0;
  bool any_net = false;
  for (int ch = 0; ch < task->nChannels; ch++) {
    emu_proxy_op op;
    if (!task->is_p2p) {
      int prev_g, next_g;
      ring_neighbors(c, ch, &prev_g, &next_g);
      add_flow_channel(l, c, shape, ch, prev_g, next_g, my_node);
      /* uploadProxyOps order per channel: recv, send (§8.3) */
      if (emu_node_of(lay, prev_g) != my_node) {
        base_op(&op, c, task, EMU_OP_NET_RECV, ch);
        op.peer = emu_comm_rank_of(c->spec, prev_g);
        op.slice_steps = (uint8_t)shape->slice_steps;
        op.nsteps = shape->nsteps;
        op.chunk_size = (int)shape->chunk_size;
        op.bytes = shape->channel_bytes;
        op.step_bytes = shape->step_bytes;
        op.args_group = i * 2;
        push_op(l, &op);
        any_net = true;
      }
      if (emu_node_of(lay, next_g) != my_node) {
        base_op(&op, c, task, EMU_OP_NET_SEND, ch);
        op.peer = emu_comm_rank_of(c->spec, next_g);
        op.slice_steps = (uint8_t)shape->slice_steps;
        op.nsteps = shape->nsteps;
        op.chunk_size = (int)shape->chunk_size;
        op.bytes = shape->channel_bytes;
        op.step_bytes = shape->step_bytes;
        op.args_group = i * 2 + 1;
        push_send(l, &op);
        any_net = true;
      } else if (a->stuck_intra && next_g != c->global_rank) {
        base_op(&op, c, task, EMU_OP_STUCK, ch);
        op.peer = emu_comm_rank_of(c->spec, next_g);
        op.nsteps = shape->nsteps;
        op.slice_steps = (uint8_t)shape->slice_steps;
        op.chunk_size = (int)shape->chunk_size;
        push_op(l, &op);
      }
    } else {
      int peer_g = ap->peers_global[i];
      bool send = task->func == EMU_FUNC_SEND;
      if (peer_g != c->global_rank && emu_node_of(lay, peer_g) != my_node) {
        base_op(&op, c, task, send ? EMU_OP_NET_SEND : EMU_OP_NET_RECV, ch);
        op.peer = task->root;
        op.nsteps = shape->nsteps;
        op.chunk_size = (int)shape->chunk_size;
        op.bytes = shape->channel_bytes;
        op.step_bytes = shape->step_bytes;
        /* shared-buffer p2p: all channels of the op are subs of one args */
        op.args_group = i * 2 + (send ? 1 : 0);
        if (send)
          push_send(l, &op);
        else
          push_op(l, &op);
        any_net = true;
      } else if (a->stuck_intra && peer_g != c->global_rank) {
        base_op(&op, c, task, EMU_OP_STUCK, ch);
        op.peer = task->root;
        push_op(l, &op);
      }
    }
    if (kernel_ch && !task->is_sym)
      add_kernel_op(c, task, i, ch, batched, l);
  }
  /* A symmetric plan is one kernel: its head posts one KernelCh op per
   * channel of the plan, the other symmetric tasks none (§12). */
  int sym_channels = 0;
  if (kernel_ch && task->is_sym && emu_core_sym_head(plan, &sym_channels) == i)
    for (int ch = 0; ch < sym_channels; ch++)
      add_kernel_op(c, task, i, ch, batched, l);
  uint64_t work =
      emu_model_intra_ns(opts_of(a), task->func, task->bytes, c->nranks);
  l->gpu_work_ns += work;
  if (!any_net)
    l->kernel_ns += work;
}

static int pxn_origin_of(const emu_comm *c) {
  const emu_layout *l = emu_self->layout;
  if (!emu_self->opts->pxn)
    return -1;
  return emu_pxn_origin(c->global_rank, l->ranks_per_node, l->ranks_per_process,
                        c->spec->members, c->spec->nranks);
}

/* The hang scenario's hung AllReduce (the 2nd of the world communicator),
 * when a rank stops inside it (not --hang-class never-called): every rank
 * runs it on data dependencies (emu_flow.h); with PXN a rank's network
 * sends run in its node-mate's proxy, which reads and writes the rank's
 * flow counters. */
static bool is_flow_plan(const emu_comm *c, uint64_t seq) {
  const emu_options *o = emu_self->opts;
  return emu_self->scenario == &emu_scenario_hang &&
         o->hang_class != EMU_HANG_NEVER_CALLED &&
         o->hang_class != EMU_HANG_MISMATCH && c->index == 0 && seq == 2;
}

/* The plan whose transfers stop: the hang rank's 2nd AllReduce, unless it
 * never calls it (--hang-class never-called) or calls it with other
 * arguments (mismatch). */
static bool is_hang_plan(const emu_comm *c, uint64_t seq) {
  const emu_options *o = emu_self->opts;
  return emu_self->scenario == &emu_scenario_hang &&
         o->hang_class != EMU_HANG_NEVER_CALLED &&
         o->hang_class != EMU_HANG_MISMATCH && c->global_rank == o->hang_rank &&
         c->index == 0 && seq == 2;
}

/* --hang-class mismatch: the ranks' kernels of the 2nd world plan disagree
 * on the steps they exchange, so each waits for data its peers never send
 * (docs/nccl-behaviour.md §6.6): no rank passes that plan's barrier. */
static bool is_mismatch_plan(const emu_comm *c, uint64_t seq) {
  const emu_options *o = emu_self->opts;
  return emu_self->scenario == &emu_scenario_hang &&
         o->hang_class == EMU_HANG_MISMATCH && c->index == 0 && seq == 2;
}

static void upload_proxy_ops(emu_app *a, emu_thread *t, emu_app_plan *ap) {
  (void)t;
  emu_plan *plan = &ap->plan;
  emu_comm *c = plan->comm;
  emu_worker *w = a->worker;
  uint64_t seq = ++c->plan_seq;
  int target = -1;
  if (w->opts->pxn)
    target = emu_pxn_target(c->global_rank, w->layout->ranks_per_node,
                            w->layout->ranks_per_process, c->spec->members,
                            c->spec->nranks);
  int origin = pxn_origin_of(c);
  emu_pxn_record *rec = NULL;
  static _Thread_local emu_pxn_record pxn_scratch;
  if (target >= 0) {
    rec = &pxn_scratch;
    rec->comm_index = c->index;
    rec->plan_seq = seq;
    rec->nops = 0;
  }
  static _Thread_local emu_proxy_op scratch[EMU_MAX_OPS_PER_WORK];
  static _Thread_local emu_flow_channel flow_scratch[EMU_MAX_CHANNELS];
  bool flow = is_flow_plan(c, seq);
  op_list l = {scratch, 0, EMU_MAX_OPS_PER_WORK,       rec,
               0,       0, flow ? flow_scratch : NULL, 0};
  bool batched = true;
  for (int i = 0; i < plan->ntasks; i++)
    if (!plan->tasks[i].is_p2p && plan->tasks[i].bytes > (1u << 20))
      batched = false;
  for (int i = 0; i < plan->ntasks; i++)
    add_task_ops(a, ap, i, batched, &l);
  bool hang = is_hang_plan(c, seq);
  /* One moment for the launch: the modelled GPU time starts there, and the
   * other ranks learn it as this rank's arrival (a thread descheduled
   * between two clock reads would otherwise lengthen every duration). */
  uint64_t launch_rt = emu_realtime_ns(), launch_mono = emu_now_ns();
  emu_proxy_work *work = NULL;
  if (l.n > 0 || origin >= 0 || hang || flow) {
    work = emu_proxy_get_work(c->proxy);
    if (work != NULL) {
      memcpy(work->ops, l.ops, (size_t)l.n * sizeof *l.ops);
      work->nops = l.n;
      work->comm = c;
      work->plan_seq = seq;
      work->launch_rt = launch_rt;
      work->launch_mono = launch_mono;
      work->kernel_ns = l.kernel_ns;
      work->gpu_work_ns = l.gpu_work_ns;
      work->barrier = w->pace_barrier;
      work->hang = hang;
      work->flow = flow;
      work->nflow = l.nflow;
      if (l.nflow > 0)
        memcpy(work->flow_ch, l.flow, (size_t)l.nflow * sizeof *l.flow);
      work->pxn_origin_grank = origin;
    }
  }
  /* a flow plan holds the others up by its data; a mismatch stalls all */
  if ((hang && !flow) || is_mismatch_plan(c, seq))
    emu_mark_stalled(w->shared, c, seq);
  emu_arrive(w->shared, c, seq, launch_mono);
  if (rec != NULL)
    emu_pxn_send(target, rec, &w->shared->abort_flag);
  if (work != NULL) {
    emu_proxy_post(c->proxy, work); /* wakes T_proxy before the task stops */
  } else {
    int slot = c->local_slot;
    uint64_t now = emu_now_ns();
    uint64_t start =
        a->gpu_busy_until[slot] > now ? a->gpu_busy_until[slot] : now;
    /* --slow-rank: the slow GPU and the peers that wait for its data */
    double stretch =
        emu_model_gpu_stretch(w->opts, c->spec->members, c->spec->nranks);
    a->gpu_busy_until[slot] =
        start + l.kernel_ns +
        (uint64_t)((double)l.gpu_work_ns * (stretch - 1.0)) +
        emu_model_launch_ns();
  }
}

/* hostStreamPlanTask: Group, task events, proxy upload, stops (§6.5). */
static void host_stream_plan_task(emu_app *a, emu_thread *t, emu_app_plan *ap) {
  emu_plan *plan = &ap->plan;
  emu_core_group_start(t, plan);
  emu_core_task_events_start(t, plan);
  upload_proxy_ops(a, t, ap);
  if (emu_self->opts->chaos_level > 0 &&
      emu_rng_chance(&t->rng, emu_self->opts->chaos_level))
    emu_sleep_ns(20000); /* let ProxyOp/KernelCh start before Coll stop */
  emu_core_task_events_stop(t, plan);
  emu_core_group_stop(t, plan);
}

/* ---------- CUDA graph replay thread ---------- */
static void *cudacb_main(void *arg) {
  emu_cudacb *cb = arg;
  emu_thread_attach(&cb->thr);
  for (;;) {
    pthread_mutex_lock(&cb->mu);
    while (cb->count == 0 && !cb->stop)
      pthread_cond_wait(&cb->cv, &cb->mu);
    if (cb->count == 0 && cb->stop) {
      pthread_mutex_unlock(&cb->mu);
      break;
    }
    emu_app_plan *ap = &cb->queue[cb->head];
    pthread_mutex_unlock(&cb->mu);
    ap->plan.replay = ap->plan.persistent; /* eager plans (2.31) are not */
    host_stream_plan_task(cb->app, &cb->thr, ap);
    pthread_mutex_lock(&cb->mu);
    /* write back: the graph's plan keeps its (stale) slots */
    cb->head = (cb->head + 1) % EMU_MAX_GRAPH_PLANS;
    cb->count--;
    cb->done++;
    pthread_cond_broadcast(&cb->cv);
    pthread_mutex_unlock(&cb->mu);
  }
  emu_thread_detach(&cb->thr);
  return NULL;
}

static void cudacb_wait_idle(emu_app *a) {
  emu_cudacb *cb = a->cudacb;
  if (cb == NULL)
    return;
  pthread_mutex_lock(&cb->mu);
  while (cb->done < cb->posted)
    pthread_cond_wait(&cb->cv, &cb->mu);
  pthread_mutex_unlock(&cb->mu);
}

static emu_cudacb *cudacb_get(emu_app *a) {
  if (a->cudacb != NULL)
    return a->cudacb;
  emu_cudacb *cb = calloc(1, sizeof *cb);
  if (cb == NULL)
    emu_die("out of memory");
  cb->app = a;
  pthread_mutex_init(&cb->mu, NULL);
  pthread_cond_init(&cb->cv, NULL);
  char name[40];
  snprintf(name, sizeof name, "w%d/cudacb.a%d", a->worker->index, a->index);
  emu_thread_init(&cb->thr, a->worker->index, EMU_STREAM_CUDACB(a->index),
                  EMU_ROLE_CUDACB, name, a->worker->opts->seed);
  emu_thread_spawn(&cb->th, "cuda-cb", cudacb_main, cb);
  a->cudacb = cb;
  return cb;
}

static void cudacb_stop(emu_app *a) {
  emu_cudacb *cb = a->cudacb;
  if (cb == NULL)
    return;
  pthread_mutex_lock(&cb->mu);
  cb->stop = true;
  pthread_cond_broadcast(&cb->cv);
  pthread_mutex_unlock(&cb->mu);
  pthread_join(cb->th, NULL);
  free(cb);
  a->cudacb = NULL;
}

static void cudacb_run_eager(emu_app *a, emu_app_plan *ap) {
  emu_cudacb *cb = cudacb_get(a);
  pthread_mutex_lock(&cb->mu);
  while (cb->count == EMU_MAX_GRAPH_PLANS)
    pthread_cond_wait(&cb->cv, &cb->mu);
  cb->queue[(cb->head + cb->count) % EMU_MAX_GRAPH_PLANS] = *ap;
  cb->count++;
  cb->posted++;
  pthread_cond_broadcast(&cb->cv);
  pthread_mutex_unlock(&cb->mu);
  cudacb_wait_idle(a);
}

/* ---------- launching a group ---------- */
static bool plan_needs_proxy(const emu_app_plan *ap) {
  const emu_plan *plan = &ap->plan;
  const emu_layout *l = emu_self->layout;
  for (int i = 0; i < plan->ntasks; i++) {
    const emu_task *task = &plan->tasks[i];
    if (task->mask & ncclProfileKernelCh)
      return true;
    if (plan->comm->nnodes > 1 && !task->is_p2p)
      return true;
    if (task->is_p2p && emu_node_of(l, ap->peers_global[i]) !=
                            emu_node_of(l, plan->comm->global_rank))
      return true;
  }
  return false;
}

static void launch_plan(emu_app *a, emu_thread *t, emu_app_plan *ap) {
  emu_plan *plan = &ap->plan;
  plan->persistent = a->capturing != NULL;
  plan->stream = fake_stream(plan->comm);
  ap->needs_proxy = plan_needs_proxy(ap);
  emu_core_kernel_launch_start(t, plan); /* cuLaunchKernelEx */
  emu_core_kernel_launch_stop(t, plan);
  if (a->capturing != NULL && ap->needs_proxy) {
    /* Captured: a host node runs hostStreamPlanTask at every replay. */
    emu_graph *g = a->capturing;
    if (g->nplans < EMU_MAX_GRAPH_PLANS)
      g->plans[g->nplans++] = *ap;
    return;
  }
  if (ap->needs_proxy && opts_of(a)->blocking_launches &&
      emu_nccl_231(opts_of(a))) {
    /* 2.31: a blocking eager launch runs its host callback on the CUDA
     * callback thread too (§12); the launch returns after it ran. */
    cudacb_run_eager(a, ap);
    return;
  }
  host_stream_plan_task(a, t, ap);
}

static void ce_launch(emu_app *a, emu_thread *t, emu_comm *c,
                      emu_app_task *at) {
  emu_slot ce = {NULL, 0, false};
  size_t elt = emu_datatype_size(at->task.datatype);
  size_t bytes = at->task.count * elt;
  emu_core_ce_coll_start(t, c, &ce, &at->task.api, at->task.func, bytes,
                         at->task.root, fake_stream(c), at->task.sendbuff,
                         at->task.recvbuff, at->task.user_tag);
  /* "ready" barrier */
  emu_slot sync = {NULL, 0, false};
  emu_core_ce_sync_start(t, c, &ce, &sync, c->ce_use_complete);
  emu_core_ce_child_stop(t, &sync);
  c->ce_seq_num++;
  c->ce_use_complete = !c->ce_use_complete;
  bool in_place = (at->task.api_order % 2) == 1;
  int num_ops = in_place ? c->nranks - 1 : c->nranks;
  bool intra_sync = a->capturing != NULL;
  emu_slot batch = {NULL, 0, false};
  emu_core_ce_batch_start(t, c, &ce, &batch, num_ops, (size_t)num_ops * bytes,
                          intra_sync);
  if (intra_sync)
    for (int k = 0; k < 2; k++) { /* per-op path: nested CeSync */
      emu_slot nested = {NULL, 0, false};
      emu_core_ce_sync_start(t, c, &ce, &nested, c->ce_use_complete);
      emu_core_ce_child_stop(t, &nested);
      c->ce_seq_num++;
      c->ce_use_complete = !c->ce_use_complete;
    }
  emu_core_ce_child_stop(t, &batch);
  /* "complete" barrier */
  emu_slot done = {NULL, 0, false};
  emu_core_ce_sync_start(t, c, &ce, &done, c->ce_use_complete);
  emu_core_ce_child_stop(t, &done);
  c->ce_seq_num++;
  c->ce_use_complete = !c->ce_use_complete;
  emu_core_ce_coll_stop(t, &ce);
  (void)a;
}

/* Scheduler order: collectives by descending size (stable), then p2p. */
static void sort_tasks(emu_app_task **v, int n) {
  for (int i = 1; i < n; i++) {
    emu_app_task *x = v[i];
    int j = i - 1;
    while (j >= 0 && !v[j]->task.is_p2p && !x->task.is_p2p &&
           v[j]->task.bytes < x->task.bytes) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

static void launch_pending(emu_app *a, emu_thread *t) {
  for (int pi = 0; pi < a->npending; pi++) {
    emu_pending *p = &a->pending[pi];
    for (int i = 0; i < p->ntasks; i++)
      if (p->tasks[i].is_ce)
        ce_launch(a, t, p->comm, &p->tasks[i]);
    emu_app_task *colls[EMU_MAX_PENDING_TASKS], *p2ps[EMU_MAX_PENDING_TASKS];
    int ncolls = 0, np2p = 0;
    for (int i = 0; i < p->ntasks; i++) {
      emu_app_task *at = &p->tasks[i];
      if (at->is_ce || at->is_bcast_path)
        continue;
      if (at->task.is_p2p)
        p2ps[np2p++] = at;
      else
        colls[ncolls++] = at;
    }
    sort_tasks(colls, ncolls);
    emu_app_task *order[EMU_MAX_PENDING_TASKS];
    int n = 0;
    for (int i = 0; i < ncolls; i++)
      order[n++] = colls[i];
    for (int i = 0; i < np2p; i++)
      order[n++] = p2ps[i];
    for (int base = 0; base < n; base += EMU_MAX_TASKS_PER_PLAN) {
      static _Thread_local emu_app_plan ap;
      memset(&ap.plan, 0, sizeof ap.plan);
      ap.plan.comm = p->comm;
      int count =
          n - base < EMU_MAX_TASKS_PER_PLAN ? n - base : EMU_MAX_TASKS_PER_PLAN;
      for (int i = 0; i < count; i++) {
        ap.plan.tasks[i] = order[base + i]->task;
        ap.shapes[i] = order[base + i]->shape;
        ap.peers_global[i] = order[base + i]->peer_global;
      }
      ap.plan.ntasks = count;
      launch_plan(a, t, &ap);
    }
  }
  a->npending = 0;
}

static void *async_main(void *arg) {
  emu_app *a = arg;
  emu_thread_attach(&a->async_thr);
  launch_pending(a, &a->async_thr);
  emu_thread_detach(&a->async_thr);
  return NULL;
}

static void join_async(emu_app *a) {
  if (a->async_running) {
    pthread_join(a->async_th, NULL);
    a->async_running = false;
  }
}

/* ncclGroupEndInternal (§6.1, group.cc). */
static void group_end_internal(emu_app *a) {
  emu_thread *t = &a->thr;
  if (a->api.profiler_group_depth > 0)
    a->api.profiler_group_depth--;
  if (a->api.profiler_group_depth == 0)
    emu_core_group_api_record(t, &a->api, ncclProfilerGroupEndApiStart);
  if (--a->api.group_depth > 0) {
    emu_core_group_api_stop(t, &a->api);
    return;
  }
  if (a->npending > 0) {
    bool blocking = a->pending[0].comm->blocking;
    if (blocking || a->capturing != NULL) {
      launch_pending(a, t);
    } else {
      /* ncclGroupEnd returns ncclInProgress; an async job thread launches
       * after the GroupApi is stopped on this thread (§8.8). */
      char name[40];
      snprintf(name, sizeof name, "w%d/async.a%d.j%u", a->worker->index,
               a->index, a->async_jobs);
      emu_thread_init(&a->async_thr, a->worker->index,
                      EMU_STREAM_ASYNC(a->index, a->async_jobs), EMU_ROLE_ASYNC,
                      name, a->worker->opts->seed);
      a->async_jobs++;
      emu_thread_spawn(&a->async_th, "NCCL async", async_main, a);
      a->async_running = true;
    }
  }
  emu_core_group_api_stop(t, &a->api);
}

/* ---------- the API ---------- */
static void straggle(emu_app *a, const emu_comm *c) {
  const emu_options *o = opts_of(a);
  if (o->delay_rank >= 0 && o->delay_rank == c->global_rank && o->delay_us > 0)
    emu_sleep_ns((uint64_t)(o->delay_us * 1000.0));
}

static void enqueue_begin(emu_app *a) {
  if (a->api.group_depth == 0) {
    join_async(a);
    cudacb_wait_idle(a);
  }
  if (a->api.profiler_group_depth > 0)
    a->api.profiler_group_depth++;
  a->api.group_depth++; /* ncclGroupStartInternal */
}

static emu_app_task *new_task(emu_app *a, emu_comm *c) {
  emu_pending *p = NULL;
  for (int i = 0; i < a->npending; i++)
    if (a->pending[i].comm == c)
      p = &a->pending[i];
  if (p == NULL) {
    if (a->npending >= (int)(sizeof a->pending / sizeof *a->pending))
      emu_die("too many communicators in one group");
    p = &a->pending[a->npending++];
    p->comm = c;
    p->ntasks = 0;
  }
  if (p->ntasks >= EMU_MAX_PENDING_TASKS)
    emu_die("too many operations in one group (max %d)", EMU_MAX_PENDING_TASKS);
  emu_app_task *at = &p->tasks[p->ntasks++];
  memset(at, 0, sizeof *at);
  at->task.api_order = p->ntasks - 1;
  at->task.mask = a->api.mask;
  at->task.group_api = a->api.group_api;
  at->task.user_tag = a->user_tag;
  a->op_counter++;
  return at;
}

void emu_group_start(emu_app *a) {
  if (a->api.group_depth == 0) {
    join_async(a);
    cudacb_wait_idle(a);
  }
  a->api.group_depth++; /* no profiler call (§8.4) */
}

void emu_group_end(emu_app *a) {
  group_end_internal(a);
}

/* The part of ncclEnqueueCheck + collTaskAppend that every collective
 * shares (§6.1, §6.2): returns the new task between CollApi start and
 * stop, or NULL when NCCL discards the call without any profiler event
 * (count 0, nRanks 1) — the group is then already closed. */
static emu_app_task *coll_task_append_begin(emu_app *a, emu_comm *c, emu_func f,
                                            size_t count, emu_datatype dt,
                                            int root) {
  straggle(a, c);
  enqueue_begin(a);
  if (count == 0 || c->nranks == 1) {
    /* discarded / ncclLaunchOneRank: no profiler call at all (§8.1) */
    group_end_internal(a);
    return NULL;
  }
  emu_thread *t = &a->thr;
  bool captured = a->capturing != NULL;
  emu_core_group_api_start(t, &a->api, c, captured);
  emu_core_group_api_record(t, &a->api, ncclProfilerGroupStartApiStop);
  emu_core_coll_api_start(t, &a->api, c, f, count, dt, root, fake_stream(c),
                          captured, a->user_tag);
  emu_app_task *at = new_task(a, c);
  at->task.func = f;
  at->task.root = root;
  at->task.api = a->api.coll_api; /* possibly a stale, stopped handle */
  at->task.bytes = (uint64_t)count * emu_datatype_size(dt);
  at->task.count = count;
  at->task.datatype = dt;
  at->task.sendbuff = fake_buffer(c, a->op_counter, 0);
  at->task.recvbuff = fake_buffer(c, a->op_counter, 1);
  at->peer_global = -1;
  return at;
}

static void coll_task_append_end(emu_app *a) {
  emu_core_coll_api_stop(&a->thr, &a->api);
  group_end_internal(a);
}

/* NCCL 2.31 with --symmetric: collectives inside one node run a symmetric
 * kernel, and their Coll says so (§12): isSymColl, the kernel variant,
 * algo = the variant's suffix, no proto. task->nChannels stays the
 * channels the kernel uses (the channel mask's population count); what
 * the Coll says is the plan head's rule (emu_core_sym_head). */
static void use_symmetric_kernel(emu_app *a, const emu_comm *c,
                                 emu_task *task) {
  static const struct {
    emu_func func;
    const char *variant, *suffix;
  } variants[] = {
      {EMU_FUNC_ALLREDUCE, "AllReduce_AGxLL_R", "AGxLL_R"},
      {EMU_FUNC_ALLGATHER, "AllGather_LL", "LL"},
      {EMU_FUNC_REDUCESCATTER, "ReduceScatter_LL", "LL"},
  };
  if (!opts_of(a)->symmetric || c->nnodes != 1 || c->nranks < 2)
    return;
  for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
    if (variants[i].func != task->func)
      continue;
    uint32_t channel_mask =
        task->nChannels >= 32 ? UINT32_MAX : (1u << task->nChannels) - 1u;
    task->is_sym = true;
    task->kernel_variant = variants[i].variant;
    task->algo = variants[i].suffix;
    task->proto = "";
    task->nChannels = (uint8_t)__builtin_popcount(channel_mask);
    return;
  }
}

void emu_collective(emu_app *a, emu_comm *c, emu_func f, size_t count,
                    emu_datatype dt, int root) {
  if (c == NULL)
    return;
  emu_app_task *at = coll_task_append_begin(a, c, f, count, dt, root);
  if (at == NULL)
    return;
  emu_task *task = &at->task;
  if (f == EMU_FUNC_ALLGATHER || f == EMU_FUNC_BROADCAST) {
    task->count = task->bytes; /* bytes, as ncclInt8 (§6.6) */
    task->datatype = EMU_DT_INT8;
  }
  emu_model_coll(&at->shape, f, task->bytes, c->nranks, opts_of(a)->channels);
  task->nChannels = (uint8_t)at->shape.nchannels;
  task->nWarps = (uint8_t)at->shape.nwarps;
  task->algo = at->shape.algo;
  task->proto = at->shape.proto;
  use_symmetric_kernel(a, c, task);
  at->is_bcast_path = f == EMU_FUNC_BROADCAST;
  coll_task_append_end(a);
}

static void p2p_task_append(emu_app *a, emu_comm *c, emu_func f, int peer,
                            size_t count, emu_datatype dt) {
  emu_thread *t = &a->thr;
  bool captured = a->capturing != NULL;
  emu_core_group_api_start(t, &a->api, c, captured);
  emu_core_group_api_record(t, &a->api, ncclProfilerGroupStartApiStop);
  emu_core_p2p_api_start(t, &a->api, c, f, count, dt, fake_stream(c), captured,
                         a->user_tag);
  emu_app_task *at = new_task(a, c);
  emu_task *task = &at->task;
  task->is_p2p = true;
  task->func = f;
  task->root = peer;
  task->api = a->api.p2p_api;
  task->count = count;
  task->datatype = dt;
  task->bytes = (uint64_t)count * emu_datatype_size(dt);
  task->recvbuff = fake_buffer(c, a->op_counter, f == EMU_FUNC_SEND ? 0 : 1);
  task->sendbuff = task->recvbuff;
  emu_model_p2p(&at->shape, task->bytes, opts_of(a)->channels);
  task->nChannels = (uint8_t)at->shape.nchannels;
  task->nWarps = (uint8_t)at->shape.nwarps;
  task->algo = at->shape.algo;
  task->proto = at->shape.proto;
  at->peer_global = c->spec->members[peer];
  emu_core_p2p_api_stop(t, &a->api);
}

void emu_send(emu_app *a, emu_comm *c, int peer, size_t count,
              emu_datatype dt) {
  if (c == NULL)
    return;
  straggle(a, c);
  enqueue_begin(a);
  p2p_task_append(a, c, EMU_FUNC_SEND, peer, count, dt);
  group_end_internal(a);
}

void emu_recv(emu_app *a, emu_comm *c, int peer, size_t count,
              emu_datatype dt) {
  if (c == NULL)
    return;
  straggle(a, c);
  enqueue_begin(a);
  p2p_task_append(a, c, EMU_FUNC_RECV, peer, count, dt);
  group_end_internal(a);
}

void emu_alltoall(emu_app *a, emu_comm *c, size_t count, emu_datatype dt) {
  if (c == NULL)
    return;
  straggle(a, c);
  enqueue_begin(a);
  if (count == 0 || c->nranks == 1) {
    group_end_internal(a);
    return;
  }
  for (int peer = 0; peer < c->nranks; peer++) {
    p2p_task_append(a, c, EMU_FUNC_SEND, peer, count, dt);
    p2p_task_append(a, c, EMU_FUNC_RECV, peer, count, dt);
  }
  group_end_internal(a);
}

void emu_ce_collective(emu_app *a, emu_comm *c, emu_func f, size_t count,
                       emu_datatype dt) {
  if (c == NULL)
    return;
  emu_app_task *at = coll_task_append_begin(a, c, f, count, dt, 0);
  if (at == NULL)
    return;
  at->is_ce = true; /* launched as copy-engine work, no kernel plan */
  coll_task_append_end(a);
}

void emu_graph_capture_begin(emu_app *a, emu_graph *g) {
  join_async(a);
  cudacb_wait_idle(a);
  g->nplans = 0;
  a->capturing = g;
}

void emu_graph_capture_end(emu_app *a) {
  a->capturing = NULL;
}

void emu_graph_launch(emu_app *a, emu_graph *g) {
  if (g->nplans == 0)
    return; /* intra-node graph without KernelCh: replays are invisible */
  join_async(a);
  emu_cudacb *cb = cudacb_get(a);
  pthread_mutex_lock(&cb->mu);
  for (int i = 0; i < g->nplans; i++) {
    while (cb->count == EMU_MAX_GRAPH_PLANS)
      pthread_cond_wait(&cb->cv, &cb->mu);
    cb->queue[(cb->head + cb->count) % EMU_MAX_GRAPH_PLANS] = g->plans[i];
    cb->count++;
    cb->posted++;
  }
  pthread_cond_broadcast(&cb->cv);
  pthread_mutex_unlock(&cb->mu);
  /* The graph keeps its plans: copy back the slots after the replay so the
   * next replay sees what this one left (stale handles included). */
  cudacb_wait_idle(a);
  pthread_mutex_lock(&cb->mu);
  for (int i = 0; i < g->nplans; i++) {
    int idx =
        (cb->head + EMU_MAX_GRAPH_PLANS - g->nplans + i) % EMU_MAX_GRAPH_PLANS;
    g->plans[i] = cb->queue[idx];
  }
  pthread_mutex_unlock(&cb->mu);
}

void emu_stream_sync(emu_app *a) {
  join_async(a);
  cudacb_wait_idle(a);
  emu_worker *w = a->worker;
  uint64_t busy = 0;
  for (int i = 0; i < a->nslots; i++) {
    for (int ci = 0; ci < w->layout->ncomms; ci++) {
      emu_comm *c = &w->comms[a->slots[i]][ci];
      if (c->spec != NULL && c->proxy != NULL && !c->destroyed)
        emu_proxy_wait_idle(c->proxy);
    }
    if (a->gpu_busy_until[a->slots[i]] > busy)
      busy = a->gpu_busy_until[a->slots[i]];
  }
  if (w->opts->pace == EMU_PACE_MODEL && busy > emu_now_ns())
    emu_sleep_until_ns(busy);
}

void emu_set_mask(emu_app *a, int mask, const char *why) {
  EMU_STORE_RELAXED(&emu_activation_mask, mask);
  emu_rec r;
  if (emu_rec_begin(&r, &a->thr, "mask")) {
    emu_rec_hex(&r, "mask", (uint64_t)(uint32_t)mask);
    emu_rec_str(&r, "why", why);
    emu_rec_str(&r, "quirk", "mask_change");
    emu_rec_str(&r, "quirk_ref", "docs/nccl-behaviour.md §10.14");
    emu_rec_end(&r);
  }
}

uint64_t emu_app_pick_size(emu_app *a, emu_rng *script_rng) {
  const emu_options *o = opts_of(a);
  return o->sizes[emu_rng_below(script_rng, (uint64_t)o->nsizes)];
}

/* ---------- the thread ---------- */
static uint64_t worker_callbacks(emu_worker *w);

static void rate_limit(emu_app *a) {
  const emu_options *o = opts_of(a);
  if (o->rate <= 0)
    return;
  emu_worker *w = a->worker;
  double per_worker = o->rate / w->layout->nworkers;
  uint64_t done = worker_callbacks(w);
  uint64_t due_ns = (uint64_t)((double)done / per_worker * 1e9);
  uint64_t elapsed = emu_now_ns() - w->start_ns;
  if (due_ns > elapsed)
    emu_sleep_ns(due_ns - elapsed);
}

static uint64_t worker_callbacks(emu_worker *w) {
  uint64_t n = emu_thread_detached_callbacks();
  n += EMU_LOAD_RELAXED(&w->main_thread.callbacks);
  for (int i = 0; i < w->napps; i++)
    n += EMU_LOAD_RELAXED(&w->apps[i]->thr.callbacks);
  pthread_mutex_lock(&w->registry_mutex);
  for (int i = 0; i < w->nproxies; i++) {
    emu_proxy *p = w->proxies[i];
    n += EMU_LOAD_RELAXED(&p->thr.callbacks);
    for (int k = 0; k < p->nhelpers; k++)
      n += EMU_LOAD_RELAXED(&p->helpers[k]->thr.callbacks);
  }
  pthread_mutex_unlock(&w->registry_mutex);
  return n;
}

static bool keep_going(emu_app *a, int iter) {
  emu_worker *w = a->worker;
  const emu_options *o = opts_of(a);
  if (emu_worker_aborting(w))
    return false;
  if (o->duration > 0 && !w->pace_barrier) {
    /* Nothing waits for other ranks: every thread stops on its own clock
     * (PXN receivers give up once their originator has finished). */
    return (double)(emu_now_ns() - w->start_ns) / 1e9 < o->duration;
  }
  if (o->duration > 0) {
    /* Ranks meet at every plan: all must run the same number of
     * iterations, decided by one leader. */
    bool leader = w->index == 0 && a->index == 0;
    if (leader && EMU_LOAD_RELAXED(&w->shared->stop_iter) == __INT_MAX__ &&
        (double)(emu_now_ns() - w->start_ns) / 1e9 >= o->duration)
      EMU_STORE_RELAXED(&w->shared->stop_iter, iter + 1);
    return iter < EMU_LOAD_RELAXED(&w->shared->stop_iter);
  }
  return iter < o->ops;
}

/* --step-marks: what a training loop does with cclscope's control API
 * (include/cclscope/control.h). Not NCCL calls: not in the truth. */
static void control_call(const char *symbol, int64_t step, const char *label) {
  emu_plugin *p = emu_loader_current();
  void *fn = p != NULL && p->lib != NULL ? dlsym(p->lib, symbol) : NULL;
  if (fn == NULL)
    return;
  if (label != NULL)
    ((int (*)(const char *))fn)(label);
  else
    ((int (*)(int64_t))fn)(step);
}

void *emu_app_main(void *arg) {
  emu_app *a = arg;
  emu_worker *w = a->worker;
  const emu_scenario *sc = w->scenario;
  emu_thread_attach(&a->thr);
  if (sc->setup != NULL) {
    sc->setup(a);
  } else {
    for (int ci = 0; ci < w->layout->ncomms; ci++)
      emu_app_init_comms(a, ci);
  }
  int iter = 0;
  for (; keep_going(a, iter); iter++) {
    a->iteration = iter;
    if (w->opts->step_marks && a->index == 0)
      control_call("cclscope_step", iter, NULL); /* step `iter` starts */
    sc->step(a, iter);
    if (w->opts->pace == EMU_PACE_MODEL)
      emu_stream_sync(a);
    rate_limit(a);
    if (a->index == 0)
      EMU_STORE_RELAXED(&w->shared->workers[w->index].iterations,
                        (uint64_t)iter + 1);
  }
  if (w->opts->step_marks && a->index == 0)
    control_call("cclscope_mark", -1, "ncclemu-done");
  if (sc->teardown != NULL && !emu_worker_aborting(w))
    sc->teardown(a);
  emu_stream_sync(a);
  cudacb_stop(a);
  /* Its ranks launch no more plans and their proxies are idle: the PXN
   * waits on them end here, per rank, not when this process's other
   * application threads end (emu_pxn.h) */
  for (int i = 0; i < a->nslots; i++)
    emu_pxn_rank_finished(w->first_rank + a->slots[i]);
  for (int ci = w->layout->ncomms - 1; ci >= 0; ci--)
    for (int i = 0; i < a->nslots; i++)
      emu_comm_destroy(a, &w->comms[a->slots[i]][ci]);
  emu_thread_detach(&a->thr);
  return NULL;
}
