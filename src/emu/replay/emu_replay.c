/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/replay/emu_replay.c — owns running a replay plan (emu_replay_load.h):
 * the supervisor forks one worker per recorded process; each worker sets
 * the recorded environment (host name, RCCL), loads the plugin through the
 * loader with the recorded NCCL version and ABI (unless --nccl-version or
 * --abi say otherwise) and starts one thread per recorded thread. Calls
 * take turns through one counter in shared memory: call N runs when call
 * N-1 is done, in whichever process and thread it is, so the plugin sees
 * the recorded order across threads (and across processes, which PXN
 * parents need: a handle is read from the shared slot table after its
 * start). --speed recorded also waits for each call's recorded time.
 * Every call goes through the shims, the checks and the truth like the
 * scenarios' calls (emu_profiler_core.c).
 */
#include "replay/emu_replay.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check/emu_check.h"
#include "check/emu_truth.h"
#include "emu_supervise.h"
#include "emu_threads.h"
#include "nccl/emu_app.h"
#include "profiler/emu_loader.h"
#include "profiler/emu_profiler_core.h"
#include "replay/emu_replay_load.h"

/* Shared by the supervisor and every worker (mapped before fork). */
typedef struct rp_shared {
  uint64_t next_call; /* index of the call whose turn it is */
  int abort;          /* a worker failed: the others stop waiting */
  uint64_t t0_ns;     /* CLOCK_MONOTONIC when the replay started */
  /* --speed recorded: when the previous call was made (CLOCK_MONOTONIC)
   * and its recorded time; written by the call's thread before it passes
   * the turn, so the next call's thread reads them after its wait. */
  uint64_t prev_call_ns;
  int64_t prev_call_ts;
  int pids[EMU_MAX_WORKERS];
  uint64_t callbacks[EMU_MAX_WORKERS];
  uint64_t skipped[EMU_MAX_WORKERS]; /* states/stops on a NULL handle */
} rp_shared;

/* The run: the plan (read-only after fork) and the shared tables. */
typedef struct rp_run {
  const emu_options *opts;
  const emu_rp_plan *plan;
  rp_shared *sh;
  uint32_t *wake;  /* [plan->nthreads]: futex word of each thread */
  emu_slot *slots; /* [plan->nslots]: NCCL's handle slot of each event */
  void **contexts; /* [plan->ncontexts]: each communicator's context */
  int proc;        /* the worker's process index */
  int mask;        /* forced activation mask, if have_mask */
  bool have_mask;
} rp_run;

typedef struct rp_worker_thread {
  rp_run *run;
  uint32_t index;  /* in the process's threads */
  uint32_t global; /* among all threads (wake word) */
  uint32_t *calls; /* indices into plan->calls, in order */
  size_t ncalls;
  emu_thread thr;
  pthread_t th;
  char os_name[16];
} rp_worker_thread;

/* ---------- taking turns ---------- */

static long futex(uint32_t *word, int op, uint32_t val,
                  const struct timespec *timeout) {
  return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

static void wait_turn(rp_run *run, const rp_worker_thread *t, uint64_t call) {
  uint32_t *word = &run->wake[t->global];
  for (;;) {
    uint32_t seen = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&run->sh->next_call, __ATOMIC_ACQUIRE) == call)
      return;
    if (__atomic_load_n(&run->sh->abort, __ATOMIC_RELAXED))
      _exit(EMU_EXIT_FAIL); /* another worker failed; it says why */
    struct timespec limit = {0, 50 * 1000 * 1000}; /* to look at abort */
    futex(word, FUTEX_WAIT, seen, &limit);
  }
}

static void pass_turn(rp_run *run, uint64_t call) {
  __atomic_store_n(&run->sh->next_call, call + 1, __ATOMIC_RELEASE);
  if (call + 1 >= run->plan->ncalls)
    return;
  const emu_rp_call *next = &run->plan->calls[call + 1];
  uint32_t g = run->plan->procs[next->proc].thread_base + next->thread;
  __atomic_add_fetch(&run->wake[g], 1, __ATOMIC_RELEASE);
  futex(&run->wake[g], FUTEX_WAKE, 1, NULL);
}

