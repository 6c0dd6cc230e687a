/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_print.c — `summary` output: aligned tables for
 * people, JSON (--json) for machines. Both show the same numbers; docs/cli.md
 * describes every column and key.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary/nccl_model.h"
#include "summary/summary.h"
#include "summary/table.h"
#include "summary/text_wrap.h"
#include "util/jsonw.h"

/* ---- shared helpers ---- */

static const summary *sort_ctx; /* qsort has no context argument */

static const char *comm_label(const summary *s, uint64_t comm, char *buf,
                              size_t cap) {
  if (comm == 0)
    return "(unknown)";
  const uint64_t *idx = pair_map_get(&s->comm_index, comm, 0);
  if (idx && s->comms[*idx - 1].name[0])
    return s->comms[*idx - 1].name;
  snprintf(buf, cap, "0x%" PRIx64, comm);
  return buf;
}

static const char *comm_name(const summary *s, uint64_t comm) {
  const uint64_t *idx = pair_map_get(&s->comm_index, comm, 0);
  return idx ? s->comms[*idx - 1].name : "";
}

static const char *human_bytes(uint64_t b, char *buf, size_t cap) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = (double)b;
  while (v >= 1024.0 && u < 4 && (b % 1024 == 0 || v >= 10240.0)) {
    v /= 1024.0;
    b /= 1024;
    u++;
  }
  if (v == (double)(uint64_t)v)
    snprintf(buf, cap, "%" PRIu64 " %s", (uint64_t)v, units[u]);
  else
    snprintf(buf, cap, "%.1f %s", v, units[u]);
  return buf;
}

static double us(int64_t ns) {
  return (double)ns / 1e3;
}

/* Bandwidth in GB/s of `bytes` in `ns` (bytes per ns = GB/s). */
static double gbps(uint64_t bytes, int64_t ns) {
  return ns > 0 ? (double)bytes / (double)ns : 0.0;
}

/* ---- sorting ---- */

static int cmp_colls(const void *a, const void *b) {
  const coll_row *x = a, *y = b;
  int c =
      strcmp(comm_name(sort_ctx, x->comm_id), comm_name(sort_ctx, y->comm_id));
  if (c)
    return c;
  if (x->comm_id != y->comm_id)
    return x->comm_id < y->comm_id ? -1 : 1;
  c = strcmp(intern_str(&sort_ctx->funcs, x->func),
             intern_str(&sort_ctx->funcs, y->func));
  if (c)
    return c;
  if (x->bytes != y->bytes)
    return x->bytes < y->bytes ? -1 : 1;
  return (int)x->source - (int)y->source;
}

/* Who cost the others the most time first: the wait caused when arriving
 * last (start-up skew left out), then how often it was last, then the own
 * share (strag_blame_order). */
static int cmp_ranks(const void *a, const void *b) {
  const rank_row *x = *(rank_row *const *)a, *y = *(rank_row *const *)b;
  int blame = strag_blame_order(
      strag_caused(x->wait_sum, x->unattributed_wait_sum), x->times_last,
      x->own_wait_sum, strag_caused(y->wait_sum, y->unattributed_wait_sum),
      y->times_last, y->own_wait_sum);
  if (blame != 0)
    return blame;
  if (x->comm_id != y->comm_id)
    return x->comm_id < y->comm_id ? -1 : 1;
  return x->rank - y->rank;
}

static int cmp_links(const void *a, const void *b) {
  const link_row *x = a, *y = b;
  if (x->comm_id != y->comm_id)
    return x->comm_id < y->comm_id ? -1 : 1;
  if (x->from != y->from)
    return x->from - y->from;
  if (x->to != y->to)
    return x->to - y->to;
  return (int)x->pxn - (int)y->pxn;
}

/* Bandwidth used to rank links: the validated fit, else bytes/busy. */
static double link_bw(const link_row *l) {
  if (l->fit.status == NET_FIT_OK)
    return l->fit.bandwidth_bps / 1e9;
  return gbps(l->bytes, l->busy_ns);
}

static int cmp_slowest(const void *a, const void *b) {
  const link_row *x = *(link_row *const *)a, *y = *(link_row *const *)b;
  double bx = link_bw(x), by = link_bw(y);
  if (bx != by)
    return bx < by ? -1 : 1;
  return cmp_links(x, y);
}

static int cmp_channels(const void *a, const void *b) {
  const channel_row *x = a, *y = b;
  if (x->comm_id != y->comm_id)
    return x->comm_id < y->comm_id ? -1 : 1;
  if (x->rank != y->rank)
    return x->rank - y->rank;
  return x->channel - y->channel;
}

/* Ranks of the chosen basis, sorted (caller frees). */
static rank_row **sorted_ranks(const summary *s, bool timing, size_t *n) {
  rank_row **v = malloc((s->strag.nranks + 1) * sizeof *v);
  *n = 0;
  if (!v)
    return NULL;
  for (size_t i = 0; i < s->strag.nranks; i++)
    if (s->strag.ranks[i].timing == timing)
      v[(*n)++] = &s->strag.ranks[i];
  qsort(v, *n, sizeof *v, cmp_ranks);
  return v;
}

/* Per (comm, rank): summary over its channels. */
typedef struct {
  uint64_t comm_id;
  int32_t rank;
  int channels;
  uint64_t bytes_min, bytes_max;
  int64_t busy_min, busy_max, busy_sum;
} channel_summary;

static size_t summarize_channels(const summary *s, channel_summary *out) {
  size_t n = 0;
  const channel_row *c = s->net.channels;
  for (size_t i = 0; i < s->net.nchannels; i++) {
    if (n == 0 || out[n - 1].comm_id != c[i].comm_id ||
        out[n - 1].rank != c[i].rank) {
      channel_summary *x = &out[n++];
      memset(x, 0, sizeof *x);
      x->comm_id = c[i].comm_id;
      x->rank = c[i].rank;
      x->bytes_min = x->bytes_max = c[i].bytes;
      x->busy_min = x->busy_max = c[i].busy_ns;
    }
    channel_summary *x = &out[n - 1];
    x->channels++;
    x->busy_sum += c[i].busy_ns;
    if (c[i].bytes < x->bytes_min)
      x->bytes_min = c[i].bytes;
    if (c[i].bytes > x->bytes_max)
      x->bytes_max = c[i].bytes;
    if (c[i].busy_ns < x->busy_min)
      x->busy_min = c[i].busy_ns;
    if (c[i].busy_ns > x->busy_max)
      x->busy_max = c[i].busy_ns;
  }
  return n;
}

static double imbalance(const channel_summary *x) {
  double mean = (double)x->busy_sum / (double)x->channels;
  return mean > 0 ? (double)x->busy_max / mean : 1.0;
}

static void prepare(summary *s) {
  sort_ctx = s;
  /* qsort must not get a NULL base, even with no elements */
  if (s->ncolls)
    qsort(s->colls, s->ncolls, sizeof *s->colls, cmp_colls);
  if (s->net.nlinks)
    qsort(s->net.links, s->net.nlinks, sizeof *s->net.links, cmp_links);
  if (s->net.nchannels)
    qsort(s->net.channels, s->net.nchannels, sizeof *s->net.channels,
          cmp_channels);
  /* indexes into the sorted arrays are no longer valid: drop them */
  pair_map_clear(&s->coll_index);
  pair_map_clear(&s->net.link_index);
  pair_map_clear(&s->net.channel_index);
}

/* Rows of the collectives table that are shown: those of timing records,
 * and the enqueue spans of the communicators that have none (a trace of
 * ours without them, next to one with them). */
static bool coll_shown(const summary *s, const coll_row *r) {
  if (r->source != SRC_ENQUEUE)
    return true;
  if (!colls_use_timing(s))
    return true;
  for (size_t i = 0; i < s->ncolls; i++)
    if (s->colls[i].comm_id == r->comm_id && s->colls[i].source != SRC_ENQUEUE)
      return false;
  return true;
}

/* ---- text ---- */

/* Where the text goes while it is made: a buffer that summary_print_text
 * then writes out fitted to the width (s->width), or stdout itself. */
static FILE *text_out;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(text_out, fmt, ap);
  va_end(ap);
}

