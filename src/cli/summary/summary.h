/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary.h — the data model of `cclscope summary`, shared
 * by its parts: summary_collect.c (reading, dispatch, communicators, file
 * health), summary_colls.c (per-collective statistics), summary_stragglers.c
 * (cross-rank matching), summary_network.c (rank pairs, channels),
 * summary_print.c (tables and JSON). cmd_summary.c is the command only.
 * The module's header: each group of declarations is under the name of the
 * file that defines it.
 *
 * Everything is keyed by numbers (pair_map) and aggregated while streaming;
 * the only state that waits is a collective instance until every rank of
 * its communicator reported it (files are read in lock step, so that is a
 * short window).
 */
#ifndef CCLSCOPE_CLI_SUMMARY_H
#define CCLSCOPE_CLI_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "net_fit.h"
#include "read/trace_reader.h"
#include "read/trace_record.h"
#include "summary/log_hist.h"
#include "util/intern.h"
#include "util/pair_map.h"

/* Where a duration comes from, best first. The first four are the
 * `source` of timing records (gpu: KernelCh GPU stamps; cupti: a CUPTI
 * kernel span, in timing records derived from a minimal_profiler file;
 * proxy: network progress; host: the enqueue span); SRC_ENQUEUE is the
 * fallback when there are none: the Coll/P2p event's own span (enqueue on
 * the host). */
typedef enum {
  SRC_GPU = 0,
  SRC_CUPTI,
  SRC_PROXY,
  SRC_HOST,
  SRC_ENQUEUE,
  SRC_COUNT
} dur_source;

const char *dur_source_name(dur_source s);
/* Whether a bandwidth may be computed from a duration of that source: not
 * from a host-only span (enqueue), which says nothing of the transfer. */
bool dur_source_measures_transfer(dur_source s);

/* A communicator, from ProfilerLifecycle records. */
typedef struct {
  uint64_t comm_id;
  char name[64];
  int nranks;
} comm_info;

/* One row of the per-collective table: (comm, func, bytes, source). */
typedef struct {
  uint64_t comm_id;
  uint32_t func;  /* id in `funcs` */
  uint64_t bytes; /* message size, see summary_colls.c */
  dur_source source;
  int nranks;
  uint32_t algo, proto; /* intern ids of the first seen; mixed flags */
  bool algo_mixed, proto_mixed;
  lhist dur; /* ns */
} coll_row;

/* Marks a gap or a GPU-measured wait the trace does not give. */
#define STRAG_UNKNOWN INT64_MIN

/* One rank of one collective instance. */
typedef struct {
  int64_t arrival;    /* apiTs, else enqueue start (ns) */
  int64_t completion; /* stop (ns) */
  /* arrival - the later of this GPU's previous arrival and the latest
   * completion of another of its operations (gap_after: its own time
   * between two operations: compute, host work),
   * STRAG_UNKNOWN for the enqueue basis and a GPU's first operation */
  int64_t gap;
  /* KernelPhase initial_sync length (ns): how long the GPU waited for its
   * peers inside the kernel; STRAG_UNKNOWN without KernelPhase */
  int64_t gpu_wait;
  int32_t rank;
  /* KernelPhase compute and final_sync lengths (ns): how long the GPU
   * worked, and how long it then waited for its peers' data
   * (summary_kind.c); STRAG_UNKNOWN without KernelPhase */
  int64_t gpu_compute;
  int64_t gpu_final;
} inst_rank;

/* A collective matched across ranks by (comm, func, seqNumber). */
typedef struct {
  uint64_t comm_id;
  uint64_t seq;
  uint64_t bytes;
  uint32_t func;
  bool timing; /* from timing records (else enqueue events) */
  int nranks;  /* expected; 0 when unknown */
  int nseen;
  int cap;
  inst_rank *ranks;
} instance;

