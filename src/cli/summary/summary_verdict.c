/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_verdict.c — the straggler verdict: which GPU,
 * taken in blame order (most wait caused first, gpu_rows), stands out from
 * noise, or that none does.
 * `summary` prints it, `view` marks the GPU it names; docs/cli.md
 * (Stragglers, the verdict) is the definition and says why.
 *
 * Null hypothesis: lateness falls on any rank alike — in an instance of n
 * ranks each is last with chance 1/n, after the median arrival with chance
 * (ranks after the median)/n, and has a gap longer than the median gap
 * with chance (ranks with a longer gap)/(ranks with a gap). Over its
 * tested instances (strag_evidence) a GPU is then last about chance_last
 * times, and so on. Three one-sided tests on a GPU:
 *   - last: times last against chance_last (a straggler is the one the
 *     others wait for);
 *   - after the median: how often it arrived after the median arrival
 *     against chance_after (a straggler is late typically; a GPU that was
 *     last in a few long stalls and early otherwise is not);
 *   - gap (timing basis): how often its gap — arrival minus its previous
 *     completion or call (summary_gaps.c) — exceeded the median gap by
 *     more than the clocks' error, against chance_gap (the lateness starts
 *     with it; a GPU late only because its previous operations end late,
 *     waiting on others, is not the cause).
 * Each count is a sum of Bernoulli trials of unequal chances; the tail of
 * such a sum is at most the binomial tail of the same mean (Hoeffding
 * 1956) for counts above it, so the binomial p-value is conservative. The
 * GPUs are tried in blame order and the first that passes all three at
 * p <= 1e-3 is named; as it is picked among ngpus, each p-value is
 * multiplied by ngpus (Bonferroni). Usually it is the first GPU; when the
 * first caused its wait in a few long stalls (a process descheduled for
 * tens of ms once) it fails the tests and the consistent one behind it is
 * named. When another GPU passes too (two late GPUs), the confidence also
 * asks how much further beyond chance the named one was last than that
 * rival (dominance), so that two GPUs alike are never named with high
 * confidence. When none passes, the first GPU's tests say why. Then
 * summary_kind.c says what kind of straggler it is (late host, slow GPU,
 * slow link) and may name a slow GPU, which arrives on time, instead.
 */
#include <math.h>
#include <stdlib.h>

#include "summary/summary.h"

#define NAME_LOG10_P (-3.0)   /* every test at p <= 1e-3: named */
#define MEDIUM_LOG10_P (-6.0) /* medium: p <= 1e-6 ... */
#define MEDIUM_DOMINANCE 1.5  /* ... and last 1.5 x the rival's excess */
#define HIGH_LOG10_P (-9.0)   /* high: p <= 1e-9 ... */
#define HIGH_DOMINANCE 2.0    /* ... and twice the rival's excess */

bool strag_basis_timing(const summary *s) {
  return s->strag.matched[1] > 0;
}

const char *strag_confidence_name(strag_confidence c) {
  switch (c) {
  case STRAG_CONF_HIGH:
    return "high";
  case STRAG_CONF_MEDIUM:
    return "medium";
  case STRAG_CONF_LOW:
    break;
  }
  return "low";
}

double strag_log10_binomial_tail(uint64_t n, uint64_t k, double p) {
  if (k == 0 || p >= 1.0)
    return 0.0;
  if (k > n || p <= 0.0)
    return -INFINITY;
  if ((double)k <= (double)n * p)
    return 0.0;
  /* log of the first term, P(X = k), then the following terms relative
   * to it: they fall geometrically once past the mean */
  double nd = (double)n, kd = (double)k;
  double log_first = lgamma(nd + 1) - lgamma(kd + 1) - lgamma(nd - kd + 1) +
                     kd * log(p) + (nd - kd) * log1p(-p);
  double odds = p / (1.0 - p), term = 1.0, sum = 1.0;
  for (uint64_t j = k; j < n; j++) {
    term *= (double)(n - j) / (double)(j + 1) * odds;
    sum += term;
    if (term < sum * 1e-15)
      break;
  }
  double l10 = (log_first + log(sum)) / log(10.0);
  return l10 > 0.0 ? 0.0 : l10;
}

/* One test: log10 of the adjusted p-value of `count` of `tested` against
 * a chance sum of `chance`. */
static double test(uint64_t tested, uint64_t count, double chance,
                   size_t ngpus) {
  double p = tested ? chance / (double)tested : 0.0;
  double l10 =
      strag_log10_binomial_tail(tested, count, p) + log10((double)ngpus);
  return l10 > 0.0 ? 0.0 : l10;
}

static strag_tests test_gpu(const gpu_row *g, size_t ngpus) {
  const strag_evidence *e = &g->evidence;
  strag_tests t = {0};
  t.last = test(e->tested, e->last, e->chance_last, ngpus);
  t.after = test(e->tested, e->after_median, e->chance_after, ngpus);
  t.gap_tested = e->gap_tested > 0;
  if (t.gap_tested)
    t.gap = test(e->gap_tested, e->gap_longer, e->chance_gap, ngpus);
  t.floor = test(e->tested, e->tested, e->chance_last, ngpus);
  return t;
}

static bool passes(const strag_tests *t) {
  return t->last <= NAME_LOG10_P && t->after <= NAME_LOG10_P &&
         (!t->gap_tested || t->gap <= NAME_LOG10_P);
}

/* The largest of its p-values: what the confidence rests on. */
static double weakest(const strag_tests *t) {
  double w = fmax(t->last, t->after);
  return t->gap_tested ? fmax(w, t->gap) : w;
}