static void print_colls_text(const summary *s) {
  bool timing = colls_use_timing(s);
  say("\nCollectives (per rank and call)");
  if (timing)
    say(": durations from the plugin's timing records, or those "
        "derived from a minimal_profiler file (source: gpu = KernelCh GPU "
        "stamps, cupti = CUPTI kernel, proxy = network, host = enqueue "
        "only)\n");
  else
    say(": NO timing records in this trace, so durations are the "
        "host-side enqueue spans of the Coll/P2p events (source "
        "\"enqueue\"), not completion times\n");
  table t;
  table_init(&t, "llrlrrrrrrll", "comm", "func", "bytes", "source", "count",
             "p50 us", "p90 us", "p99 us", "algBw GB/s", "busBw GB/s", "algo",
             "proto");
  t.keys = 4; /* a row is (comm, func, bytes, source) */
  bool host_only = false;
  for (size_t i = 0; i < s->ncolls; i++) {
    const coll_row *r = &s->colls[i];
    if (!coll_shown(s, r))
      continue;
    char cb[32], bb[32];
    int64_t p50 = lhist_quantile(&r->dur, 0.5);
    const char *func = intern_str(&s->funcs, r->func);
    double alg = gbps(r->bytes, p50);
    bool bandwidth = dur_source_measures_transfer(r->source);
    host_only = host_only || !bandwidth;
    table_cell(&t, "%s", comm_label(s, r->comm_id, cb, sizeof cb));
    table_cell(&t, "%s", func);
    table_cell(&t, "%s", human_bytes(r->bytes, bb, sizeof bb));
    table_cell(&t, "%s", dur_source_name(r->source));
    table_cell(&t, "%" PRIu64, r->dur.count);
    table_cell(&t, "%.3f", us(p50));
    table_cell(&t, "%.3f", us(lhist_quantile(&r->dur, 0.9)));
    table_cell(&t, "%.3f", us(lhist_quantile(&r->dur, 0.99)));
    if (bandwidth) {
      table_cell(&t, "%.3f", alg);
      table_cell(&t, "%.3f", alg * nccl_bus_factor(func, r->nranks));
    } else {
      table_cell(&t, "-");
      table_cell(&t, "-");
    }
    table_cell(&t, "%s%s", r->algo ? intern_str(&s->strings, r->algo) : "-",
               r->algo_mixed ? "+" : "");
    table_cell(&t, "%s%s", r->proto ? intern_str(&s->strings, r->proto) : "-",
               r->proto_mixed ? "+" : "");
  }
  if (t.nrows)
    table_print(&t, text_out, "  ");
  else
    say("  (no Coll, P2p or timing records)\n");
  table_free(&t);
  if (host_only)
    say("  algBw/busBw \"-\": a host or enqueue duration is when NCCL "
        "enqueued the operation, not when its data moved: no bandwidth "
        "is computed from it\n");
  if (s->gpu_activities)
    say("  %" PRIu64 " GPU activity records (CUPTI): shown by "
        "`cclscope view` and `perfetto` on GPU lanes\n",
        s->gpu_activities);
}

/* "g5 node1:4242 dev 1": a GPU as the text tables name it ("~" before the
 * rank when it is taken from the largest communicator, not a launcher). */
static const char *gpu_text(char *buf, size_t n, const file_health *h,
                            int64_t g, const char *source, int device) {
  if (!h) {
    snprintf(buf, n, "?");
    return buf;
  }
  char gr[32] = "g?", dev[24] = "";
  if (g >= 0)
    snprintf(gr, sizeof gr, "%sg%" PRId64,
             source && strcmp(source, "largest-communicator") == 0 ? "~" : "",
             g);
  if (device >= 0)
    snprintf(dev, sizeof dev, " dev %d", device);
  snprintf(buf, n, "%s %s:%" PRId64 "%s", gr, h->host[0] ? h->host : "?",
           h->pid, dev);
  return buf;
}

/* The same as JSON members (docs/cli.md): globalRank, globalRankSource,
 * host, pid, device, each null when unknown. */
static void json_gpu_members(jsonw *w, const file_health *h, int64_t g,
                             const char *source, int device) {
  jw_key(w, "globalRank");
  if (g >= 0)
    jw_i64(w, g);
  else
    jw_null(w);
  jw_key(w, "globalRankSource");
  if (source)
    jw_str(w, source);
  else
    jw_null(w);
  jw_key(w, "host");
  if (h && h->host[0])
    jw_str(w, h->host);
  else
    jw_null(w);
  jw_key(w, "pid");
  if (h && h->pid >= 0)
    jw_i64(w, h->pid);
  else
    jw_null(w);
  jw_key(w, "device");
  if (device >= 0)
    jw_i64(w, device);
  else
    jw_null(w);
}

/* The GPU a communicator rank is, as text and as JSON members. */
static const char *gpu_label(const summary *s, uint64_t comm, int32_t rank,
                             char *buf, size_t n) {
  int device;
  const file_health *h = gpu_of(s, comm, rank, &device);
  const char *source = NULL;
  int64_t g = h ? gpu_global_rank(s, h, comm, rank, device, &source) : -1;
  return gpu_text(buf, n, h, g, source, device);
}

static void json_gpu(jsonw *w, const summary *s, uint64_t comm, int32_t rank) {
  int device;
  const file_health *h = gpu_of(s, comm, rank, &device);
  const char *source = NULL;
  int64_t g = h ? gpu_global_rank(s, h, comm, rank, device, &source) : -1;
  json_gpu_members(w, h, g, source, device);
}

/* The GPUs that cost the job the most wait, over all their communicators. */
/* Whether any instance had KernelPhase's initial_sync on >= 2 ranks. */
static bool have_gpu_measured(const summary *s, bool timing) {
  for (size_t i = 0; i < s->strag.nranks; i++)
    if (s->strag.ranks[i].timing == timing && s->strag.ranks[i].gpu_instances)
      return true;
  return false;
}

static double mean_us(int64_t sum_ns, uint64_t n) {
  return n ? us(sum_ns) / (double)n : 0.0;
}

/* The KernelPhase columns of a row; "-" where its instances had none. */
static void gpu_measured_cells(table *t, uint64_t instances, uint64_t last,
                               int64_t caused, int64_t wait_sum) {
  if (instances == 0) {
    for (int i = 0; i < 3; i++)
      table_cell(t, "-");
    return;
  }
  table_cell(t, "%" PRIu64, last);
  table_cell(t, "%.3f", us(caused));
  table_cell(t, "%.3f", mean_us(wait_sum, instances));
}

/* ---- the verdict (summary_verdict.c) ---- */

/* A p-value given as its log10, for people: "0.03", "2e-41", "< 1e-300". */
static const char *p_text(char *buf, size_t n, double log10_p) {
  if (log10_p < -300)
    snprintf(buf, n, "< 1e-300");
  else if (log10_p > -3)
    snprintf(buf, n, "%.2g", pow(10.0, log10_p));
  else
    snprintf(buf, n, "%.0e", pow(10.0, log10_p));
  return buf;
}

static const char *gpu_row_text(char *buf, size_t n, const gpu_row *g) {
  return gpu_text(buf, n, g->health, g->global_rank, g->source, g->device);
}

/* "last in 94 of 99 tested instances (chance 12.4; p = 2e-41 over 8
 * GPUs), after the median arrival in 98 (chance 49.5; p = 4e-27), gap
 * longer than the median in 97 of 99 (chance 49.5; p = 3e-25)": the
 * counts of the GPU the verdict is about, each with its chance and p. */
static void print_evidence_text(const strag_verdict *v) {
  const strag_evidence *e = &v->gpu.evidence;
  const strag_tests *t = &v->tests;
  char pl[32], pa[32], pg[32];
  say("last in %" PRIu64 " of %" PRIu64
      " tested instances (chance %.1f; p = %s over %zu GPUs), after the "
      "median arrival in %" PRIu64 " (chance %.1f; p = %s)",
      e->last, e->tested, e->chance_last, p_text(pl, sizeof pl, t->last),
      v->ngpus, e->after_median, e->chance_after,
      p_text(pa, sizeof pa, t->after));
  if (t->gap_tested)
    say(", gap longer than the median in %" PRIu64 " of %" PRIu64
        " (chance %.1f; p = %s)",
        e->gap_longer, e->gap_tested, e->chance_gap,
        p_text(pg, sizeof pg, t->gap));
}