/* What the verdict tests (summary_verdict.c), over the "tested" instances
 * of a rank or GPU: those whose arrivals differ (spread > 0) and whose wait
 * is not start-up skew (not unattributed). Beside each count, how many
 * chance alone would give if lateness fell on any rank alike: the sum over
 * those instances of 1/n (last), of (ranks after the median arrival)/n
 * (after the median) and, where the ranks' gaps are known (timing basis),
 * of (ranks whose gap exceeds the median gap)/(ranks with a gap). */
typedef struct {
  uint64_t tested;
  uint64_t last;         /* of them, it arrived last */
  uint64_t after_median; /* of them, it arrived after the median arrival */
  uint64_t gap_tested;   /* of them, those where its gap is known */
  uint64_t gap_longer;   /* of those, its gap exceeded the median gap */
  double chance_last;
  double chance_after;
  double chance_gap;
} strag_evidence;

/* What tells a slow GPU (summary_kind.c), over a rank's or GPU's
 * instances where >= 2 ranks reported KernelPhase's final_sync: the GPU
 * the others wait for at the end of the kernel has the shortest
 * final_sync (as the one they wait for at the start has the shortest
 * initial_sync); a slow GPU is that one more often than chance (1/ranks
 * with one), its compute long and its peers' final_sync long. */
typedef struct {
  uint64_t tested;
  /* of them, its final_sync was the shortest, by more than the tolerance
   * below the median (it finished last) */
  uint64_t finished_last;
  double chance_last;         /* sum of 1/(ranks with a final_sync) */
  int64_t compute_sum;        /* its compute phases (ns) */
  int64_t median_compute_sum; /* each instance's median compute (ns) */
  int64_t final_sum;          /* its final_sync phases (ns) */
  int64_t median_final_sum;   /* each instance's median final_sync (ns) */
} compute_evidence;

/* Straggler aggregates of one rank of one communicator. */
typedef struct {
  uint64_t comm_id;
  int32_t rank;
  bool timing;
  uint64_t instances;
  uint64_t times_last;
  int64_t wait_sum; /* when last: its arrival - median arrival (ns) */
  /* The part of wait_sum this rank caused itself: when last, how much
   * longer its gap was than the median gap of the instance (at most the
   * wait). The rest it inherited: it arrived late because its previous
   * operation finished late, waiting on someone else. */
  int64_t own_wait_sum;
  /* Timing basis, when the last rank's gap or its peers' median gap is
   * unknown (first operations): neither own nor inherited. */
  int64_t unattributed_wait_sum;
  int64_t wait_max;
  int64_t arrival_off_sum;    /* arrival - median arrival, every instance */
  int64_t completion_off_sum; /* completion - median completion */
  /* GPU-measured (KernelPhase initial_sync), over instances where >= 2
   * ranks reported it: the rank with the shortest initial_sync arrived last
   * on the GPU and made the others wait median - shortest. */
  uint64_t gpu_instances;
  uint64_t gpu_times_last;
  int64_t gpu_wait_sum;     /* its own initial_sync, summed (ns) */
  int64_t gpu_caused_sum;   /* when last on the GPU: median - its own */
  strag_evidence evidence;  /* for the verdict (summary_verdict.c) */
  compute_evidence compute; /* for its kind (summary_kind.c) */
} rank_row;

#define WORST_KEEP 10

typedef struct {
  uint64_t comm_id;
  uint32_t func;
  uint64_t seq;
  uint64_t bytes;
  int nranks_seen;
  int32_t last_rank;
  int64_t spread; /* last arrival - first arrival */
  int64_t wait;   /* last arrival - median arrival */
} worst_instance;

typedef struct {
  pair_map index;              /* (comm, func|timing|seq) -> instance pointer */
  uint64_t waiting_high_water; /* most instances waiting at once */
  rank_row *ranks;
  size_t nranks, cap_ranks;
  pair_map rank_index; /* (comm, rank|timing) -> rank_row index + 1 */
  /* Each GPU's queue of reports and the last one released (summary_gaps.c):
   * (1 << 63 | file, device + 1), or (comm, rank) when the GPU is unknown
   * -> index + 1 in `history` */
  pair_map history_index;
  struct gpu_history *history;
  size_t nhistory, cap_history;
  uint64_t matched[2];    /* instances with >= 2 ranks, [timing] */
  uint64_t incomplete[2]; /* of which missing some rank */
  uint64_t single[2];     /* only one rank seen: not comparable */
  uint64_t duplicates;    /* the same rank twice in one instance */
  /* timing reports written after a report of the same GPU that arrived
   * later had left the window: their gaps are not in arrival order */
  uint64_t gaps_out_of_order;
  worst_instance worst[2][WORST_KEEP];
  int nworst[2];
} straggler_state;