static void wake_everyone(rp_run *run) {
  for (uint32_t g = 0; g < run->plan->nthreads; g++) {
    __atomic_add_fetch(&run->wake[g], 1, __ATOMIC_RELEASE);
    futex(&run->wake[g], FUTEX_WAKE, 1, NULL);
  }
}

/* ---------- the calls ---------- */

static const emu_options *worker_options; /* the worker's own copy */

static void do_init(rp_run *run, rp_worker_thread *t, const emu_rp_comm *c,
                    int ci) {
  bool loaded_now = false;
  emu_plugin *p = emu_loader_acquire(&loaded_now);
  if (loaded_now)
    emu_truth_load_record(&t->thr, p, worker_options, true);
  if (p == NULL) {
    const char *name = getenv("NCCL_PROFILER_PLUGIN");
    bool disabled = name != NULL && strcasecmp(name, "none") == 0;
    if (!disabled && emu_loader_status() == EMU_LOAD_FAILED) {
      fprintf(stderr, "ncclemu: %s\n", emu_loader_error());
      fflush(stderr);
      __atomic_store_n(&run->sh->abort, 1, __ATOMIC_RELAXED);
      _exit(EMU_WORKER_LOAD_FAILED);
    }
    return;
  }
  void *ctx = NULL;
  int forced = run->mask;
  emu_thread_enter_call(&t->thr, EMU_CALL_INIT, 0);
  int rc = emu_shim_init(p, &ctx, c->comm_id, &emu_activation_mask, c->name,
                         c->nnodes, c->nranks, c->rank, emu_nccl_debug_log,
                         run->have_mask ? &forced : NULL);
  emu_thread_leave_call(&t->thr);
  emu_thread_count_callback(&t->thr);
  if (rc != 0) {
    if (run->opts->check)
      emu_check_report(EMU_CHECK_INIT_ERROR,
                       "init returned %d for the communicator of ctx %lld "
                       "(commId 0x%llx, rank %d)",
                       rc, (long long)c->ctx, (unsigned long long)c->comm_id,
                       c->rank);
    emu_loader_release(NULL); /* NCCL: one unload, continue without */
  }
  run->contexts[c->slot] = ctx;
  emu_rec r;
  if (emu_rec_begin(&r, &t->thr, "init")) {
    emu_rec_int(&r, "comm", ci);
    emu_rec_hex(&r, "commId", c->comm_id);
    emu_rec_int(&r, "rank", c->rank);
    emu_rec_int(&r, "nranks", c->nranks);
    emu_rec_int(&r, "nNodes", c->nnodes);
    emu_rec_str(&r, "commName", c->name);
    emu_rec_ptr(&r, "ctx", ctx);
    emu_rec_int(&r, "rc", rc);
    emu_rec_hex(&r, "mask",
                (uint64_t)(uint32_t)EMU_LOAD_RELAXED(&emu_activation_mask));
    emu_rec_int(&r, "refcount", emu_loader_refcount());
    emu_rec_int(&r, "abi", p->abi);
    emu_rec_int(&r, "recorded_ctx", c->ctx);
    if (c->made_up)
      emu_rec_bool(&r, "made_up", true);
    emu_rec_end(&r);
  }
}

static void do_finalize(rp_run *run, rp_worker_thread *t, const emu_rp_comm *c,
                        int ci) {
  emu_plugin *p = emu_loader_current();
  void *ctx = run->contexts[c->slot];
  if (p == NULL || ctx == NULL)
    return;
  emu_thread_enter_call(&t->thr, EMU_CALL_FINALIZE, 0);
  int rc = emu_shim_finalize(p, ctx);
  emu_thread_leave_call(&t->thr);
  emu_thread_count_callback(&t->thr);
  emu_rec r;
  if (emu_rec_begin(&r, &t->thr, "finalize")) {
    emu_rec_int(&r, "comm", ci);
    emu_rec_ptr(&r, "ctx", ctx);
    emu_rec_int(&r, "rc", rc);
    emu_rec_end(&r);
  }
  bool closed = false;
  emu_loader_release(&closed);
  if (closed && emu_rec_begin(&r, &t->thr, "unload")) {
    emu_rec_bool(&r, "dlclose", true);
    emu_rec_int(&r, "after_comm", ci);
    emu_rec_end(&r);
  }
}