/* "comm 0xab rank 3 (g3) -> rank 5 (g5), 1.2 GB/s against the median
 * 4.8 GB/s of its communicator": the slow link of the verdict. */
static void print_link_text(const kind_link *l) {
  say("comm 0x%" PRIx64 " rank %d (g%" PRId64 ") -> rank %d (g%" PRId64 "), ",
      l->comm_id, l->from, l->from_global, l->to, l->to_global);
  if (!l->by_steps) {
    say("%.3f GB/s against the median %.3f GB/s of its communicator "
        "(fitted)",
        l->bandwidth_gbs, l->median_gbs);
    return;
  }
  char pl[32];
  say("its %" PRIu64 "-byte steps %.2fx as long as its communicator's "
      "other links' (%.1f against %.1f us), slower in %" PRIu64 " of %" PRIu64
      " operations (p = %s)",
      l->step_bytes, l->steps.ratio, (double)l->steps.median_ns / 1e3,
      (double)l->steps.reference_ns / 1e3, l->steps.ops_slower, l->steps.ops,
      p_text(pl, sizeof pl, l->steps.log10p));
}

/* "finished last (the shortest final_sync) in 95 of 100 instances
 * (chance 12.5; p = 1e-80); its mean final_sync 3.1 us against its
 * peers' 410.2 us; its compute 2.00x the median": the compute evidence of
 * the GPU named. */
static void print_compute_text(const strag_verdict *v) {
  const compute_evidence *e = &v->gpu.compute;
  const compute_tests *t = &v->compute;
  char pl[32];
  if (!t->tested) {
    say("no KernelPhase final_sync (NCCL 2.31) to compare");
    return;
  }
  say("finished last (the shortest final_sync) in %" PRIu64 " of %" PRIu64
      " instances (chance %.1f; p = %s); its mean final_sync %.3f us "
      "against its peers' %.3f us; its compute %.2fx the median",
      e->finished_last, e->tested, e->chance_last,
      p_text(pl, sizeof pl, t->last), t->final_us, t->peer_final_us,
      t->compute_ratio);
}

/* "    Kind: slow GPU — why: the numbers": what kind of straggler. */
static void print_kind_text(const strag_verdict *v) {
  say("    Kind: %s — %s: ", strag_kind_name(v->kind), v->kind_reason);
  if (v->kind == STRAG_KIND_SLOW_LINK) {
    print_link_text(&v->link);
  } else {
    say("last in %" PRIu64 " of %" PRIu64 " tested arrivals (chance %.1f); ",
        v->gpu.evidence.last, v->gpu.evidence.tested,
        v->gpu.evidence.chance_last);
    print_compute_text(v);
  }
  say("\n");
}

/* The verdict: a line that says it and why, then the numbers behind it. */
static void print_verdict_text(const summary *s) {
  strag_verdict v;
  strag_verdict_of(s, &v);
  char gb[160], rb[160];
  const char *conf = strag_confidence_name(v.confidence);
  if (v.kind == STRAG_KIND_SLOW_LINK && !v.stands_out) {
    say("  Verdict: a slow link (confidence %s): ", conf);
    print_link_text(&v.link);
    say("\n");
    print_kind_text(&v);
    say("    by arrivals: %s\n", v.reason);
    return;
  }
  if (v.ngpus < 2) {
    say("  Verdict: no GPU stands out (confidence %s): %s\n", conf, v.reason);
    return;
  }
  if (!v.stands_out) {
    say("  Verdict: no GPU stands out (confidence %s): %s\n", conf, v.reason);
    say("    the first by wait caused, %s, was ",
        gpu_row_text(gb, sizeof gb, &v.gpu));
    print_evidence_text(&v);
    say("\n");
    return;
  }
  say("  Verdict: %s is the straggler (confidence %s): %s\n",
      gpu_row_text(gb, sizeof gb, &v.gpu), conf, v.reason);
  say("    ");
  print_evidence_text(&v);
  say("\n    wait caused %.3f us",
      us(strag_caused(v.gpu.wait_sum, v.gpu.unattributed_wait_sum)));
  if (!v.gpu_is_first)
    say(" (first by wait caused: %s, %.3f us, last in %" PRIu64 ")",
        gpu_row_text(rb, sizeof rb, &v.first),
        us(strag_caused(v.first.wait_sum, v.first.unattributed_wait_sum)),
        v.first.evidence.last);
  if (!v.have_rival)
    say("; no other GPU stands out\n");
  else
    say("; another GPU stands out too: %s, last in %" PRIu64
        " (chance %.1f): %.1fx less far beyond chance\n",
        gpu_row_text(rb, sizeof rb, &v.rival), v.rival.evidence.last,
        v.rival.evidence.chance_last, v.dominance);
  print_kind_text(&v);
}

static void json_evidence(jsonw *w, const strag_evidence *e) {
  jw_key(w, "testedInstances");
  jw_u64(w, e->tested);
  jw_key(w, "testedLast");
  jw_u64(w, e->last);
  jw_key(w, "chanceLast");
  jw_double(w, e->chance_last, 3);
  jw_key(w, "afterMedian");
  jw_u64(w, e->after_median);
  jw_key(w, "chanceAfterMedian");
  jw_double(w, e->chance_after, 3);
  jw_key(w, "gapTested");
  jw_u64(w, e->gap_tested);
  jw_key(w, "gapLonger");
  jw_u64(w, e->gap_longer);
  jw_key(w, "chanceGapLonger");
  jw_double(w, e->chance_gap, 3);
}

/* A GPU of the verdict: who, its wait caused and its counts. */
static void json_verdict_gpu(jsonw *w, const gpu_row *g) {
  jw_obj_begin(w);
  json_gpu_members(w, g->health, g->global_rank, g->source, g->device);
  jw_key(w, "waitCausedUs");
  jw_double(w, us(strag_caused(g->wait_sum, g->unattributed_wait_sum)), 3);
  json_evidence(w, &g->evidence);
  jw_obj_end(w);
}

/* The per-step test of a link (summary_link_steps.c). */
static void json_step_test(jsonw *w, uint64_t step_bytes,
                           const link_step_result *t) {
  jw_key(w, "stepBytes");
  jw_u64(w, step_bytes);
  jw_key(w, "operations");
  jw_u64(w, t->ops);
  jw_key(w, "operationsSlower");
  jw_u64(w, t->ops_slower);
  jw_key(w, "medianStepUs");
  jw_double(w, (double)t->median_ns / 1e3, 3);
  jw_key(w, "referenceStepUs");
  jw_double(w, (double)t->reference_ns / 1e3, 3);
  jw_key(w, "stepRatio");
  jw_double(w, t->ratio, 3);
  jw_key(w, "log10P");
  jw_double(w, t->log10p, 2);
}

/* The kind's evidence: the GPU's compute against its peers', the slow
 * link. */
static void json_kind(jsonw *w, const strag_verdict *v) {
  jw_key(w, "kind");
  jw_str(w, strag_kind_name(v->kind));
  jw_key(w, "kindReason");
  if (v->kind_reason)
    jw_str(w, v->kind_reason);
  else
    jw_null(w);
  jw_key(w, "compute"); /* of the GPU the tests are of */
  if (v->compute.tested) {
    const compute_evidence *e = &v->gpu.compute;
    jw_obj_begin(w);
    jw_key(w, "testedInstances");
    jw_u64(w, e->tested);
    jw_key(w, "finishedLast");
    jw_u64(w, e->finished_last);
    jw_key(w, "chanceFinishedLast");
    jw_double(w, e->chance_last, 3);
    jw_key(w, "log10PFinishedLast");
    jw_double(w, v->compute.last, 2);
    jw_key(w, "computeRatio");
    jw_double(w, v->compute.compute_ratio, 3);
    jw_key(w, "finalSyncUs");
    jw_double(w, v->compute.final_us, 3);
    jw_key(w, "peerFinalSyncUs");
    jw_double(w, v->compute.peer_final_us, 3);
    jw_obj_end(w);
  } else {
    jw_null(w);
  }
  jw_key(w, "link"); /* the slow link the fits or the step test found */
  if (v->have_link) {
    jw_obj_begin(w);
    jw_key(w, "commId");
    jw_hex(w, v->link.comm_id);
    jw_key(w, "from");
    jw_i64(w, v->link.from);
    jw_key(w, "to");
    jw_i64(w, v->link.to);
    jw_key(w, "fromGlobalRank");
    jw_i64(w, v->link.from_global);
    jw_key(w, "toGlobalRank");
    jw_i64(w, v->link.to_global);
    jw_key(w, "bandwidthGBs");
    jw_double(w, v->link.bandwidth_gbs, 3);
    jw_key(w, "medianGBs");
    jw_double(w, v->link.median_gbs, 3);
    jw_key(w, "evidence"); /* which test found it */
    jw_str(w, v->link.by_steps ? "steps" : "fit");
    if (v->link.by_steps)
      json_step_test(w, v->link.step_bytes, &v->link.steps);
    jw_obj_end(w);
  } else {
    jw_null(w);
  }
}