/* A send direction of a rank pair: (comm, from, to), measured on the
 * sending side (SendWait -> stop of send steps; receive steps include
 * waiting for the sender and are not a link measurement). */
typedef struct {
  uint64_t comm_id; /* PXN rows: a placeholder until net_finish resolves it */
  int32_t from, to;
  bool pxn;            /* run by another process's proxy (PXN) */
  bool comm_ambiguous; /* PXN: the origin process has several candidates */
  uint64_t transfers;
  uint64_t bytes;
  int64_t busy_ns;
  uint32_t distinct_sizes;
  net_fit_result fit; /* filled by net_finish from min_by_size */
  lhist step_mbps;    /* each transfer's bytes / time, in MB/s (10^6 B/s) */
  bool slow;          /* below half the median bandwidth of its comm */
  bool slow_steps;    /* its steps slow against its comm's (link_steps) */
} link_row;

/* The per-step test of one link at one step size (summary_link_steps.c):
 * each of its ProxyOps' fastest send step against the median of the other
 * links' of the same communicator and step size. */
typedef struct {
  bool tested;          /* enough operations on it and on the others */
  bool slow;            /* consistently and much slower (docs/cli.md) */
  uint64_t ops;         /* its operations (ProxyOps) */
  uint64_t ops_slower;  /* of which slower than the reference */
  int64_t median_ns;    /* the median of its operations' fastest step */
  int64_t reference_ns; /* the median of the other links' */
  double ratio;         /* median_ns / reference_ns */
  double log10p;        /* of ops_slower by chance (1/2), times the links
                           tested; at most 0 */
} link_step_result;

/* The operations of one link at one step size: each one's fastest send
 * step (ns). */
typedef struct {
  size_t link;         /* index in network_state.links */
  uint64_t step_bytes; /* the operation's (largest) step size */
  int64_t *op_min_ns;
  size_t nops, cap_ops;
  link_step_result result; /* filled by net_step_tests */
} link_size_row;

/* A ProxyOp whose send steps are still being read: its link and its
 * fastest step of its largest step size so far. */
typedef struct {
  uint64_t file, op_id; /* its key in network_state.open_index */
  size_t link;
  uint64_t step_bytes;
  int64_t min_ns;
} open_op;

/* What a slow pair points to (net_verdicts in summary_network.c). */
typedef enum {
  VERDICT_LINK,
  VERDICT_RANK_LINKS,
  VERDICT_RANK_LATE,
  VERDICT_LINK_STEPS /* the per-step test, not the fits, found it slow */
} verdict_kind;

typedef struct {
  verdict_kind kind;
  uint64_t comm_id;
  int32_t from, to; /* the slow pair (VERDICT_RANK_LATE: to = -1) */
  int32_t rank;     /* the rank blamed, -1 for VERDICT_LINK */
  double bandwidth_gbs, median_gbs;
  double last_fraction; /* VERDICT_RANK_LATE */
  /* VERDICT_LINK_STEPS: the step size tested and the test (bandwidths
   * above are then step_bytes over the two medians) */
  uint64_t step_bytes;
  link_step_result steps;
} net_verdict;

/* Per (comm, rank, channel) send traffic. */
typedef struct {
  uint64_t comm_id;
  int32_t rank;
  int32_t channel;
  uint64_t bytes;
  int64_t busy_ns;
  uint64_t steps;
} channel_row;