static bool is_task(uint64_t type) {
  return type == ncclProfileColl || type == ncclProfileP2p;
}

static void do_start(rp_run *run, rp_worker_thread *t, const emu_rp_event *e) {
  const emu_rp_plan *plan = run->plan;
  ncclProfilerEventDescr_v7_t d = e->d;
  emu_start_info info;
  memset(&info, 0, sizeof info);
  info.comm_index = -1;
  info.global_rank = -1;
  const emu_slot *parent = NULL;
  const emu_rp_event *pe = NULL;
  if (e->parent_kind != EMU_RP_PARENT_NONE) {
    pe = &plan->procs[e->parent_proc].events[e->parent_ev];
    parent = &run->slots[pe->slot];
  }
  const emu_slot *group =
      e->group_ev >= 0
          ? &run->slots[plan->procs[run->proc].events[e->group_ev].slot]
          : NULL;
  /* Recorded with ABI v1-v4, a Coll/P2p names its Group as parent: that
   * is the descriptor's parentGroup (what those adapters deliver). */
  if (is_task(d.type) && pe != NULL && pe->d.type == ncclProfileGroup &&
      group == NULL) {
    group = parent;
    parent = NULL;
  }
  d.parentObj = parent != NULL ? parent->handle : NULL;
  info.parent_id = parent != NULL && parent->handle != NULL ? parent->id : 0;
  if (is_task(d.type)) {
    void *g = group != NULL ? group->handle : NULL;
    if (d.type == ncclProfileColl)
      d.coll.parentGroup = g;
    else
      d.p2p.parentGroup = g;
    info.parent_group_id = g != NULL ? group->id : 0;
  }
  if (e->has_net)
    d.netPlugin.data = (void *)&e->net;
  if (d.type == ncclProfileProxyOp) /* the recorded pid of a replayed file */
    for (int k = 0; k < plan->nprocs; k++)
      if (plan->procs[k].pid == (int64_t)d.proxyOp.pid) {
        d.proxyOp.pid = (ncclPid_t)run->sh->pids[k];
        break;
      }
  void *ctx = NULL;
  if (e->owner_comm >= 0) {
    const emu_rp_process *owner = &plan->procs[e->owner_proc];
    ctx = run->contexts[owner->comms[e->owner_comm].slot];
  }
  if (e->owner_proc == run->proc) {
    info.comm_index = e->owner_comm;
  } else {
    info.foreign = true; /* PXN: the originating process's context */
    info.origin_worker = e->owner_proc;
    info.origin_pid = run->sh->pids[e->owner_proc];
    info.origin_ctx = ctx;
    info.origin_parent_obj = d.parentObj;
  }
  if (e->has_rccl)
    info.rccl_proxy = &e->rccl; /* delivered when the host is RCCL's v6 */
  emu_core_replay_start(&t->thr, ctx, &run->slots[e->slot], &d, &info);
}

static void exec_call(rp_run *run, rp_worker_thread *t, const emu_rp_call *c) {
  const emu_rp_process *p = &run->plan->procs[c->proc];
  switch ((emu_rp_call_kind)c->kind) {
  case EMU_RP_CALL_INIT:
    do_init(run, t, &p->comms[c->obj], (int)c->obj);
    break;
  case EMU_RP_CALL_FINALIZE:
    do_finalize(run, t, &p->comms[c->obj], (int)c->obj);
    break;
  case EMU_RP_CALL_START:
    do_start(run, t, &p->events[c->obj]);
    break;
  case EMU_RP_CALL_STATE: {
    emu_slot *slot = &run->slots[p->events[c->obj].slot];
    if (slot->handle == NULL) { /* NCCL checks the handle */
      run->sh->skipped[c->proc]++;
      break;
    }
    emu_rp_state s = p->states[c->state];
    emu_core_replay_record(&t->thr, slot, s.id, s.args_null ? NULL : &s.args,
                           s.has_diag ? &s.diag : NULL);
    break;
  }
  case EMU_RP_CALL_STOP: {
    const emu_rp_event *e = &p->events[c->obj];
    emu_slot *slot = &run->slots[e->slot];
    /* NCCL checks the handle, except on NetPlugin stops (§3.2). */
    if (slot->handle == NULL && e->d.type != ncclProfileNetPlugin) {
      run->sh->skipped[c->proc]++;
      break;
    }
    emu_core_replay_stop(&t->thr, slot);
    break;
  }
  }
}

