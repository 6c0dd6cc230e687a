/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang.h — `cclscope hang`: the data model and the steps of the
 * command (docs/hang.md, docs/cli.md). The module's header: it declares the
 * functions of every hang_*.c but hang_explain.c (hang_explain.h), each
 * group under the name of the file that defines it.
 *
 * What is read (hang_db): one `source` per in-flight snapshot
 * (inflight_*.json) and per trace file of a process that has no snapshot;
 * one `member` per (communicator, rank) a source knows, with its progress
 * per function and, from snapshots, its operations in flight. Of each
 * operation only what the analysis needs is kept: the head of each
 * pipeline (the lowest ProxyStep in flight per channel, direction and
 * peer) and the state it waits in.
 *
 * What is concluded (hang_report): one `group` per (communicator,
 * function) in which some rank has a hung operation: the status of every
 * rank of the communicator, who waits on whom, the culprit candidates with
 * their evidence, the most likely culprit, how sure that is, and the
 * class of the hang.
 */
#ifndef CCLSCOPE_CLI_HANG_H
#define CCLSCOPE_CLI_HANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/trace_reader.h"

#define HANG_NAME 64
#define HANG_FUNC 32
#define HANG_STATE 32
#define HANG_WAITING 256

/* ---- what was read ---- */

/* What the head of a pipeline waits for, from its last NCCL state
 * (docs/nccl-behaviour.md §6.9). */
typedef enum {
  HW_NONE = 0,    /* no state yet: a receive not posted yet */
  HW_PEER_DATA,   /* RecvWait: the data has not arrived from the peer */
  HW_PEER_BUFFER, /* SendPeerWait: the peer has no buffer ready for it */
  HW_NETWORK,     /* SendWait: handed to the network, not completed */
  HW_GPU_PRODUCE, /* SendGPUWait: this rank's GPU has not produced it */
  HW_GPU_FLUSH,   /* RecvFlushWait: arrived, the flush to the GPU hangs */
  HW_GPU_CONSUME, /* RecvGPUWait: arrived, this rank's GPU does not take it */
  HW_OTHER        /* a state this build does not interpret */
} hang_wait;

/* The lowest ProxyStep in flight of one (channel, direction, peer). */
typedef struct {
  int64_t channel;
  int64_t peer;
  bool is_send;
  int64_t step;
  hang_wait wait;
  char state[HANG_STATE];
  double idle_s;       /* in this state for (at the snapshot) */
  int64_t since_ns;    /* entered this state (epoch ns) */
  int steps_in_flight; /* of this pipeline */
  int64_t runner_pid;  /* PXN: the process whose proxy runs this pipeline
                          for the rank (a node-mate's); -1: its own */
  /* when its snapshot was taken, and the last sign of life of its
   * operation then (epoch ns): evidence from two ends of a link holds only
   * when each snapshot was taken after the other end had moved */
  int64_t seen_ns;
  int64_t op_last_ns;
} hang_head;

typedef struct {
  char type[HANG_NAME]; /* ncclProfileColl, ncclProfileP2p, ... */
  char func[HANG_FUNC]; /* "" for PXN ProxyOps */
  bool has_seq;
  uint64_t seq;
  int64_t peer; /* P2p: the peer, else -1 */
  int64_t rank;
  /* the call's arguments, to compare across ranks */
  bool has_count, has_root;
  uint64_t count;
  int64_t root;
  char datatype[HANG_FUNC];
  bool hung;
  double age_s, idle_s;
  int64_t last_progress_ns;   /* its last sign of life (epoch ns; 0: unknown) */
  char waiting[HANG_WAITING]; /* the plugin's own sentence */
  size_t events_in_flight;
  size_t events_listed;
  int proxy_ops, proxy_steps, kernel_chs;
  hang_head *heads;
  size_t nheads;
  /* newest state change of its listed ProxySteps other than the arrival
   * of a pipeline's first step (step 0 in RecvFlushWait or RecvGPUWait):
   * what its proxy did besides seeing first data come in (epoch ns;
   * INT64_MIN: none) */
  int64_t last_other_step_ns;
  bool pxn; /* a ProxyOp run here for another process (originPid) */
  int64_t origin_pid;
} hang_op;

typedef struct {
  char func[HANG_FUNC];
  uint64_t started, finished;
  bool has_started_seq, has_finished_seq;
  uint64_t last_started, last_finished;
} hang_progress;

/* One (communicator, rank) as one source saw it. */
typedef struct {
  size_t source; /* index into hang_db.sources */
  uint64_t comm_id;
  char comm_name[HANG_NAME];
  int64_t rank;
  int64_t nranks;
  bool finalized;
  hang_progress *progress;
  size_t nprogress;
  hang_op *ops; /* in flight (snapshots only) */
  size_t nops;
} hang_member;

