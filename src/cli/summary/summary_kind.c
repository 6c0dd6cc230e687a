/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_kind.c — what kind of straggler the verdict
 * (summary_verdict.c) names: a late host, a slow GPU or a slow link, with
 * the evidence; docs/cli.md (Stragglers, the verdict: what kind) is the
 * rule and says why.
 *
 *   - late host: the GPU arrives late (the arrival tests of
 *     summary_verdict.c name it); once there, its kernel does not hold its
 *     peers up (it does not finish last, below);
 *   - slow GPU: it arrives on time, but the others wait for it at the end
 *     of the kernel. NCCL 2.31's KernelPhase tells this as it tells a late
 *     arrival: the GPU its peers wait for at the start has the shortest
 *     initial_sync, the one they wait for at the end (its data comes last)
 *     the shortest final_sync. A slow GPU finishes last — its final_sync
 *     shortest, more than FINAL_TOLERANCE_NS below the instance's median
 *     — more often than chance (1/ranks with a final_sync; a binomial tail
 *     as for the arrival tests, times the GPUs compared). Its compute
 *     against the median is evidence, not a test: the ranks that move a
 *     collective's network steps have long compute phases whatever their
 *     GPU. Without KernelPhase a slow GPU is not told: every member of a
 *     collective ends when the slowest does, so the KernelCh spans are
 *     long on every GPU alike;
 *   - slow link: the network fits (summary_network.c) found a link below
 *     half its communicator's median bandwidth, or, where a communicator
 *     moves one message size and has no fit, the per-step test
 *     (summary_link_steps.c) found a link whose steps take at least twice
 *     as long as the others', consistently. A GPU the arrival tests name
 *     at either end of a slow link is late because of it (a link at its
 *     ends is the one named).
 *
 * Evidence: each scored instance (summary_stragglers.c) hands its ranks'
 * compute and final_sync lengths here (strag_kind_score); they are summed
 * per rank, then per GPU (summary_gpus.c).
 */
#include <math.h>
#include <stdlib.h>

#include "summary/summary.h"

/* A final_sync counts as the shortest only this far below the median: more
 * than the small tail every kernel ends with (a few us) and the GPU
 * clock's step, so that GPUs alike, or a few us apart, finish together. */
#define FINAL_TOLERANCE_NS 10000
#define SLOW_GPU_LOG10_P (-3.0)        /* finished last more often: p <= 1e-3 */
#define SLOW_GPU_MEDIUM_LOG10_P (-6.0) /* medium: p <= 1e-6 */
#define SLOW_GPU_HIGH_LOG10_P (-9.0)   /* high: p <= 1e-9 */
#define SLOW_LINK_HIGH_FRACTION 0.3    /* high: below 0.3 x the median */
#define SLOW_LINK_STEPS_HIGH_LOG10_P (-9.0) /* step test: and p <= 1e-9 */

const char *strag_kind_name(strag_kind k) {
  switch (k) {
  case STRAG_KIND_LATE_HOST:
    return "late host";
  case STRAG_KIND_SLOW_GPU:
    return "slow GPU";
  case STRAG_KIND_SLOW_LINK:
    return "slow link";
  case STRAG_KIND_NONE:
    break;
  }
  return "none";
}