/* ---------- threads ---------- */

/* --speed recorded: a call is made no sooner after the previous one than
 * it was recorded. Anchored on the previous call as made, not on the
 * start: a call made late (a slow init, a loaded machine) delays the ones
 * after it instead of letting them catch up, so every recorded gap, and
 * the recorded span between any two calls, is kept as a lower bound. */
static void pace_call(rp_shared *sh, uint64_t call, int64_t ts) {
  if (call > 0 && ts > sh->prev_call_ts)
    emu_sleep_until_ns(sh->prev_call_ns + (uint64_t)(ts - sh->prev_call_ts));
  sh->prev_call_ns = emu_now_ns();
  sh->prev_call_ts = ts;
}

static void *thread_main(void *arg) {
  rp_worker_thread *t = arg;
  rp_run *run = t->run;
  pthread_setname_np(pthread_self(), t->os_name);
  emu_thread_attach(&t->thr);
  for (size_t i = 0; i < t->ncalls; i++) {
    uint64_t call = t->calls[i];
    const emu_rp_call *c = &run->plan->calls[call];
    wait_turn(run, t, call);
    if (run->opts->replay_speed == EMU_REPLAY_RECORDED)
      pace_call(run->sh, call, c->ts);
    exec_call(run, t, c);
    pass_turn(run, call);
  }
  emu_thread_detach(&t->thr);
  return NULL;
}

static emu_role role_of(const emu_rp_process *p, const emu_rp_thread *th) {
  if (strncmp(th->name, "NCCL Progress", 13) == 0)
    return EMU_ROLE_PROXY;
  if (strncmp(th->name, "NCCL Sock", 9) == 0)
    return EMU_ROLE_SOCK;
  return th->tid == p->pid ? EMU_ROLE_MAIN : EMU_ROLE_APP;
}

static rp_worker_thread *make_threads(rp_run *run, const emu_rp_process *p) {
  rp_worker_thread *ts = calloc((size_t)p->nthreads, sizeof *ts);
  if (ts == NULL)
    emu_die("out of memory for replay threads");
  for (int i = 0; i < p->nthreads; i++) {
    rp_worker_thread *t = &ts[i];
    t->run = run;
    t->index = (uint32_t)i;
    t->global = p->thread_base + (uint32_t)i;
    const emu_rp_thread *th = &p->threads[i];
    char name[40];
    snprintf(name, sizeof name, "p%d/%.30s", run->proc,
             th->name[0] ? th->name : "thread");
    snprintf(t->os_name, sizeof t->os_name, "%.15s",
             th->name[0] ? th->name : "ncclemu-replay");
    emu_thread_init(&t->thr, run->proc, 0x200u + (uint32_t)i, role_of(p, th),
                    name, run->opts->seed);
  }
  for (size_t k = 0; k < run->plan->ncalls; k++) {
    const emu_rp_call *c = &run->plan->calls[k];
    if (c->proc == run->proc)
      ts[c->thread].ncalls++;
  }
  for (int i = 0; i < p->nthreads; i++) {
    ts[i].calls = calloc(ts[i].ncalls + 1, sizeof *ts[i].calls);
    if (ts[i].calls == NULL)
      emu_die("out of memory for replay calls");
    ts[i].ncalls = 0;
  }
  for (size_t k = 0; k < run->plan->ncalls; k++) {
    const emu_rp_call *c = &run->plan->calls[k];
    if (c->proc == run->proc) {
      rp_worker_thread *t = &ts[c->thread];
      t->calls[t->ncalls++] = (uint32_t)k;
    }
  }
  return ts;
}

/* ---------- one worker (a recorded process) ---------- */