typedef struct {
  char *path;
  bool is_trace; /* else a snapshot */
  char hostname[HANG_NAME];
  int64_t pid;
  /* snapshots */
  char reason[16]; /* "hang" or "dump" */
  int64_t ts_ns;
  double timeout_s;
  hang_op *orphans; /* operations without a communicator (PXN, ABI v1-v3) */
  size_t norphans;
  /* traces */
  bool has_end;       /* processEnd seen */
  int64_t last_ts_ns; /* newest time in the file (INT64_MIN: none) */
  bool has_step;
  uint64_t last_step; /* last `step` mark */
  uint64_t records;
} hang_source;

typedef struct {
  hang_source *sources;
  size_t nsources, cap_sources;
  hang_member *members;
  size_t nmembers, cap_members;
  size_t snapshots, traces;
  size_t hung_ops;      /* operations a snapshot says are hung */
  int64_t newest_ts_ns; /* newest snapshot */
  int64_t oldest_ts_ns;
} hang_db;

/* hang_inputs.c: the snapshots and trace files named by DIR|FILE... */
typedef struct {
  tr_inputs snapshots; /* inflight_*.json */
  tr_inputs traces;    /* *.jsonl */
} hang_inputs;
bool hang_inputs_collect(hang_inputs *in, int argc, char **argv);
void hang_inputs_free(hang_inputs *in);

/* hang_db.c: growing the arrays. NULL when out of memory. */
hang_source *hang_db_add_source(hang_db *db, const char *path);
hang_member *hang_db_member(hang_db *db, size_t source, uint64_t comm_id,
                            int64_t rank);
hang_progress *hang_member_progress(hang_member *m, const char *func);
void hang_db_free(hang_db *db);
hang_wait hang_wait_of_state(const char *state);
const char *hang_wait_name(hang_wait w);

/* hang_snapshot.c: read one snapshot into the db; false (and a message
 * on stderr) when it is not one. */
bool hang_read_snapshot(hang_db *db, const char *path);
/* hang_trace.c: read a trace file unless its process has a snapshot. */
bool hang_read_trace(hang_db *db, const char *path);

/* ---- what is concluded ---- */

typedef enum {
  HS_NO_DATA = 0, /* no snapshot and no trace names this rank */
  HS_STUCK,       /* a hung operation of this function */
  HS_BEHIND,      /* never started the newest collective others started */
  HS_MOVING,      /* in flight and progressing */
  HS_STARTED,     /* started it, not finished, nothing in flight known */
  HS_DONE         /* finished the newest collective */
} hang_status;

/* Why a rank is a culprit candidate, strongest first. */
typedef enum {
  HE_NONE = 0,      /* not a candidate (it waits on a peer) */
  HE_MISMATCH,      /* called it with other arguments than the others */
  HE_NEVER_STARTED, /* its last started seqNumber is below the others' */
  HE_SILENT,        /* no snapshot; no trace, or its trace stops early */
  HE_LINK,          /* its send in SendWait, the receiver's in RecvWait */
  HE_PROXY,         /* data moved on a link, its proxy never noticed */
  HE_GPU_IDLE,      /* a receive's first step arrived, its GPU took none */
  HE_GPU_CONSUME,   /* data arrived, its GPU does not take it */
  HE_GPU_HELD,      /* its node holds data a ring channel passes on */
  HE_NETWORK,       /* a send handed to the network never completed */
  HE_GPU_PRODUCE,   /* its GPU does not produce the data to send */
  HE_WAITED_DONE,   /* finished or progressing, yet others wait on it */
  HE_QUIET,         /* no snapshot, though alive after the first one */
  HE_NO_DETAIL,     /* stuck, no ProxyStep says on what */
  HE_COUNT
} hang_evidence;

typedef enum { HC_NONE = 0, HC_LOW, HC_MEDIUM, HC_HIGH } hang_confidence;

/* What kind of hang (docs/hang.md, "What each class looks like"). */
typedef enum {
  HK_UNKNOWN = 0,  /* the evidence does not say (or cannot tell who) */
  HK_NEVER_CALLED, /* the culprit never called the collective */
  HK_MISMATCH,     /* ranks called it with different arguments/functions */
  HK_GPU,          /* a GPU stopped inside it */
  HK_NETWORK,      /* a network transfer does not complete */
  HK_PROXY,        /* a proxy thread stopped driving the transfers */
  HK_COUNT
} hang_class;