void strag_kind_add(compute_evidence *sum, const compute_evidence *e) {
  sum->tested += e->tested;
  sum->finished_last += e->finished_last;
  sum->chance_last += e->chance_last;
  sum->compute_sum += e->compute_sum;
  sum->median_compute_sum += e->median_compute_sum;
  sum->final_sum += e->final_sum;
  sum->median_final_sum += e->median_final_sum;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int64_t median_of(int64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_i64);
  return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* The median of the known values of one phase length of the instance's
 * ranks, into `med`; how many were known. */
static int phase_median(const instance *in, bool final, int64_t *scratch,
                        int64_t *med) {
  int k = 0;
  for (int i = 0; i < in->nseen; i++) {
    int64_t v = final ? in->ranks[i].gpu_final : in->ranks[i].gpu_compute;
    if (v != STRAG_UNKNOWN)
      scratch[k++] = v;
  }
  *med = k > 0 ? median_of(scratch, k) : 0;
  return k;
}

void strag_kind_score(straggler_state *st, const instance *in) {
  int n = in->nseen;
  int64_t *scratch = malloc((size_t)(n > 0 ? n : 1) * sizeof *scratch);
  if (!scratch)
    return;
  int64_t med_final, med_compute;
  int k = phase_median(in, true, scratch, &med_final);
  phase_median(in, false, scratch, &med_compute);
  free(scratch);
  if (k < 2)
    return;
  /* who finished last: the shortest final_sync, alone, far enough below
   * the median */
  int last = -1;
  bool tie = false;
  for (int i = 0; i < n; i++) {
    int64_t f = in->ranks[i].gpu_final;
    if (f == STRAG_UNKNOWN)
      continue;
    if (last < 0 || f < in->ranks[last].gpu_final) {
      last = i;
      tie = false;
    } else if (f == in->ranks[last].gpu_final) {
      tie = true;
    }
  }
  if (tie || med_final - in->ranks[last].gpu_final <= FINAL_TOLERANCE_NS)
    last = -1;
  for (int i = 0; i < n; i++) {
    const inst_rank *x = &in->ranks[i];
    if (x->gpu_final == STRAG_UNKNOWN)
      continue;
    rank_row *row = strag_rank_row(st, in->comm_id, x->rank, in->timing);
    if (!row)
      continue;
    compute_evidence *e = &row->compute;
    e->tested++;
    e->finished_last += i == last;
    e->chance_last += 1.0 / k;
    e->compute_sum += x->gpu_compute != STRAG_UNKNOWN ? x->gpu_compute : 0;
    e->median_compute_sum += med_compute;
    e->final_sum += x->gpu_final;
    e->median_final_sum += med_final;
  }
}

compute_tests strag_compute_tests(const compute_evidence *e, size_t ngpus) {
  compute_tests t = {0};
  t.compute_ratio = 1.0;
  if (e->tested == 0)
    return t;
  t.tested = true;
  double p = e->chance_last / (double)e->tested;
  double l10 = strag_log10_binomial_tail(e->tested, e->finished_last, p) +
               log10((double)(ngpus > 0 ? ngpus : 1));
  t.last = l10 > 0.0 ? 0.0 : l10;
  if (e->median_compute_sum > 0)
    t.compute_ratio = (double)e->compute_sum / (double)e->median_compute_sum;
  t.final_us = (double)e->final_sum / (double)e->tested / 1e3;
  t.peer_final_us = (double)e->median_final_sum / (double)e->tested / 1e3;
  return t;
}

static bool is_slow_gpu(const compute_tests *t) {
  return t->tested && t->last <= SLOW_GPU_LOG10_P;
}

static strag_confidence slow_gpu_confidence(const compute_tests *t) {
  if (t->last <= SLOW_GPU_HIGH_LOG10_P)
    return STRAG_CONF_HIGH;
  if (t->last <= SLOW_GPU_MEDIUM_LOG10_P)
    return STRAG_CONF_MEDIUM;
  return STRAG_CONF_LOW;
}

static bool link_touches(const kind_link *l, int64_t gpu) {
  return gpu >= 0 && (l->from_global == gpu || l->to_global == gpu);
}

/* High below 0.3 x the median (found by the step test: and p <= 1e-9),
 * else medium. */
static strag_confidence link_confidence(const kind_link *l) {
  bool far = l->bandwidth_gbs < SLOW_LINK_HIGH_FRACTION * l->median_gbs;
  bool firm = !l->by_steps || l->steps.log10p <= SLOW_LINK_STEPS_HIGH_LOG10_P;
  return far && firm ? STRAG_CONF_HIGH : STRAG_CONF_MEDIUM;
}

/* The rule (docs/cli.md, Stragglers: what kind), most specific evidence
 * first: a GPU its peers wait for at the end of the kernel is a slow GPU
 * (unless it sits at an end of the slow link, which explains it, or the
 * arrival tests name another GPU firmly while this one passes weakly); a
 * link the fits find slow explains a late GPU at its ends, and a late GPU
 * named without high confidence; a late GPU otherwise is a late host. */
void strag_kind_decide(const kind_input *in, kind_decision *out) {
  *out = (kind_decision){STRAG_KIND_NONE, false, STRAG_CONF_LOW, NULL};
  bool slow = in->have_candidate && is_slow_gpu(&in->candidate);
  bool slow_firm = slow && in->candidate.last <= SLOW_GPU_MEDIUM_LOG10_P;
  bool late_firm = in->late_named && in->late_confidence != STRAG_CONF_LOW;
  bool slow_on_link =
      slow && in->have_link && link_touches(&in->link, in->candidate_gpu);
  if (slow && !slow_on_link &&
      (slow_firm || !late_firm || in->candidate_gpu == in->late_gpu)) {
    out->kind = STRAG_KIND_SLOW_GPU;
    out->named_candidate = true;
    out->confidence = slow_gpu_confidence(&in->candidate);
    out->reason = "it arrives on time, but its kernel finishes last more "
                  "often than chance: its peers wait for its data in "
                  "final_sync";
    return;
  }
  if (in->have_link &&
      (!in->late_named || in->late_confidence != STRAG_CONF_HIGH ||
       link_touches(&in->link, in->late_gpu))) {
    out->kind = STRAG_KIND_SLOW_LINK;
    out->confidence = link_confidence(&in->link);
    out->reason = in->late_named && link_touches(&in->link, in->late_gpu)
                      ? "the late GPU is at an end of a link found slow: "
                        "the link made it late"
                  : in->link.by_steps
                      ? "a link's steps take at least twice as long as "
                        "the other links' of its communicator at the same "
                        "size, in more of its operations than chance"
                      : "the network fits find a link below half its "
                        "communicator's median bandwidth";
    return;
  }
  if (in->late_named) {
    out->kind = STRAG_KIND_LATE_HOST;
    if (!in->late.tested)
      out->reason = "it arrives late; without KernelPhase (NCCL 2.31) its "
                    "kernel's own time is not measured";
    else
      out->reason = "it arrives late, and once there its kernel does not "
                    "make its peers wait";
  }
}

/* A link verdict's ends as GPUs (global ranks, -1 unknown). */
static void link_ends(const summary *s, kind_link *l) {
  const char *source;
  int device;
  const file_health *h = gpu_of(s, l->comm_id, l->from, &device);
  l->from_global =
      h ? gpu_global_rank(s, h, l->comm_id, l->from, device, &source) : -1;
  h = gpu_of(s, l->comm_id, l->to, &device);
  l->to_global =
      h ? gpu_global_rank(s, h, l->comm_id, l->to, device, &source) : -1;
}

/* Is link `a` the better explanation than `b`: one at an end of the late
 * GPU (`late_gpu`, -1 none) first, then a fitted one before one the step
 * test found, then the slower against its median. */
bool strag_link_explains_more(const kind_link *a, const kind_link *b,
                              int64_t late_gpu) {
  bool ta = link_touches(a, late_gpu), tb = link_touches(b, late_gpu);
  if (ta != tb)
    return ta;
  if (a->by_steps != b->by_steps)
    return !a->by_steps;
  return a->bandwidth_gbs / a->median_gbs < b->bandwidth_gbs / b->median_gbs;
}

/* The slow link of the network verdicts (fits or step test) that explains
 * the most (strag_link_explains_more), its ends as GPUs; false when none was
 * found. */
static bool slowest_link(const summary *s, int64_t late_gpu, kind_link *out) {
  bool have = false;
  for (size_t i = 0; i < s->net.nverdicts; i++) {
    const net_verdict *nv = &s->net.verdicts[i];
    if (nv->kind == VERDICT_RANK_LATE || nv->median_gbs <= 0.0)
      continue;
    kind_link l = {0};
    l.comm_id = nv->comm_id;
    l.from = nv->from;
    l.to = nv->to;
    l.bandwidth_gbs = nv->bandwidth_gbs;
    l.median_gbs = nv->median_gbs;
    l.by_steps = nv->kind == VERDICT_LINK_STEPS;
    l.step_bytes = nv->step_bytes;
    l.steps = nv->steps;
    link_ends(s, &l);
    if (!have || strag_link_explains_more(&l, out, late_gpu))
      *out = l;
    have = true;
  }
  return have;
}

size_t strag_kind_of(const summary *s, const gpu_row *rows, size_t n,
                     strag_verdict *v) {
  kind_input in = {0};
  size_t ngpus = 0;
  for (size_t i = 0; i < n; i++)
    ngpus += rows[i].compute.tested > 0;
  in.late_named = v->stands_out;
  in.late_gpu = v->gpu.global_rank;
  in.late_confidence = v->confidence;
  in.late = strag_compute_tests(&v->gpu.compute, ngpus);
  /* the candidate: finished last most often beyond chance */
  size_t cand = n;
  double best = -HUGE_VAL;
  for (size_t i = 0; i < n; i++) {
    const compute_evidence *e = &rows[i].compute;
    if (e->tested == 0)
      continue;
    double excess = (double)e->finished_last - e->chance_last;
    if (excess > best) {
      best = excess;
      cand = i;
    }
  }
  if (cand < n && ngpus >= 2) {
    in.have_candidate = true;
    in.candidate_gpu = rows[cand].global_rank;
    in.candidate = strag_compute_tests(&rows[cand].compute, ngpus);
  }
  in.have_link = slowest_link(s, in.late_named ? in.late_gpu : -1, &in.link);
  kind_decision d;
  strag_kind_decide(&in, &d);
  v->kind = d.kind;
  v->kind_reason = d.reason;
  v->have_link = in.have_link;
  v->link = in.link;
  v->compute = d.named_candidate ? in.candidate : in.late;
  if (d.kind == STRAG_KIND_SLOW_LINK) { /* the link, not a GPU, is named */
    v->stands_out = false;
    v->confidence = d.confidence;
  }
  if (d.named_candidate) {
    v->confidence = d.confidence;
    return cand;
  }
  return n;
}