typedef struct {
  link_row *links;
  size_t nlinks, cap_links;
  pair_map link_index;  /* (comm, from|to|side) -> index + 1 */
  pair_map min_by_size; /* (link index, bytes) -> min transfer ns */
  channel_row *channels;
  size_t nchannels, cap_channels;
  pair_map channel_index; /* (comm, rank|channel) -> index + 1 */
  uint64_t steps_used;
  uint64_t steps_without_size;
  uint64_t recv_steps; /* not fitted: they include waiting for the sender */
  net_verdict *verdicts;
  size_t nverdicts;
  /* the per-step test (summary_link_steps.c) */
  open_op *open_ops;
  size_t nopen, cap_open;
  pair_map open_index; /* (file, ProxyOp id) -> index + 1 in open_ops */
  link_size_row *sized;
  size_t nsized, cap_sized;
  pair_map sized_index;       /* (link index, step bytes) -> index + 1 */
  uint64_t links_step_tested; /* links compared (the Bonferroni factor) */
} network_state;

/* Per file: which process of the job it is, how it ended, what was lost. */
typedef struct {
  const char *path;
  char host[64];
  int64_t pid;
  /* The job rank its launcher gave (process record), -1 when none; and the
   * largest communicator it belongs to (the fallback, see gpu_identity). */
  int64_t global_rank;
  char rank_source[32];
  int largest_nranks;
  uint64_t largest_comm;
  int64_t largest_rank;
  int largest_count; /* ranks of largest_comm in this process (GPUs) */
  bool has_end;
  bool has_counters; /* from processEnd, else the last ProfilerFinalize */
  uint64_t started, dropped_starts, dropped_states, dropped_stops;
  uint64_t reclaimed, inflight, lines_lost;
  /* The accounting record (files since 2026-11): it counts lines a full
   * disk cost even when processEnd is among them; closed: the process
   * closed the file (its processEnd may still be lost). */
  bool has_acct;
  rec_accounting acct;
  uint64_t
      reclaimed_by[4]; /* abandoned, parent-stopped, no-progress, finalize */
} file_health;

typedef struct {
  /* options */
  bool json;
  int top;          /* rows of "worst" lists (INT_MAX: --top all) */
  int width;        /* text: the columns it fits (0: --wide, no limit) */
  bool no_progress; /* no bar on stderr (another pass shows its own) */
  /* inputs */
  uint64_t files, records, bytes, invalid_lines;
  int64_t first_ts, last_ts;
  intern_tab strings; /* algo, proto names */
  intern_tab funcs;   /* function names: small ids, part of keys */
  comm_info *comms;
  size_t ncomms, cap_comms;
  pair_map comm_index; /* comm_id -> index + 1 */
  /* (comm_id, rank) -> the GPU: file index + 1 | (device + 1) << 32 */
  pair_map gpu_index;
  /* (file index, device) -> nranks << 32 | rank + 1 of the largest
   * communicator that device belongs to */
  pair_map device_index;
  /* per-collective statistics */
  coll_row *colls;
  size_t ncolls, cap_colls;
  pair_map coll_index;
  uint64_t timing_records, coll_events; /* inputs seen */
  uint64_t gpu_activities;              /* gpuActivity records (CUPTI) */
  straggler_state strag;
  network_state net;
  file_health *health;
} summary;

/* Which GPU a communicator rank is (summary_collect.c): the process that
 * initialised it (file health: host, pid) and its device (-1 when the
 * trace does not say). NULL when no lifecycle record names it. */
const file_health *gpu_of(const summary *s, uint64_t comm_id, int32_t rank,
                          int *device);
/* The GPU's rank in the job (docs/cli.md, Stragglers): with one GPU in the
 * process, its launcher's rank (`source` = the variable), else its rank in
 * the largest communicator it belongs to; with several GPUs in the process,
 * the rank in the largest communicator of the same device (`source` =
 * "largest-communicator"); -1 (`source` = NULL) when the traces cannot
 * tell. */
int64_t gpu_global_rank(const summary *s, const file_health *h, uint64_t comm,
                        int32_t rank, int device, const char **source);