typedef struct {
  int64_t rank;
  const hang_member *m; /* NULL: no data */
  const hang_source *src;
  hang_status status;
  bool has_started, has_finished;
  uint64_t last_started, last_finished;
  const hang_op *stuck; /* the longest idle hung operation */
  size_t nstuck;
  const hang_head **heads; /* of all its hung operations (and PXN ops) */
  size_t nheads;
  bool waits_on_peer;
  hang_evidence evidence;
  const hang_head *evidence_head; /* for HE_GPU_*, HE_NETWORK, HE_LINK,
                                     HE_PROXY (may be NULL: HE_GPU_HELD) */
  int64_t link_peer; /* HE_LINK, HE_PROXY: the other end; else -1 */
  size_t reach;      /* stuck ranks whose waits lead here */
  bool node_mates;   /* other ranks of the communicator on its host */
  size_t waited_by;  /* ranks waiting on it directly */
  /* HE_GPU_CONSUME, HE_GPU_PRODUCE: the evidence's channel continues
   * inside its node (no network transfer on the other side), so a GPU of
   * its node or a link between them, neither profiled, may cause it */
  bool inside_node;
  /* HE_GPU_IDLE: its proxy recorded nothing after that data arrived, so a
   * proxy thread that stopped right then looks the same */
  bool proxy_quiet;
  /* HE_PROXY seen on a send its proxy runs for a node-mate (PXN): that
   * node-mate, the sender; else -1 */
  int64_t proxy_for;
  /* HE_NEVER_STARTED read from a snapshot in which nothing of its process
   * hangs, taken less than a hang timeout after the others started the
   * collective: it may have been on its way to it (a slow rank) */
  bool behind_briefly;
} hang_rank;

typedef struct {
  uint64_t comm_id;
  char comm_name[HANG_NAME];
  int64_t nranks;
  char func[HANG_FUNC]; /* "Send/Recv" for P2p */
  bool has_seq;
  bool has_newest;
  uint64_t newest; /* highest seqNumber any rank started */
  bool has_done;
  uint64_t newest_done; /* highest seqNumber any rank finished */
  hang_rank *ranks;     /* nranks entries, by rank */
  size_t nstuck, nbehind, nno_data, nsilent, nnot_finished, nmoving, ndone;
  int64_t *culprits; /* most likely first */
  size_t nculprits;
  /* Several culprits that never started it, all ranks of one process: the
   * process is the culprit (a host thread stuck for all its GPUs). */
  bool culprit_process;
  hang_evidence top;
  hang_confidence confidence;
  hang_class hclass;
  /* HE_MISMATCH: what each side called ("rank 5 called AllReduce ...") */
  char mismatch[HANG_WAITING * 2];
  int64_t *cycle; /* when every stuck rank waits on another */
  size_t ncycle;
  /* evidence from both ends of a link set aside because the snapshot of
   * the end that waits is older than what the other end did (the last
   * one: stale_rank's snapshot, its peer stale_peer) */
  size_t nstale;
  int64_t stale_rank, stale_peer;
  double max_idle_s;
} hang_group;

typedef struct {
  hang_group *groups;
  size_t ngroups;
} hang_report;

/* hang_graph.c: the wait-for graph, edges by the rank waited on (CSR). */
typedef struct {
  size_t *start; /* nranks + 1 */
  int64_t *from;
} hang_graph;
/* RecvWait or SendPeerWait on another rank of the communicator? */
bool hang_waits_on_peer(const hang_head *h, int64_t self, int64_t n);
/* Build it from the ranks' heads; sets each rank's waited_by. */
bool hang_graph_build(hang_group *g, hang_graph *gr);
/* Stuck ranks from which `target` is reachable (scratch: nranks each). */
size_t hang_graph_reach(const hang_group *g, const hang_graph *gr,
                        int64_t target, bool *seen, int64_t *queue);
/* When no rank is a candidate: the cycle the stuck ranks wait in. */
void hang_graph_cycle(hang_group *g);
void hang_graph_free(hang_graph *gr);

/* hang_ring.c: evidence from both ends of a link and from the nodes of a
 * ring channel (stalled links, stopped proxies, GPUs that took nothing,
 * nodes that hold data); run on stuck ranks before the culprits are picked. */
void hang_ring_evidence(hang_group *g);

/* hang_analyze.c */
bool hang_analyze(const hang_db *db, hang_report *r);
void hang_report_free(hang_report *r);
const char *hang_evidence_name(hang_evidence e);
const char *hang_confidence_name(hang_confidence c);
const char *hang_status_name(hang_status s);

/* hang_mismatch.c: ranks of a communicator at the same point of its
 * sequence of collectives (as many started) whose current calls differ
 * (function, count, datatype, root): they, not the waits, are the
 * culprits of that communicator's groups. Run after every group was
 * analysed; false when out of memory. */
bool hang_find_mismatches(const hang_db *db, hang_report *r);

/* hang_class.c: the class of a group from its culprit's evidence (set
 * once confidence and culprits are known); its names. */
hang_class hang_class_of(const hang_group *g);
const char *hang_class_name(hang_class c);    /* "never-called", ... */
const char *hang_class_meaning(hang_class c); /* in words */

/* hang_print.c, hang_json.c */
typedef struct {
  size_t max_ranks; /* rows of the per-rank table (0 = all) */
} hang_print_options;
void hang_print_text(const hang_db *db, const hang_report *r,
                     const hang_print_options *o);
void hang_print_json(const hang_db *db, const hang_report *r);

#endif