/* How many more times than chance it was last (times last - chance). */
static double excess_last(const gpu_row *g) {
  double x = (double)g->evidence.last - g->evidence.chance_last;
  return x > 0.0 ? x : 0.0;
}

static int64_t caused(const gpu_row *g) {
  return strag_caused(g->wait_sum, g->unattributed_wait_sum);
}

/* Why no GPU stands out, from the first GPU's tests. */
static void explain_none(strag_verdict *v) {
  const strag_tests *t = &v->tests;
  bool last = t->last <= NAME_LOG10_P, after = t->after <= NAME_LOG10_P;
  if (caused(&v->gpu) <= 0) {
    v->confidence = STRAG_CONF_HIGH;
    v->reason = "no GPU caused any wait";
  } else if (t->floor > NAME_LOG10_P) {
    v->confidence = STRAG_CONF_LOW;
    v->reason = "too few instances to tell a GPU from chance";
  } else if (last && after) {
    v->confidence = STRAG_CONF_MEDIUM;
    v->reason = "the first GPU is last and after the median arrival more "
                "often than chance, but its gaps between operations are no "
                "longer than the others': it is late because its previous "
                "operations end late (inherited), not by its own doing";
  } else if (last) {
    v->confidence = STRAG_CONF_MEDIUM;
    v->reason = "the first GPU is last more often than chance, but not "
                "after the median arrival more often: late in bursts, not "
                "typically";
  } else if (after) {
    v->confidence = STRAG_CONF_MEDIUM;
    v->reason = "the first GPU is after the median arrival more often than "
                "chance, but not last more often: others are later still";
  } else {
    v->confidence = STRAG_CONF_HIGH;
    v->reason = "no GPU is last or after the median arrival more often "
                "than chance would make it";
  }
}

static void rate_named(strag_verdict *v) {
  double w = weakest(&v->tests);
  /* why the GPU first by wait caused was not named */
  strag_tests t1 = test_gpu(&v->first, v->ngpus);
  bool first_inherited =
      t1.last <= NAME_LOG10_P && t1.after <= NAME_LOG10_P && t1.gap_tested;
  if (w <= HIGH_LOG10_P && v->dominance >= HIGH_DOMINANCE)
    v->confidence = STRAG_CONF_HIGH;
  else if (w <= MEDIUM_LOG10_P && v->dominance >= MEDIUM_DOMINANCE)
    v->confidence = STRAG_CONF_MEDIUM;
  else
    v->confidence = STRAG_CONF_LOW;
  if (v->dominance < MEDIUM_DOMINANCE)
    v->reason = "last, after the median arrival and slow between operations "
                "more often than chance, but another GPU stands out almost "
                "as much";
  else if (!v->gpu_is_first && first_inherited)
    v->reason = "last, after the median arrival and slow between operations "
                "more often than chance; the GPU that caused more wait was "
                "late because its previous operations ended late "
                "(inherited), not by its own doing";
  else if (!v->gpu_is_first)
    v->reason = "last, after the median arrival and slow between operations "
                "more often than chance; the GPU that caused more wait did "
                "so in a few long stalls, not consistently";
  else
    v->reason = "last, after the median arrival and slow between operations "
                "more often than chance";
}

void strag_verdict_of(const summary *s, strag_verdict *v) {
  *v = (strag_verdict){0};
  v->timing = strag_basis_timing(s);
  v->confidence = STRAG_CONF_LOW;
  size_t n;
  gpu_row *rows = gpu_rows(s, v->timing, &n);
  if (!rows) {
    v->reason = "out of memory";
    return;
  }
  for (size_t i = 0; i < n; i++)
    v->ngpus += rows[i].evidence.tested > 0;
  if (n > 0)
    v->first = v->gpu = rows[0];
  v->gpu_is_first = true;
  if (v->ngpus < 2) {
    free(rows);
    v->reason = "fewer than two GPUs to compare";
    return;
  }
  /* the first GPU in blame order that stands out */
  size_t pick = n;
  for (size_t i = 0; i < n && pick == n; i++) {
    if (rows[i].evidence.tested == 0)
      continue;
    strag_tests t = test_gpu(&rows[i], v->ngpus);
    if (passes(&t))
      pick = i;
  }
  size_t about = pick < n ? pick : 0;
  v->gpu = rows[about];
  v->gpu_is_first = about == 0;
  v->tests = test_gpu(&v->gpu, v->ngpus);
  /* its rival: another GPU that stands out too, the one last most often
   * beyond chance */
  for (size_t i = 0; i < n; i++) {
    if (i == about || rows[i].evidence.tested == 0)
      continue;
    strag_tests t = test_gpu(&rows[i], v->ngpus);
    if (passes(&t) &&
        (!v->have_rival || excess_last(&rows[i]) > excess_last(&v->rival))) {
      v->rival = rows[i];
      v->have_rival = true;
    }
  }
  double mine = excess_last(&v->gpu), theirs = excess_last(&v->rival);
  v->dominance = !v->have_rival  ? HUGE_VAL
                 : theirs <= 0.0 ? HUGE_VAL
                                 : mine / theirs;
  v->stands_out = pick < n;
  if (v->stands_out)
    rate_named(v);
  else
    explain_none(v);
  /* what kind (summary_kind.c): a slow GPU is named by its compute */
  size_t slow = strag_kind_of(s, rows, n, v);
  if (slow < n) {
    v->stands_out = true;
    v->gpu = rows[slow];
    v->gpu_is_first = slow == 0;
    v->tests = test_gpu(&v->gpu, v->ngpus);
    v->have_rival = false;
    v->dominance = HUGE_VAL;
    v->reason = v->kind_reason;
  }
  free(rows);
}