/* One GPU's straggler rows over all its communicators (summary_gpus.c). */
typedef struct {
  size_t file;               /* the process (index in summary.health) */
  const file_health *health; /* its host, pid */
  int64_t global_rank;       /* gpu_global_rank, -1 unknown */
  const char *source;        /* where global_rank came from, or NULL */
  int device;                /* -1 unknown */
  int comms;                 /* communicator rows summed */
  uint64_t instances, times_last;
  int64_t wait_sum, own_wait_sum, unattributed_wait_sum, wait_max;
  uint64_t gpu_instances, gpu_times_last; /* KernelPhase, see rank_row */
  int64_t gpu_wait_sum, gpu_caused_sum;
  strag_evidence evidence;
  compute_evidence compute;
} gpu_row;
/* The rows of one basis summed per GPU, in blame order (strag_blame_order:
 * most wait caused first; caller frees). A rank whose GPU cannot be told
 * apart stays a row of its own. */
gpu_row *gpu_rows(const summary *s, bool timing, size_t *n);

/* summary_verdict.c: does a GPU stand out from noise? */
typedef enum {
  STRAG_CONF_LOW,
  STRAG_CONF_MEDIUM,
  STRAG_CONF_HIGH
} strag_confidence;

/* The three tests of one GPU: log10 of one-sided binomial p-values of its
 * counts against chance, times the GPUs compared (Bonferroni), at most 0. */
typedef struct {
  double last;     /* times last */
  double after;    /* after the median arrival */
  double gap;      /* gap longer than the median (0 when not tested) */
  bool gap_tested; /* timing basis: the GPU's gaps were known */
  double floor;    /* the p-value had it been last every time: what the
                      data could say at most */
} strag_tests;

/* What kind of straggler the verdict names (summary_kind.c): a late host
 * (arrives late, its kernel normal), a slow GPU (arrives on time, its
 * compute long, its peers wait in final_sync) or a slow link (the network
 * fits); none when no GPU or link stands out. */
typedef enum {
  STRAG_KIND_NONE,
  STRAG_KIND_LATE_HOST,
  STRAG_KIND_SLOW_GPU,
  STRAG_KIND_SLOW_LINK
} strag_kind;

/* The slow GPU test of one GPU (compute_evidence): log10 of the adjusted
 * p-value of finishing last, and its compute and final_sync against the
 * medians. */
typedef struct {
  bool tested;          /* it has compute evidence */
  double last;          /* log10 p, times the GPUs compared, at most 0 */
  double compute_ratio; /* its compute sum / the median compute sum */
  double final_us;      /* its mean final_sync (us) */
  double peer_final_us; /* the mean of the instances' median final_sync */
} compute_tests;

/* The slow link the network fits or the per-step test found
 * (summary_network.c, summary_link_steps.c), its ends as GPUs (global
 * ranks, -1 unknown). */
typedef struct {
  uint64_t comm_id;
  int32_t from, to; /* comm ranks */
  int64_t from_global, to_global;
  double bandwidth_gbs, median_gbs;
  bool by_steps;          /* the per-step test found it (no fit did) */
  uint64_t step_bytes;    /* by_steps: the step size compared */
  link_step_result steps; /* by_steps: the test */
} kind_link;

typedef struct {
  bool timing;                 /* the basis compared (strag_basis_timing) */
  size_t ngpus;                /* GPU rows with tested instances */
  bool stands_out;             /* `gpu` is named; else "no GPU stands out" */
  strag_confidence confidence; /* of the verdict, named or not */
  /* named: the first GPU in blame order that passes every test; else the
   * first GPU in blame order (what the evidence was about); valid when
   * ngpus >= 1 */
  gpu_row gpu;
  strag_tests tests; /* of `gpu` */
  bool gpu_is_first; /* `gpu` is also the first in blame order */
  gpu_row first;     /* the first in blame order (ngpus >= 1) */
  /* Another GPU that passes every test too (when named), the one last
   * most often beyond chance, and how many times further beyond chance
   * (times last - chance) `gpu` was: HUGE_VAL without a rival. */
  bool have_rival;
  gpu_row rival;
  double dominance;
  const char *reason; /* one phrase: why named, or why not */
  /* what kind (summary_kind.c): for a late host and a slow GPU, `gpu` is
   * the GPU; for a slow link, `link` (stands_out is then false: no GPU) */
  strag_kind kind;
  compute_tests compute; /* of `gpu` (its compute against its peers') */
  bool have_link;
  kind_link link;
  const char *kind_reason; /* one phrase: why this kind */
} strag_verdict;

