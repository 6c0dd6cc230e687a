/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/replay/emu_replay_load.h — what `ncclemu --replay` replays: cclscope
 * trace files (docs/trace-format.md), read through the CLI's read layer
 * (src/cli/read), become one plan: per recorded process its threads, its
 * communicators (init/finalize), its events with rebuilt v7 descriptors
 * and their states; and every plugin call of every process in one list,
 * sorted by recorded time. emu_replay_load.c; the descriptors come from
 * emu_replay_descr.c, the run is emu_replay.c.
 */
#ifndef NCCLEMU_REPLAY_LOAD_H
#define NCCLEMU_REPLAY_LOAD_H

#include "emu_common.h"
#include "nccl/profiler_net.h"
#include "profiler/emu_shims.h"

/* The plugin calls a replay makes, in the order they sort at one time. */
typedef enum {
  EMU_RP_CALL_INIT = 0,
  EMU_RP_CALL_START,
  EMU_RP_CALL_STATE,
  EMU_RP_CALL_STOP,
  EMU_RP_CALL_FINALIZE
} emu_rp_call_kind;

/* One recordEventState call (a collapsed entry with `count` is expanded). */
typedef struct emu_rp_state {
  int id;         /* NCCL's state value */
  bool args_null; /* GroupApi states: NCCL passes NULL (§3.4) */
  ncclProfilerEventStateArgs_v7_t args;
  bool has_diag; /* RCCL's ProxyDiagUpdate: its proxyDiag arm (§12) */
  emu_rccl_proxy_diag diag;
} emu_rp_state;

typedef enum {
  EMU_RP_PARENT_NONE = 0, /* NULL parentObj */
  EMU_RP_PARENT_LOCAL,    /* an event of the same file */
  EMU_RP_PARENT_FOREIGN   /* PXN: an event of another replayed file */
} emu_rp_parent_kind;

/* One recorded NCCL event. */
typedef struct emu_rp_event {
  uint64_t rec_id;               /* "id" in the file */
  ncclProfilerEventDescr_v7_t d; /* parentObj, parentGroup and
                                     netPlugin.data are set when started */
  union {
    ncclProfilerNetIbDescr_v1_t ib;
    ncclProfilerNetSockDescr_v1_t sock;
  } net;
  bool has_net; /* netPlugin.data points to `net` */
  /* RCCL's v6 proxyOp extras, when the ProxyOp's details have them (§12) */
  emu_rccl_proxy_extras rccl;
  bool has_rccl;
  emu_rp_parent_kind parent_kind;
  int parent_proc; /* process of the parent (this one unless foreign) */
  int parent_ev;   /* its event index there */
  int group_ev;    /* Coll/P2p: the legacy Group (parentGroupId), or -1 */
  int owner_proc;  /* whose communicator's context NCCL passes */
  int owner_comm;  /* index in that process's comms, -1 if none */
  int depth;       /* parents above it (orders equal times) */
  uint32_t slot;   /* index of its handle slot in the run's table */
  uint32_t start_thread;
  int64_t start_ts;
  /* read, before resolution */
  int64_t ctx; /* -1 when the record has none */
  uint64_t parent_id;
  uint64_t parent_raw; /* foreign: the raw value; unknown: raw or hint */
  int parent_rec_kind; /* parent_kind of the read layer (trace_record.h) */
  bool parent_is_hint;
  int64_t origin_pid;
  uint64_t group_id; /* parentGroupId, 0 if none */
} emu_rp_event;

/* One communicator: a ctx of the file, with its ProfilerInit and
 * ProfilerFinalize records (or an init made up for events whose init is
 * not in the file). */
typedef struct emu_rp_comm {
  int64_t ctx;
  uint64_t comm_id;
  const char *name; /* NULL: commName null (ABI v1-v3) */
  int rank, nranks, nnodes;
  bool has_init, has_finalize;
  bool made_up; /* no ProfilerInit in the file */
  int init_thread, finalize_thread;
  int64_t init_ts, finalize_ts;
  uint32_t slot; /* index of its context in the run's table */
} emu_rp_comm;

typedef struct emu_rp_thread {
  int64_t tid;
  char name[64]; /* from the thread record, "" if none */
} emu_rp_thread;

/* What was left out of one file, for the report. */
typedef struct emu_rp_skips {
  size_t bad_lines;     /* not JSON objects */
  size_t unknown_types; /* events of a type this build does not know */
  size_t no_details;    /* events without a details object */
  size_t no_start;      /* events without a start {ts,pid,tid} */
  size_t bad_states;    /* state entries without id or ts */
  size_t lost_parents;  /* parent named but not replayable (→ NULL) */
  size_t late_orphans;  /* late states of events not in the file */
  size_t marks;         /* control-API marks (not profiler calls) */
  size_t gpu_activity;  /* GPU activity records, e.g. CUPTI kernels of a
                           minimal_profiler file (not profiler calls) */
  size_t no_comm;       /* events whose communicator was guessed */
} emu_rp_skips;

typedef struct emu_rp_process {
  const char *path;
  int64_t pid;
  char hostname[64];
  uint16_t handle_tag;
  bool rccl;
  int nccl_version; /* code, 0 if unknown */
  int abi;          /* of the first ProfilerInit, 0 if unknown */
  bool has_mask;
  int mask; /* eventMask the recording ran with */
  emu_rp_thread *threads;
  int nthreads;
  uint32_t thread_base; /* index of threads[0] among all threads */
  emu_rp_event *events;
  size_t nevents;
  emu_rp_state *states;
  size_t nstates;
  emu_rp_comm *comms;
  int ncomms;
  emu_rp_skips skips;
} emu_rp_process;

typedef struct emu_rp_call {
  int64_t ts;     /* recorded time (ns since the epoch) */
  uint32_t order; /* tie-break: position of creation */
  uint16_t proc;
  uint8_t kind; /* emu_rp_call_kind */
  uint8_t depth;
  uint32_t thread; /* index in the process's threads */
  uint32_t obj;    /* event index (start/state/stop) or comm index */
  uint32_t state;  /* state index (EMU_RP_CALL_STATE) */
} emu_rp_call;

typedef struct emu_rp_plan {
  emu_rp_process *procs;
  int nprocs;
  emu_rp_call *calls; /* sorted: ts, kind, depth, process, order */
  size_t ncalls;
  uint32_t nthreads; /* over all processes */
  size_t nslots;     /* event handle slots over all processes */
  size_t ncontexts;  /* communicators over all processes */
} emu_rp_plan;

/* Reads every trace file (folders: their *.jsonl) into `plan`. A file that
 * is not a cclscope trace is reported and left out; what cannot be
 * replayed inside a file is counted in its skips. Returns false (after
 * saying why on stderr) when nothing at all can be replayed, or when
 * emu_now_ns() reaches `deadline_ns` (0: none) before the files are read. */
bool emu_rp_plan_load(emu_rp_plan *plan, int nfiles, char **files,
                      uint64_t deadline_ns);
/* Frees what emu_rp_plan_load allocated (strings stay: emu_rp_intern). */
void emu_rp_plan_free(emu_rp_plan *plan);
/* One line per process on stderr: what is replayed and what was left out. */
void emu_rp_plan_report(const emu_rp_plan *plan);

#endif