static void setup_worker_environment(const emu_options *o,
                                     const emu_rp_process *p) {
  if (p->hostname[0])
    setenv("CCLSCOPE_HOSTNAME", p->hostname, 1);
  if (p->rccl)
    setenv("CCLSCOPE_HOST", "rccl", 1);
  else
    unsetenv("CCLSCOPE_HOST");
  if (o->plugin != NULL)
    setenv("NCCL_PROFILER_PLUGIN", o->plugin, 1);
}

/* The recorded NCCL version, host and ABI, unless the command line says
 * otherwise (--nccl-version alone probes as that release would). */
static void worker_settings(emu_options *wo, const emu_options *o,
                            const emu_rp_process *p) {
  *wo = *o;
  if (!o->nccl_version_set && p->nccl_version > 0 &&
      emu_max_abi_for_version(p->nccl_version) > 0)
    wo->nccl_version = p->nccl_version;
  if (!o->host_set)
    wo->host = p->rccl ? EMU_HOST_RCCL : EMU_HOST_NCCL;
  if (o->abi == 0 && !o->nccl_version_set && p->abi >= 1 && p->abi <= 7)
    wo->abi = p->abi;
}

static void worker_main(rp_run *run) __attribute__((noreturn));
static void worker_main(rp_run *run) {
  const emu_options *o = run->opts;
  const emu_rp_process *p = &run->plan->procs[run->proc];
  static emu_options wo;
  worker_settings(&wo, o, p);
  worker_options = &wo;
  run->have_mask = o->mask_set || p->has_mask;
  run->mask = o->mask_set ? o->mask : p->mask;
  setup_worker_environment(o, p);
  if (o->truth != NULL) {
    char path[1024];
    if (run->plan->nprocs == 1)
      snprintf(path, sizeof path, "%s", o->truth);
    else
      snprintf(path, sizeof path, "%s.%d", o->truth, run->proc);
    emu_truth_open(path);
  }
  emu_check_configure(o->check, o->max_callback_ms, o->max_lifecycle_ms);
  emu_thread_note_own();
  emu_watchdog_start();
  emu_core_configure(o->check, o->check ? o->max_callback_ms : 0,
                     o->truth != NULL);
  emu_loader_configure(&wo);
  emu_shims_detect_unwritten(o->check || o->truth != NULL);

  rp_worker_thread *ts = make_threads(run, p);
  int on_main = -1; /* the recorded main thread runs on this one */
  for (int i = 0; i < p->nthreads; i++)
    if (p->threads[i].tid == p->pid)
      on_main = i;
  for (int i = 0; i < p->nthreads; i++)
    if (i != on_main)
      emu_thread_spawn(&ts[i].th, ts[i].os_name, thread_main, &ts[i]);
  if (on_main >= 0)
    thread_main(&ts[on_main]);
  for (int i = 0; i < p->nthreads; i++)
    if (i != on_main)
      pthread_join(ts[i].th, NULL);
  emu_watchdog_stop();
  emu_truth_close();
  run->sh->callbacks[run->proc] = emu_thread_detached_callbacks();
  uint64_t failures = emu_check_total();
  if (failures > 0) {
    char label[48];
    snprintf(label, sizeof label, "replay of %s", p->path);
    emu_check_summary(label);
  }
  fflush(stdout);
  fflush(stderr);
  exit(failures > 0 ? EMU_WORKER_CHECK_FAILED : EMU_EXIT_OK);
}

/* ---------- the supervisor ---------- */

static void *map_shared(size_t bytes) {
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    emu_die("cannot map %zu bytes of shared memory: %s", bytes,
            strerror(errno));
  return m;
}