/* Which basis the straggler analysis uses: the timing records' when any
 * instance was matched from them, else the enqueue events'. */
bool strag_basis_timing(const summary *s);
/* The verdict of the analysis (docs/cli.md, Stragglers: the verdict). */
void strag_verdict_of(const summary *s, strag_verdict *v);
const char *strag_confidence_name(strag_confidence c);
/* log10 P(X >= k) for X ~ Binomial(n, p); 0 (p = 1) when k <= n p. */
double strag_log10_binomial_tail(uint64_t n, uint64_t k, double p);

/* summary_kind.c */
const char *strag_kind_name(strag_kind k); /* "late host", ... */
/* The slow GPU test of a GPU among `ngpus` with compute evidence. */
compute_tests strag_compute_tests(const compute_evidence *e, size_t ngpus);
/* What the kind is decided from, apart from the summary (unit tests). */
typedef struct {
  bool late_named;                  /* the arrival tests named a GPU */
  int64_t late_gpu;                 /* its global rank */
  strag_confidence late_confidence; /* of that verdict */
  compute_tests late;               /* its compute tests */
  bool have_candidate;              /* a GPU with compute evidence */
  int64_t candidate_gpu;            /* the one last most often beyond chance */
  compute_tests candidate;          /* its tests */
  bool have_link;                   /* the network fits found a slow link */
  kind_link link;                   /* the slowest against its median */
} kind_input;
typedef struct {
  strag_kind kind;
  bool named_candidate;        /* a slow GPU: the candidate is named */
  strag_confidence confidence; /* of a slow GPU or a slow link */
  const char *reason;
} kind_decision;
void strag_kind_decide(const kind_input *in, kind_decision *out);
/* Of two slow links, does `a` explain more than `b`: one at an end of
 * the late GPU (`late_gpu`, -1 none) first, then a fitted one before one
 * only the per-step test found, then the slower against its median. */
bool strag_link_explains_more(const kind_link *a, const kind_link *b,
                              int64_t late_gpu);
/* Sets the verdict's kind, its evidence and, for a slow GPU or link, its
 * confidence, from the GPU rows (blame order, n of them) and the
 * summary's network verdicts; a slow link names no GPU (stands_out
 * false). Returns the index of the slow GPU to name instead of what the
 * arrival tests named, n when that stays. */
size_t strag_kind_of(const summary *s, const gpu_row *rows, size_t n,
                     strag_verdict *v);
/* Sums a rank's compute evidence into its GPU's (summary_gpus.c). */
void strag_kind_add(compute_evidence *sum, const compute_evidence *e);
/* One scored instance's compute evidence, for each of its ranks. */
void strag_kind_score(straggler_state *st, const instance *in);

/* summary_colls.c */
void colls_add_timing(summary *s, const rec *r, rec_scratch *sc);
void colls_add_event(summary *s, const rec *r, rec_scratch *sc);
/* Whether timing records exist: then SRC_ENQUEUE rows are not shown. */
bool colls_use_timing(const summary *s);

/* summary_stragglers.c */
/* One rank's report of a collective instance (`who`: rank, arrival,
 * completion, gap, gpu_wait). */
void strag_add(summary *s, uint64_t comm_id, uint32_t func, uint64_t seq,
               uint64_t bytes, bool timing, int nranks, const inst_rank *who);