static void json_verdict(jsonw *w, const summary *s) {
  strag_verdict v;
  strag_verdict_of(s, &v);
  jw_key(w, "verdict");
  jw_obj_begin(w);
  jw_key(w, "verdict");
  jw_str(w, v.stands_out                     ? "gpu"
            : v.kind == STRAG_KIND_SLOW_LINK ? "link"
                                             : "none");
  jw_key(w, "confidence");
  jw_str(w, strag_confidence_name(v.confidence));
  jw_key(w, "reason");
  jw_str(w, v.reason);
  json_kind(w, &v);
  jw_key(w, "gpusCompared");
  jw_u64(w, v.ngpus);
  jw_key(w, "gpu"); /* the GPU named */
  if (v.stands_out)
    json_verdict_gpu(w, &v.gpu);
  else
    jw_null(w);
  jw_key(w, "tested"); /* the GPU the tests below are of */
  if (v.ngpus >= 1)
    json_verdict_gpu(w, &v.gpu);
  else
    jw_null(w);
  jw_key(w, "log10PLast");
  jw_double(w, v.tests.last, 2);
  jw_key(w, "log10PAfterMedian");
  jw_double(w, v.tests.after, 2);
  jw_key(w, "log10PGapLonger");
  if (v.tests.gap_tested)
    jw_double(w, v.tests.gap, 2);
  else
    jw_null(w); /* the enqueue basis has no gaps */
  jw_key(w, "log10PFloor");
  jw_double(w, v.tests.floor, 2);
  jw_key(w, "first"); /* the first by wait caused */
  if (v.ngpus >= 1)
    json_verdict_gpu(w, &v.first);
  else
    jw_null(w);
  jw_key(w, "rival");
  if (v.have_rival)
    json_verdict_gpu(w, &v.rival);
  else
    jw_null(w);
  jw_key(w, "dominance");
  jw_double(w, v.dominance, 3); /* null without a rival */
  jw_obj_end(w);
  jw_newline(w);
}

static void print_gpus_text(const summary *s, bool timing) {
  size_t n;
  gpu_row *g = gpu_rows(s, timing, &n);
  if (!g || n == 0) {
    free(g);
    return;
  }
  bool gpu_measured = have_gpu_measured(s, timing);
  say("  By GPU (every communicator it is a rank of; most wait caused "
      "first; own = late by itself, inherited = late because its previous "
      "operation ended late; startup = a first operation's wait, not "
      "counted as caused):\n");
  table t;
  if (gpu_measured)
    table_init(&t, "lrrrrrrrrrrr", "GPU (global rank host:pid device)", "comms",
               "instances", "last", "wait caused us", "own us", "inherited us",
               "startup us", "max wait us", "GPU last", "GPU wait caused us",
               "mean initial_sync us");
  else
    table_init(&t, "lrrrrrrrr", "GPU (global rank host:pid device)", "comms",
               "instances", "last", "wait caused us", "own us", "inherited us",
               "startup us", "max wait us");
  t.keys = 1; /* the GPU */
  size_t shown = n < (size_t)s->top ? n : (size_t)s->top;
  for (size_t i = 0; i < shown; i++) {
    char gb[160];
    table_cell(&t, "%s",
               gpu_text(gb, sizeof gb, g[i].health, g[i].global_rank,
                        g[i].source, g[i].device));
    table_cell(&t, "%d", g[i].comms);
    table_cell(&t, "%" PRIu64, g[i].instances);
    table_cell(&t, "%" PRIu64, g[i].times_last);
    table_cell(&t, "%.3f",
               us(strag_caused(g[i].wait_sum, g[i].unattributed_wait_sum)));
    table_cell(&t, "%.3f", us(g[i].own_wait_sum));
    table_cell(&t, "%.3f",
               us(strag_inherited(g[i].wait_sum, g[i].own_wait_sum,
                                  g[i].unattributed_wait_sum)));
    table_cell(&t, "%.3f", us(g[i].unattributed_wait_sum));
    table_cell(&t, "%.3f", us(g[i].wait_max));
    if (gpu_measured)
      gpu_measured_cells(&t, g[i].gpu_instances, g[i].gpu_times_last,
                         g[i].gpu_caused_sum, g[i].gpu_wait_sum);
  }
  table_print(&t, text_out, "  ");
  table_free(&t);
  if (shown < n)
    say("  … %zu more GPUs (--top N shows more)\n", n - shown);
  say("  By (communicator, rank):\n");
  free(g);
}

/* KernelPhase figures of a row, when it has any. */
static void json_gpu_measured(jsonw *w, uint64_t instances, uint64_t last,
                              int64_t caused, int64_t wait_sum) {
  if (instances == 0)
    return;
  jw_key(w, "gpuMeasured");
  jw_obj_begin(w);
  jw_key(w, "instances");
  jw_u64(w, instances);
  jw_key(w, "timesLast");
  jw_u64(w, last);
  jw_key(w, "waitCausedUs");
  jw_double(w, us(caused), 3);
  jw_key(w, "meanInitialSyncUs");
  jw_double(w, mean_us(wait_sum, instances), 3);
  jw_obj_end(w);
}