static bool replay_ended(void *ctx, int k, pid_t pid, int status) {
  const rp_run *run = ctx;
  const char *path = run->plan->procs[k].path;
  if (WIFSIGNALED(status)) {
    fprintf(stderr,
            "ncclemu: FAIL: the replay of %s (pid %d) crashed: signal %d "
            "(%s)\n",
            path, (int)pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
    return true;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 0)
    return false;
  int code = WEXITSTATUS(status);
  fprintf(stderr, "ncclemu: FAIL: the replay of %s (pid %d) %s\n", path,
          (int)pid,
          code == EMU_WORKER_CHECK_FAILED  ? "failed checks (see above)"
          : code == EMU_WORKER_LOAD_FAILED ? "could not load the plugin"
                                           : "exited with an error");
  return true;
}

static void replay_stop(void *ctx) {
  rp_run *run = ctx;
  __atomic_store_n(&run->sh->abort, 1, __ATOMIC_RELAXED);
  wake_everyone(run);
}

int emu_replay_main(const emu_options *o) {
  static emu_rp_plan plan;
  /* --timeout counts from here: loading a huge (or endless) input is part
   * of the run it bounds. */
  uint64_t load_start_ns = emu_now_ns();
  uint64_t deadline_ns = load_start_ns + (uint64_t)(o->timeout * 1e9);
  if (!emu_rp_plan_load(&plan, o->nreplay_files, o->replay_files, deadline_ns))
    return EMU_EXIT_FAIL;
  if (!o->quiet)
    emu_rp_plan_report(&plan);
  if (plan.ncalls == 0) {
    fprintf(stderr, "ncclemu: replay: the traces hold no plugin calls\n");
    emu_rp_plan_free(&plan);
    return EMU_EXIT_OK;
  }
  size_t bytes = sizeof(rp_shared) + plan.nthreads * sizeof(uint32_t) + 64 +
                 plan.nslots * sizeof(emu_slot) +
                 plan.ncontexts * sizeof(void *) + 64;
  char *m = map_shared(bytes);
  rp_run run;
  memset(&run, 0, sizeof run);
  run.opts = o;
  run.plan = &plan;
  run.sh = (rp_shared *)m;
  size_t off = sizeof(rp_shared);
  run.wake = (uint32_t *)(m + off);
  off += plan.nthreads * sizeof(uint32_t);
  off = (off + 63) & ~(size_t)63;
  run.slots = (emu_slot *)(m + off);
  off += plan.nslots * sizeof(emu_slot);
  off = (off + 63) & ~(size_t)63;
  run.contexts = (void **)(m + off);

  if (!o->quiet)
    fprintf(stderr,
            "ncclemu: replay: %d process(es), %u thread(s), %zu plugin "
            "call(s), speed %s\n",
            plan.nprocs, plan.nthreads, plan.ncalls,
            o->replay_speed == EMU_REPLAY_RECORDED ? "recorded" : "max");
  fflush(stdout);
  fflush(stderr);
  pid_t pids[EMU_MAX_WORKERS];
  /* Nobody's turn until every worker exists and its pid is known (a
   * ProxyOp's pid names the process that replays the recorded one). */
  run.sh->next_call = UINT64_MAX;
  for (int k = 0; k < plan.nprocs; k++) {
    pid_t pid = fork();
    if (pid < 0)
      emu_die("fork failed: %s", strerror(errno));
    if (pid == 0) {
      run.proc = k;
      worker_main(&run);
    }
    pids[k] = pid;
    run.sh->pids[k] = (int)pid;
  }
  run.sh->t0_ns = emu_now_ns();
  pass_turn(&run, UINT64_MAX); /* call 0's turn */
  emu_children children = {
      pids,         plan.nprocs, load_start_ns, o->timeout, "replay timeout",
      replay_ended, replay_stop, &run};
  int failed = emu_supervise(&children);
  double wall = (double)(emu_now_ns() - run.sh->t0_ns) / 1e9;
  uint64_t callbacks = 0, skipped = 0;
  for (int k = 0; k < plan.nprocs; k++) {
    callbacks += run.sh->callbacks[k];
    skipped += run.sh->skipped[k];
  }
  if (o->stats || !o->quiet) {
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    fprintf(stderr,
            "ncclemu: replay %s: %llu plugin callbacks in %.3f s, CPU %.3f "
            "s%s\n",
            failed ? "FAILED" : "ok", (unsigned long long)callbacks, wall, cpu,
            skipped ? " (some states/stops not made: the plugin gave a NULL "
                      "handle)"
                    : "");
  }
  munmap(m, bytes);
  emu_rp_plan_free(&plan);
  return failed ? EMU_EXIT_FAIL : EMU_EXIT_OK;
}