/* summary_gaps.c */
/* A timing record's report, waiting for its gap. */
typedef struct {
  uint64_t comm_id;
  uint64_t seq;
  uint64_t bytes;
  uint32_t func;
  int nranks;
  bool matched;   /* a collective with a seqNumber: goes on to strag_add */
  inst_rank who;  /* gap filled in here */
  uint64_t order; /* set by gaps_add: the report's number on its GPU */
} gap_report;
/* Queue a report on its GPU; reports leave in arrival order with their gap
 * set (collectives then go to strag_add). P2P reports only count as
 * completions. */
void gaps_add(summary *s, const gap_report *r);
/* A completion up to this long after an arrival still counts as before it
 * (summary_gaps.c). */
#define GAP_CLOCK_SLACK_NS 100000
/* The gap of `arrival`: minus the later of the GPU's previous arrival (in
 * arrival order) and `latest_completion`, the latest completion of another
 * operation of the GPU at most GAP_CLOCK_SLACK_NS after the arrival
 * (STRAG_UNKNOWN: none). */
int64_t gap_after(int64_t prev_arrival, int64_t latest_completion,
                  int64_t arrival);
/* Let every queued report go (called by strag_finish). */
void gaps_finish(summary *s);
/* Free every GPU's queue and history (summary_free). */
void gaps_free(summary *s);
void strag_finish(summary *s); /* flush instances still waiting */
/* The row of (comm, rank) on a basis, added when new; NULL when out of
 * memory (summary_kind.c adds its evidence there). */
rank_row *strag_rank_row(straggler_state *st, uint64_t comm, int32_t rank,
                         bool timing);
/* Who is blamed first, for (comm, rank) rows and GPU rows alike: the most
 * wait caused (strag_caused), then the most times last, then the most own
 * wait. Negative when x comes first, positive when y does, 0 when they
 * tie. */
int strag_blame_order(int64_t caused_x, uint64_t last_x, int64_t own_x,
                      int64_t caused_y, uint64_t last_y, int64_t own_y);
/* The wait a rank caused: its waits when last, start-up skew
 * (unattributed) left out; own + inherited. */
int64_t strag_caused(int64_t wait, int64_t unattributed);
/* The inherited part of a wait: neither own nor unattributed. */
int64_t strag_inherited(int64_t wait, int64_t own, int64_t unattributed);

/* summary_network.c */
void net_add_step(summary *s, const rec *r, rec_scratch *sc, size_t file);
void net_finish(summary *s); /* fits, PXN communicators, verdicts */
/* summary_link_steps.c: the per-step test of each link (docs/cli.md
 * "Network", slow pairs). A send step of ProxyOp `op_id` of `file` on
 * link `link`: */
void net_step_add(network_state *n, uint64_t file, uint64_t op_id, size_t link,
                  uint64_t bytes, int64_t ns);
/* The ProxyOp's record was read: its steps are all in. */
void net_step_op_done(network_state *n, uint64_t file, uint64_t op_id);
/* After the fits: every link tested against the others of its
 * communicator at the same step size (link_size_row.result). */
void net_step_tests(network_state *n);
void net_step_free(network_state *n);
/* The test of `nops` operations' fastest steps against `nothers` of the
 * other links' (each array is sorted in place); `links_tested` links are
 * compared in all (the Bonferroni factor). */
link_step_result link_step_test(int64_t *ops, size_t nops, int64_t *others,
                                size_t nothers, uint64_t links_tested);

/* summary_print.c */
void summary_print_text(summary *s);
void summary_print_json(summary *s);
/* The same JSON to `out` (cmd_view embeds it in the page). */
void summary_print_json_to(summary *s, FILE *out);

/* summary_collect.c */
/* The communicator `comm_id`, added (zeroed) when new; NULL when out of
 * memory. */
comm_info *summary_comm(summary *s, uint64_t comm_id);
/* Read every record of `in` into `s` (zeroed, options set) and finish the
 * analysis, ready to print. Returns 0, 1 when an input could not be read
 * (reported on stderr; the rest was read), -1 when out of memory (nothing
 * said yet). Free with summary_free in any case. */
int summary_collect(summary *s, const tr_inputs *in);
void summary_free(summary *s);

#endif