static void json_gpus(jsonw *w, const summary *s, bool timing) {
  size_t n;
  gpu_row *g = gpu_rows(s, timing, &n);
  jw_key(w, "gpus");
  jw_arr_begin(w);
  for (size_t i = 0; g && i < n; i++) {
    jw_newline(w);
    jw_obj_begin(w);
    json_gpu_members(w, g[i].health, g[i].global_rank, g[i].source,
                     g[i].device);
    jw_key(w, "comms");
    jw_i64(w, g[i].comms);
    jw_key(w, "instances");
    jw_u64(w, g[i].instances);
    jw_key(w, "timesLast");
    jw_u64(w, g[i].times_last);
    jw_key(w, "waitCausedUs");
    jw_double(w, us(strag_caused(g[i].wait_sum, g[i].unattributed_wait_sum)),
              3);
    jw_key(w, "ownWaitUs");
    jw_double(w, us(g[i].own_wait_sum), 3);
    jw_key(w, "inheritedWaitUs");
    jw_double(w,
              us(strag_inherited(g[i].wait_sum, g[i].own_wait_sum,
                                 g[i].unattributed_wait_sum)),
              3);
    jw_key(w, "unattributedWaitUs");
    jw_double(w, us(g[i].unattributed_wait_sum), 3);
    jw_key(w, "maxWaitUs");
    jw_double(w, us(g[i].wait_max), 3);
    json_evidence(w, &g[i].evidence);
    json_gpu_measured(w, g[i].gpu_instances, g[i].gpu_times_last,
                      g[i].gpu_caused_sum, g[i].gpu_wait_sum);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  free(g);
}

static void print_stragglers_text(const summary *s) {
  bool timing = strag_basis_timing(s);
  const straggler_state *st = &s->strag;
  say("\nStragglers (arrival = %s, completion = %s)\n",
      timing ? "API call of timing records" : "start of the Coll event",
      timing ? "timing stop" : "Coll stop (enqueued)");
  say("  %" PRIu64 " collective instances matched across ranks by (comm, "
      "func, seqNumber); %" PRIu64 " incomplete (a rank missing), %" PRIu64
      " seen on one rank only\n",
      st->matched[timing], st->incomplete[timing], st->single[timing]);
  if (timing && st->gaps_out_of_order > 0)
    say("  %" PRIu64 " timing records came further out of arrival order "
        "than summary holds back: their gaps (own/inherited) are from a "
        "neighbour out of order\n",
        st->gaps_out_of_order);
  print_verdict_text(s);
  size_t n;
  rank_row **rows = sorted_ranks(s, timing, &n);
  if (!rows || n == 0) {
    say("  (nothing to compare)\n");
    free(rows);
    return;
  }
  table t;
  print_gpus_text(s, timing);
  bool gpu_measured = have_gpu_measured(s, timing);
  if (gpu_measured)
    table_init(&t, "lrlrrrrrrrrrrrr", "comm", "rank",
               "GPU (global rank host:pid device)", "instances", "last",
               "last %", "wait caused us", "own us", "wait when last us",
               "max wait us", "arrival-median us", "completion-median us",
               "GPU last", "GPU wait caused us", "mean initial_sync us");
  else
    table_init(&t, "lrlrrrrrrrrr", "comm", "rank",
               "GPU (global rank host:pid device)", "instances", "last",
               "last %", "wait caused us", "own us", "wait when last us",
               "max wait us", "arrival-median us", "completion-median us");
  t.keys = 2; /* (comm, rank) */
  size_t shown = n < (size_t)s->top ? n : (size_t)s->top;
  for (size_t i = 0; i < shown; i++) {
    const rank_row *r = rows[i];
    char cb[32];
    double inst = r->instances ? (double)r->instances : 1.0;
    char gb[160];
    table_cell(&t, "%s", comm_label(s, r->comm_id, cb, sizeof cb));
    table_cell(&t, "%d", r->rank);
    table_cell(&t, "%s", gpu_label(s, r->comm_id, r->rank, gb, sizeof gb));
    table_cell(&t, "%" PRIu64, r->instances);
    table_cell(&t, "%" PRIu64, r->times_last);
    table_cell(&t, "%.1f", 100.0 * (double)r->times_last / inst);
    table_cell(&t, "%.3f",
               us(strag_caused(r->wait_sum, r->unattributed_wait_sum)));
    table_cell(&t, "%.3f", us(r->own_wait_sum));
    table_cell(&t, "%.3f",
               r->times_last ? us(r->wait_sum) / (double)r->times_last : 0.0);
    table_cell(&t, "%.3f", us(r->wait_max));
    table_cell(&t, "%+.3f", us(r->arrival_off_sum) / inst);
    table_cell(&t, "%+.3f", us(r->completion_off_sum) / inst);
    if (gpu_measured)
      gpu_measured_cells(&t, r->gpu_instances, r->gpu_times_last,
                         r->gpu_caused_sum, r->gpu_wait_sum);
  }
  table_print(&t, text_out, "  ");
  table_free(&t);
  if (shown < n)
    say("  … %zu more (comm, rank) rows (--top N shows more)\n", n - shown);
  free(rows);
  int nw = st->nworst[timing] < s->top ? st->nworst[timing] : s->top;
  if (nw == 0)
    return;
  if (s->top > WORST_KEEP) /* no more are kept while reading */
    say("  Worst instances (largest arrival spread; the %d largest are "
        "kept):\n",
        WORST_KEEP);
  else
    say("  Worst instances (largest arrival spread):\n");
  table_init(&t, "llrrrrrr", "comm", "func", "seq", "bytes", "ranks",
             "last rank", "spread us", "wait us");
  t.keys = 3; /* (comm, func, seq) */
  for (int i = 0; i < nw; i++) {
    const worst_instance *w = &st->worst[timing][i];
    char cb[32], bb[32];
    table_cell(&t, "%s", comm_label(s, w->comm_id, cb, sizeof cb));
    table_cell(&t, "%s", intern_str(&s->funcs, w->func));
    table_cell(&t, "%" PRIu64, w->seq);
    table_cell(&t, "%s", human_bytes(w->bytes, bb, sizeof bb));
    table_cell(&t, "%d", w->nranks_seen);
    table_cell(&t, "%d", w->last_rank);
    table_cell(&t, "%.3f", us(w->spread));
    table_cell(&t, "%.3f", us(w->wait));
  }
  table_print(&t, text_out, "    ");
  table_free(&t);
}

/* A validated fit, or "not fitted (reason)" over the three columns. */
static void fit_cells(table *t, const net_fit_result *f) {
  if (f->status == NET_FIT_OK) {
    table_cell(t, "%.3f", f->latency_s * 1e6);
    table_cell(t, "%.3f", f->bandwidth_bps / 1e9);
    table_cell(t, "%.4f", f->r2);
  } else {
    table_cell(t, "not fitted (%s)", net_fit_reason(f->status));
    table_cell(t, "-");
    table_cell(t, "-");
  }
}

#define SLOWEST_MIN_BYTES (UINT64_C(1) << 20)

static const char *link_comm(const summary *s, const link_row *l, char *buf,
                             size_t cap) {
  if (l->comm_id == 0 && l->comm_ambiguous)
    return "(PXN: ambiguous)";
  return comm_label(s, l->comm_id, buf, cap);
}

static void link_cells(const summary *s, table *t, const link_row *l) {
  char cb[32], bb[32];
  table_cell(t, "%s", link_comm(s, l, cb, sizeof cb));
  table_cell(t, "%d→%d%s", l->from, l->to, l->pxn ? " PXN" : "");
  table_cell(t, "%" PRIu64, l->transfers);
  table_cell(t, "%s", human_bytes(l->bytes, bb, sizeof bb));
}

static void print_verdicts_text(const summary *s) {
  const network_state *n = &s->net;
  if (n->nverdicts == 0) {
    say("  Slow pairs: none (no fitted link below half its "
        "communicator's median, no link whose steps take twice as long "
        "as its communicator's others', no rank last in >= 75%% of "
        "collectives)\n");
    return;
  }
  say("  Slow pairs (what the evidence points to):\n");
  for (size_t i = 0; i < n->nverdicts; i++) {
    const net_verdict *v = &n->verdicts[i];
    char cb[32], pb[32];
    const char *comm = comm_label(s, v->comm_id, cb, sizeof cb);
    switch (v->kind) {
    case VERDICT_LINK:
      say("    link %s %d→%d: %.3f GB/s on the send side against a "
          "median of %.3f GB/s; the other links of ranks %d and %d are "
          "normal\n",
          comm, v->from, v->to, v->bandwidth_gbs, v->median_gbs, v->from,
          v->to);
      break;
    case VERDICT_RANK_LINKS:
      say("    rank %s %d: pair %d→%d at %.3f GB/s against a median of "
          "%.3f GB/s, and every link of rank %d is slow\n",
          comm, v->rank, v->from, v->to, v->bandwidth_gbs, v->median_gbs,
          v->rank);
      break;
    case VERDICT_LINK_STEPS:
      say("    link %s %d→%d: its %" PRIu64 "-byte send steps take %.2fx "
          "as long as the other links' of its communicator (median of "
          "each operation's fastest: %.1f against %.1f us), slower in "
          "%" PRIu64 " of %" PRIu64 " operations (p = %s)\n",
          comm, v->from, v->to, v->step_bytes, v->steps.ratio,
          (double)v->steps.median_ns / 1e3, (double)v->steps.reference_ns / 1e3,
          v->steps.ops_slower, v->steps.ops,
          p_text(pb, sizeof pb, v->steps.log10p));
      break;
    case VERDICT_RANK_LATE:
      say("    rank %s %d: arrives last in %.0f%% of its collectives while "
          "its links' send-side transfers are not slow: its peers wait "
          "for the rank, not the network\n",
          comm, v->rank, 100 * v->last_fraction);
      break;
    }
  }
}

static void print_network_text(const summary *s) {
  const network_state *n = &s->net;
  say("\nNetwork (send-side ProxyStep transfers, SendWait → stop; p50 = "
      "median of each transfer's bytes/time; fit: time = latency + bytes "
      "/ bandwidth over the fastest transfer of each size, validated)\n");
  if (n->nlinks == 0) {
    say("  (no ProxyStep events with sizes: enable the proxystep event "
        "mask and use a network transport)\n");
    return;
  }
  say("  %" PRIu64 " send steps used, %" PRIu64
      " without a size or state, %" PRIu64
      " receive steps not fitted (they include waiting for the sender)\n",
      n->steps_used, n->steps_without_size, n->recv_steps);
  table t;
  table_init(&t, "llrrrlrrr", "comm", "pair", "transfers", "bytes", "p50 GB/s",
             "latency us", "GB/s", "R²", "sizes");
  t.keys = 2; /* (comm, pair) */
  for (size_t i = 0; i < n->nlinks; i++) {
    const link_row *l = &n->links[i];
    link_cells(s, &t, l);
    table_cell(&t, "%.3f", (double)lhist_quantile(&l->step_mbps, 0.5) / 1e3);
    fit_cells(&t, &l->fit);
    table_cell(&t, "%u", l->distinct_sizes);
  }
  table_print(&t, text_out, "  ");
  table_free(&t);
  print_verdicts_text(s);
  const link_row **v = malloc(n->nlinks * sizeof *v);
  if (!v)
    return;
  /* Links that moved almost nothing (a 4-byte AllReduce) have no
   * meaningful bandwidth: rank only those with real traffic. */
  size_t nv = 0;
  for (size_t i = 0; i < n->nlinks; i++)
    if (n->links[i].bytes >= SLOWEST_MIN_BYTES)
      v[nv++] = &n->links[i];
  qsort(v, nv, sizeof *v, cmp_slowest);
  size_t k = nv < (size_t)s->top ? nv : (size_t)s->top;
  if (k == 0) {
    free(v);
    return;
  }
  say("  Slowest links (by fitted bandwidth, else bytes/busy time; links "
      "that moved at least 1 MiB):\n");
  table_init(&t, "llrlr", "comm", "pair", "GB/s", "from", "busy us");
  t.keys = 2; /* (comm, pair) */
  for (size_t i = 0; i < k; i++) {
    char cb[32];
    table_cell(&t, "%s", link_comm(s, v[i], cb, sizeof cb));
    table_cell(&t, "%d→%d%s", v[i]->from, v[i]->to, v[i]->pxn ? " PXN" : "");
    table_cell(&t, "%.3f", link_bw(v[i]));
    table_cell(&t, "%s", v[i]->fit.status == NET_FIT_OK ? "fit" : "bytes/busy");
    table_cell(&t, "%.3f", us(v[i]->busy_ns));
  }
  table_print(&t, text_out, "    ");
  table_free(&t);
  free(v);
}

static void print_channels_text(const summary *s) {
  if (s->net.nchannels == 0)
    return;
  channel_summary *cs = malloc(s->net.nchannels * sizeof *cs);
  if (!cs)
    return;
  size_t n = summarize_channels(s, cs);
  say("\nChannels (send steps per channel; imbalance = busiest channel / "
      "mean busy time)\n");
  table t;
  table_init(&t, "lrrrrrrr", "comm", "rank", "channels", "bytes min",
             "bytes max", "busy min us", "busy max us", "imbalance");
  t.keys = 2; /* (comm, rank) */
  for (size_t i = 0; i < n; i++) {
    char cb[32], b1[32], b2[32];
    table_cell(&t, "%s", comm_label(s, cs[i].comm_id, cb, sizeof cb));
    table_cell(&t, "%d", cs[i].rank);
    table_cell(&t, "%d", cs[i].channels);
    table_cell(&t, "%s", human_bytes(cs[i].bytes_min, b1, sizeof b1));
    table_cell(&t, "%s", human_bytes(cs[i].bytes_max, b2, sizeof b2));
    table_cell(&t, "%.3f", us(cs[i].busy_min));
    table_cell(&t, "%.3f", us(cs[i].busy_max));
    table_cell(&t, "%.3f", imbalance(&cs[i]));
  }
  table_print(&t, text_out, "  ");
  table_free(&t);
  free(cs);
}

static bool health_notable(const file_health *h) {
  return !h->has_end || h->dropped_starts || h->dropped_states ||
         h->dropped_stops || h->reclaimed || h->inflight || h->lines_lost;
}

static void print_health_text(const summary *s) {
  uint64_t tot[7] = {0};
  size_t notable = 0, killed = 0;
  for (size_t i = 0; i < s->files; i++) {
    const file_health *h = &s->health[i];
    tot[0] += h->dropped_starts;
    tot[1] += h->dropped_states;
    tot[2] += h->dropped_stops;
    tot[3] += h->reclaimed;
    tot[4] += h->inflight;
    tot[5] += h->lines_lost;
    tot[6] += h->started;
    notable += health_notable(h);
    killed += !h->has_end;
  }
  say("\nDrops and reclaims: %" PRIu64 " events started; dropped %" PRIu64
      " starts, %" PRIu64 " states, %" PRIu64 " stops; %" PRIu64
      " reclaimed; %" PRIu64 " in flight at exit; %" PRIu64
      " lines lost; %zu file%s without processEnd\n",
      tot[6], tot[0], tot[1], tot[2], tot[3], tot[4], tot[5], killed,
      killed == 1 ? "" : "s");
  if (!notable)
    return;
  table t;
  table_init(&t, "llrrrrrrr", "file", "end", "dropped starts", "dropped states",
             "dropped stops", "reclaimed", "abandon/parent/noprog/final",
             "inflight", "lines lost");
  t.keys = 1; /* the file */
  for (size_t i = 0; i < s->files; i++) {
    const file_health *h = &s->health[i];
    if (!health_notable(h))
      continue;
    const char *base = strrchr(h->path, '/');
    table_cell(&t, "%s", base ? base + 1 : h->path);
    table_cell(&t, "%s",
               h->has_end       ? "processEnd"
               : h->acct.closed ? "closed, end lost"
                                : "killed?");
    table_cell(&t, "%" PRIu64, h->dropped_starts);
    table_cell(&t, "%" PRIu64, h->dropped_states);
    table_cell(&t, "%" PRIu64, h->dropped_stops);
    table_cell(&t, "%" PRIu64, h->reclaimed);
    table_cell(&t, "%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64,
               h->reclaimed_by[0], h->reclaimed_by[1], h->reclaimed_by[2],
               h->reclaimed_by[3]);
    table_cell(&t, "%" PRIu64, h->inflight);
    table_cell(&t, "%" PRIu64, h->lines_lost);
  }
  table_print(&t, text_out, "  ");
  table_free(&t);
}

static void print_text(summary *s) {
  say("cclscope summary: %" PRIu64 " file%s, %" PRIu64 " records, %.1f MB, "
      "%.3f ms of trace\n",
      s->files, s->files == 1 ? "" : "s", s->records, (double)s->bytes / 1e6,
      s->last_ts > s->first_ts ? (double)(s->last_ts - s->first_ts) / 1e6
                               : 0.0);
  if (s->invalid_lines)
    say("  %" PRIu64 " invalid lines skipped (run `cclscope check`)\n",
        s->invalid_lines);
  say("\nCommunicators\n");
  table t;
  table_init(&t, "llr", "commId", "name", "ranks");
  for (size_t i = 0; i < s->ncomms; i++) {
    if (s->comms[i].comm_id == 0)
      continue;
    table_cell(&t, "0x%" PRIx64, s->comms[i].comm_id);
    table_cell(&t, "%s", s->comms[i].name[0] ? s->comms[i].name : "-");
    table_cell(&t, "%d", s->comms[i].nranks);
  }
  table_print(&t, text_out, "  ");
  table_free(&t);
  print_colls_text(s);
  print_stragglers_text(s);
  print_network_text(s);
  print_channels_text(s);
  print_health_text(s);
}

/* The text, made in a buffer, then written out with every line that is
 * wider than s->width wrapped (tables are already in blocks that fit,
 * table.h); straight to stdout when there is no width (--wide) or no
 * memory for the buffer. */
void summary_print_text(summary *s) {
  prepare(s);
  table_set_width(s->width);
  char *buf = NULL;
  size_t len = 0;
  text_out = s->width > 0 ? open_memstream(&buf, &len) : NULL;
  if (!text_out) {
    text_out = stdout;
    print_text(s);
    return;
  }
  print_text(s);
  fclose(text_out);
  text_out = stdout;
  text_write_fitted(stdout, s->width, buf, len);
  free(buf);
}

/* ---- JSON ---- */

static void json_comm(jsonw *w, const summary *s, uint64_t comm) {
  jw_key(w, "commId");
  if (comm)
    jw_hex(w, comm);
  else
    jw_null(w);
  jw_key(w, "commName");
  jw_str(w, comm_name(s, comm));
}

/* {"status":"ok",latencyUs,bandwidthGBs,r2,points} or
 * {"status":"<name>","reason":"...","points":n}: a rejected fit has no
 * latency or bandwidth at all. */
static void json_fit(jsonw *w, const char *key, const net_fit_result *f) {
  jw_key(w, key);
  jw_obj_begin(w);
  jw_key(w, "status");
  jw_str(w, net_fit_status_name(f->status));
  if (f->status == NET_FIT_OK) {
    jw_key(w, "latencyUs");
    jw_double(w, f->latency_s * 1e6, 3);
    jw_key(w, "bandwidthGBs");
    jw_double(w, f->bandwidth_bps / 1e9, 4);
    jw_key(w, "r2");
    jw_double(w, f->r2, 5);
  } else {
    jw_key(w, "reason");
    jw_str(w, net_fit_reason(f->status));
  }
  jw_key(w, "points");
  jw_u64(w, f->points);
  jw_obj_end(w);
}

static void json_colls(jsonw *w, const summary *s) {
  bool timing = colls_use_timing(s);
  jw_key(w, "collectives");
  jw_obj_begin(w);
  jw_key(w, "basis");
  jw_str(w, timing ? "timing" : "enqueue");
  jw_key(w, "timingRecords");
  jw_u64(w, s->timing_records);
  jw_key(w, "collEvents");
  jw_u64(w, s->coll_events);
  jw_key(w, "gpuActivities");
  jw_u64(w, s->gpu_activities);
  jw_key(w, "noBandwidthFrom"); /* sources of host-only spans */
  jw_arr_begin(w);
  for (int k = 0; k < SRC_COUNT; k++)
    if (!dur_source_measures_transfer((dur_source)k))
      jw_str(w, dur_source_name((dur_source)k));
  jw_arr_end(w);
  jw_key(w, "rows");
  jw_arr_begin(w);
  for (size_t i = 0; i < s->ncolls; i++) {
    const coll_row *r = &s->colls[i];
    if (!coll_shown(s, r))
      continue;
    const char *func = intern_str(&s->funcs, r->func);
    int64_t p50 = lhist_quantile(&r->dur, 0.5);
    double alg = gbps(r->bytes, p50);
    jw_newline(w);
    jw_obj_begin(w);
    json_comm(w, s, r->comm_id);
    jw_key(w, "func");
    jw_str(w, func);
    jw_key(w, "bytes");
    jw_u64(w, r->bytes);
    jw_key(w, "source");
    jw_str(w, dur_source_name(r->source));
    jw_key(w, "nranks");
    jw_i64(w, r->nranks);
    jw_key(w, "count");
    jw_u64(w, r->dur.count);
    jw_key(w, "p50Us");
    jw_double(w, us(p50), 3);
    jw_key(w, "p90Us");
    jw_double(w, us(lhist_quantile(&r->dur, 0.9)), 3);
    jw_key(w, "p99Us");
    jw_double(w, us(lhist_quantile(&r->dur, 0.99)), 3);
    jw_key(w, "meanUs");
    jw_double(w, lhist_mean(&r->dur) / 1e3, 3);
    jw_key(w, "minUs");
    jw_double(w, us(r->dur.min), 3);
    jw_key(w, "maxUs");
    jw_double(w, us(r->dur.max), 3);
    bool bandwidth = dur_source_measures_transfer(r->source);
    jw_key(w, "algBwGBs");
    if (bandwidth)
      jw_double(w, alg, 4);
    else
      jw_null(w);
    jw_key(w, "busBwGBs");
    if (bandwidth)
      jw_double(w, alg * nccl_bus_factor(func, r->nranks), 4);
    else
      jw_null(w);
    jw_key(w, "algo");
    jw_str(w, r->algo ? intern_str(&s->strings, r->algo) : NULL);
    jw_key(w, "proto");
    jw_str(w, r->proto ? intern_str(&s->strings, r->proto) : NULL);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
}

static void json_stragglers(jsonw *w, const summary *s) {
  bool timing = strag_basis_timing(s);
  const straggler_state *st = &s->strag;
  jw_key(w, "stragglers");
  jw_obj_begin(w);
  jw_key(w, "basis");
  jw_str(w, timing ? "timing" : "enqueue");
  jw_key(w, "instances");
  jw_u64(w, st->matched[timing]);
  jw_key(w, "incomplete");
  jw_u64(w, st->incomplete[timing]);
  jw_key(w, "singleRank");
  jw_u64(w, st->single[timing]);
  jw_key(w, "duplicates");
  jw_u64(w, st->duplicates);
  jw_key(w, "gapsOutOfOrder");
  jw_u64(w, st->gaps_out_of_order);
  jw_key(w, "waitingHighWater");
  jw_u64(w, st->waiting_high_water);
  json_verdict(w, s);
  json_gpus(w, s, timing);
  jw_key(w, "ranks");
  jw_arr_begin(w);
  size_t n;
  rank_row **rows = sorted_ranks(s, timing, &n);
  for (size_t i = 0; rows && i < n; i++) {
    const rank_row *r = rows[i];
    double inst = r->instances ? (double)r->instances : 1.0;
    jw_newline(w);
    jw_obj_begin(w);
    json_comm(w, s, r->comm_id);
    jw_key(w, "rank");
    jw_i64(w, r->rank);
    json_gpu(w, s, r->comm_id, r->rank);
    jw_key(w, "instances");
    jw_u64(w, r->instances);
    jw_key(w, "timesLast");
    jw_u64(w, r->times_last);
    jw_key(w, "lastFraction");
    jw_double(w, (double)r->times_last / inst, 4);
    jw_key(w, "meanWaitUs");
    jw_double(w, r->times_last ? us(r->wait_sum) / (double)r->times_last : 0,
              3);
    jw_key(w, "maxWaitUs");
    jw_double(w, us(r->wait_max), 3);
    jw_key(w, "meanArrivalOffsetUs");
    jw_double(w, us(r->arrival_off_sum) / inst, 3);
    jw_key(w, "meanCompletionOffsetUs");
    jw_double(w, us(r->completion_off_sum) / inst, 3);
    jw_key(w, "waitCausedUs");
    jw_double(w, us(strag_caused(r->wait_sum, r->unattributed_wait_sum)), 3);
    jw_key(w, "ownWaitUs");
    jw_double(w, us(r->own_wait_sum), 3);
    jw_key(w, "inheritedWaitUs");
    jw_double(w,
              us(strag_inherited(r->wait_sum, r->own_wait_sum,
                                 r->unattributed_wait_sum)),
              3);
    jw_key(w, "unattributedWaitUs");
    jw_double(w, us(r->unattributed_wait_sum), 3);
    json_gpu_measured(w, r->gpu_instances, r->gpu_times_last, r->gpu_caused_sum,
                      r->gpu_wait_sum);
    jw_obj_end(w);
  }
  free(rows);
  jw_arr_end(w);
  jw_key(w, "worst");
  jw_arr_begin(w);
  for (int i = 0; i < st->nworst[timing] && i < s->top; i++) {
    const worst_instance *x = &st->worst[timing][i];
    jw_obj_begin(w);
    json_comm(w, s, x->comm_id);
    jw_key(w, "func");
    jw_str(w, intern_str(&s->funcs, x->func));
    jw_key(w, "seqNumber");
    jw_u64(w, x->seq);
    jw_key(w, "bytes");
    jw_u64(w, x->bytes);
    jw_key(w, "ranks");
    jw_i64(w, x->nranks_seen);
    jw_key(w, "lastRank");
    jw_i64(w, x->last_rank);
    jw_key(w, "spreadUs");
    jw_double(w, us(x->spread), 3);
    jw_key(w, "waitUs");
    jw_double(w, us(x->wait), 3);
    jw_obj_end(w);
  }
  jw_arr_end(w);
  jw_obj_end(w);
}

static void json_link(jsonw *w, const summary *s, const link_row *l) {
  jw_obj_begin(w);
  json_comm(w, s, l->comm_id);
  jw_key(w, "from");
  jw_i64(w, l->from);
  jw_key(w, "to");
  jw_i64(w, l->to);
  jw_key(w, "side");
  jw_str(w, "send");
  jw_key(w, "pxn");
  jw_bool(w, l->pxn);
  if (l->pxn && l->comm_id == 0) {
    jw_key(w, "pxnComm");
    jw_str(w, l->comm_ambiguous ? "ambiguous" : "not found");
  }
  jw_key(w, "transfers");
  jw_u64(w, l->transfers);
  jw_key(w, "bytes");
  jw_u64(w, l->bytes);
  jw_key(w, "busyUs");
  jw_double(w, us(l->busy_ns), 3);
  jw_key(w, "distinctSizes");
  jw_u64(w, l->distinct_sizes);
  jw_key(w, "p50StepGBs");
  jw_double(w, (double)lhist_quantile(&l->step_mbps, 0.5) / 1e3, 4);
  json_fit(w, "fit", &l->fit);
  jw_key(w, "slow");
  jw_bool(w, l->slow);
  jw_obj_end(w);
}

static void json_verdicts(jsonw *w, const summary *s) {
  static const char *const kinds[] = {"link", "rank", "rank", "link"};
  static const char *const evidence[] = {"slow-send-link", "all-links-slow",
                                         "arrives-late", "slow-steps"};
  jw_key(w, "verdicts");
  jw_arr_begin(w);
  for (size_t i = 0; i < s->net.nverdicts; i++) {
    const net_verdict *v = &s->net.verdicts[i];
    jw_newline(w);
    jw_obj_begin(w);
    jw_key(w, "verdict");
    jw_str(w, kinds[v->kind]);
    jw_key(w, "evidence");
    jw_str(w, evidence[v->kind]);
    json_comm(w, s, v->comm_id);
    jw_key(w, "from");
    jw_i64(w, v->from);
    jw_key(w, "to");
    if (v->to >= 0)
      jw_i64(w, v->to);
    else
      jw_null(w);
    jw_key(w, "rank");
    if (v->rank >= 0)
      jw_i64(w, v->rank);
    else
      jw_null(w);
    if (v->kind == VERDICT_RANK_LATE) {
      jw_key(w, "lastFraction");
      jw_double(w, v->last_fraction, 4);
    } else {
      jw_key(w, "bandwidthGBs");
      jw_double(w, v->bandwidth_gbs, 4);
      jw_key(w, "medianGBs");
      jw_double(w, v->median_gbs, 4);
    }
    if (v->kind == VERDICT_LINK_STEPS)
      json_step_test(w, v->step_bytes, &v->steps);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

static void json_network(jsonw *w, const summary *s) {
  const network_state *n = &s->net;
  jw_key(w, "network");
  jw_obj_begin(w);
  jw_key(w, "stepsUsed");
  jw_u64(w, n->steps_used);
  jw_key(w, "stepsWithoutSize");
  jw_u64(w, n->steps_without_size);
  jw_key(w, "recvStepsNotFitted");
  jw_u64(w, n->recv_steps);
  json_verdicts(w, s);
  jw_key(w, "links");
  jw_arr_begin(w);
  for (size_t i = 0; i < n->nlinks; i++) {
    jw_newline(w);
    json_link(w, s, &n->links[i]);
  }
  jw_arr_end(w);
  jw_key(w, "slowest");
  jw_arr_begin(w);
  const link_row **v = malloc((n->nlinks + 1) * sizeof *v);
  if (v) {
    for (size_t i = 0; i < n->nlinks; i++)
      v[i] = &n->links[i];
    qsort(v, n->nlinks, sizeof *v, cmp_slowest);
    for (size_t i = 0; i < n->nlinks && i < (size_t)s->top; i++)
      json_link(w, s, v[i]);
    free(v);
  }
  jw_arr_end(w);
  jw_key(w, "channels");
  jw_arr_begin(w);
  channel_summary *cs = malloc((s->net.nchannels + 1) * sizeof *cs);
  size_t nc = cs ? summarize_channels(s, cs) : 0;
  for (size_t i = 0; i < nc; i++) {
    jw_newline(w);
    jw_obj_begin(w);
    json_comm(w, s, cs[i].comm_id);
    jw_key(w, "rank");
    jw_i64(w, cs[i].rank);
    jw_key(w, "channels");
    jw_i64(w, cs[i].channels);
    jw_key(w, "bytesMin");
    jw_u64(w, cs[i].bytes_min);
    jw_key(w, "bytesMax");
    jw_u64(w, cs[i].bytes_max);
    jw_key(w, "busyMinUs");
    jw_double(w, us(cs[i].busy_min), 3);
    jw_key(w, "busyMaxUs");
    jw_double(w, us(cs[i].busy_max), 3);
    jw_key(w, "imbalance");
    jw_double(w, imbalance(&cs[i]), 4);
    jw_obj_end(w);
  }
  free(cs);
  jw_arr_end(w);
  jw_obj_end(w);
}

static void json_health(jsonw *w, const summary *s) {
  jw_key(w, "health");
  jw_arr_begin(w);
  for (size_t i = 0; i < s->files; i++) {
    const file_health *h = &s->health[i];
    jw_newline(w);
    jw_obj_begin(w);
    jw_key(w, "file");
    jw_str(w, h->path);
    jw_key(w, "host");
    jw_str(w, h->host);
    jw_key(w, "pid");
    jw_i64(w, h->pid);
    jw_key(w, "processEnd");
    jw_bool(w, h->has_end);
    jw_key(w, "eventsStarted");
    jw_u64(w, h->started);
    jw_key(w, "droppedStarts");
    jw_u64(w, h->dropped_starts);
    jw_key(w, "droppedStates");
    jw_u64(w, h->dropped_states);
    jw_key(w, "droppedStops");
    jw_u64(w, h->dropped_stops);
    jw_key(w, "reclaimed");
    jw_u64(w, h->reclaimed);
    jw_key(w, "reclaimedByReason");
    jw_obj_begin(w);
    static const char *const reasons[4] = {"abandoned", "parent-stopped",
                                           "no-progress", "finalize"};
    for (int k = 0; k < 4; k++) {
      jw_key(w, reasons[k]);
      jw_u64(w, h->reclaimed_by[k]);
    }
    jw_obj_end(w);
    jw_key(w, "inflight");
    jw_u64(w, h->inflight);
    jw_key(w, "linesLost");
    jw_u64(w, h->lines_lost);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

void summary_print_json(summary *s) {
  summary_print_json_to(s, stdout);
}

void summary_print_json_to(summary *s, FILE *out) {
  prepare(s);
  jsonw w;
  jw_init(&w, out);
  jw_obj_begin(&w);
  jw_key(&w, "inputs");
  jw_obj_begin(&w);
  jw_key(&w, "files");
  jw_u64(&w, s->files);
  jw_key(&w, "records");
  jw_u64(&w, s->records);
  jw_key(&w, "bytes");
  jw_u64(&w, s->bytes);
  jw_key(&w, "invalidLines");
  jw_u64(&w, s->invalid_lines);
  jw_key(&w, "firstTs");
  jw_ns_as_us(&w, s->first_ts);
  jw_key(&w, "lastTs");
  jw_ns_as_us(&w, s->last_ts);
  jw_obj_end(&w);
  jw_key(&w, "comms");
  jw_arr_begin(&w);
  for (size_t i = 0; i < s->ncomms; i++) {
    if (s->comms[i].comm_id == 0)
      continue;
    jw_obj_begin(&w);
    json_comm(&w, s, s->comms[i].comm_id);
    jw_key(&w, "nranks");
    jw_i64(&w, s->comms[i].nranks);
    jw_obj_end(&w);
  }
  jw_arr_end(&w);
  json_colls(&w, s);
  json_stragglers(&w, s);
  json_network(&w, s);
  json_health(&w, s);
  jw_obj_end(&w);
  jw_newline(&w);
  jw_flush(&w);
}
