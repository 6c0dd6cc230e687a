/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_kind.c — the kind of straggler (summary_kind.c): who
 * finished last in each instance (the shortest final_sync, far enough
 * below the median), the slow GPU test, and the rule that tells a late
 * host, a slow GPU and a slow link apart (docs/cli.md, Stragglers: what
 * kind).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "summary/summary.h"

#define US 1000 /* ns */

/* A GPU's evidence over `tested` instances of 8 ranks: it finished last
 * in `last` of them; its compute twice the median (100 us), its
 * final_sync 3 us against its peers' 100 us. */
static compute_evidence evidence(uint64_t tested, uint64_t last) {
  compute_evidence e = {0};
  e.tested = tested;
  e.finished_last = last;
  e.chance_last = (double)tested / 8.0;
  e.median_compute_sum = (int64_t)tested * 100 * US;
  e.compute_sum = 2 * e.median_compute_sum;
  e.final_sum = (int64_t)tested * 3 * US;
  e.median_final_sum = (int64_t)tested * 100 * US;
  return e;
}

static kind_input no_evidence(void) {
  kind_input in;
  memset(&in, 0, sizeof in);
  in.late_gpu = in.candidate_gpu = -1;
  return in;
}

static kind_link link_of(int64_t from, int64_t to) {
  kind_link l = {0};
  l.comm_id = 0xab;
  l.from = (int32_t)from;
  l.to = (int32_t)to;
  l.from_global = from;
  l.to_global = to;
  l.bandwidth_gbs = 1.0;
  l.median_gbs = 4.0;
  return l;
}

/* The test: finished last far beyond chance, and the numbers beside it. */
static void compute_test_numbers(void **state) {
  (void)state;
  compute_evidence e = evidence(200, 190);
  compute_tests t = strag_compute_tests(&e, 8);
  assert_true(t.tested);
  assert_true(t.last < -100.0);
  assert_true(fabs(t.compute_ratio - 2.0) < 1e-9);
  assert_true(fabs(t.final_us - 3.0) < 1e-9);
  assert_true(fabs(t.peer_final_us - 100.0) < 1e-9);
  /* at chance: no evidence */
  e = evidence(200, 25);
  t = strag_compute_tests(&e, 8);
  assert_true(t.last == 0.0);
  /* no final_sync: not tested, ratio 1 */
  compute_evidence none = {0};
  t = strag_compute_tests(&none, 8);
  assert_false(t.tested);
  assert_true(t.compute_ratio == 1.0);
}

/* Late arrival with a normal compute: a late host. */
static void late_host(void **state) {
  (void)state;
  kind_input in = no_evidence();
  in.late_named = true;
  in.late_gpu = 6;
  in.late_confidence = STRAG_CONF_HIGH;
  compute_evidence normal = evidence(200, 20);
  in.late = strag_compute_tests(&normal, 8);
  kind_decision d;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_LATE_HOST);
  assert_false(d.named_candidate);
  assert_non_null(strstr(d.reason, "does not make its peers wait"));
  /* without KernelPhase the kind is still a late host, and says so */
  in.late = strag_compute_tests(&(compute_evidence){0}, 8);
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_LATE_HOST);
  assert_non_null(strstr(d.reason, "KernelPhase"));
}

/* On time, but last at the end of the kernel far more often than chance:
 * a slow GPU, named. */
static void slow_gpu(void **state) {
  (void)state;
  kind_input in = no_evidence();
  in.have_candidate = true;
  in.candidate_gpu = 13;
  compute_evidence slow = evidence(200, 190);
  in.candidate = strag_compute_tests(&slow, 16);
  kind_decision d;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_GPU);
  assert_true(d.named_candidate);
  assert_int_equal(d.confidence, STRAG_CONF_HIGH);
  /* last only somewhat more than chance: named, but never with high
   * confidence */
  compute_evidence some = evidence(200, 45);
  in.candidate = strag_compute_tests(&some, 16);
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_GPU);
  assert_int_not_equal(d.confidence, STRAG_CONF_HIGH);
}

/* A GPU last at the end of the kernel about as often as chance is not
 * slow, however long its compute (the ranks that move the network steps
 * have long ones). */
static void not_a_slow_gpu(void **state) {
  (void)state;
  kind_input in = no_evidence();
  in.have_candidate = true;
  in.candidate_gpu = 2;
  compute_evidence chance = evidence(200, 29);
  in.candidate = strag_compute_tests(&chance, 8);
  kind_decision d;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_NONE);
  assert_false(d.named_candidate);
}

/* A slow link when no GPU is late or slow; a late GPU at an end of the
 * slow link was made late by it, as is one named without high
 * confidence; one named firmly elsewhere is a late host. */
static void slow_link(void **state) {
  (void)state;
  kind_input in = no_evidence();
  in.have_link = true;
  in.link = link_of(3, 4);
  kind_decision d;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_LINK);
  assert_int_equal(d.confidence, STRAG_CONF_HIGH); /* 1/4 of the median */
  in.link.bandwidth_gbs = 1.8;                     /* 0.45 of the median */
  strag_kind_decide(&in, &d);
  assert_int_equal(d.confidence, STRAG_CONF_MEDIUM);
  in.late_named = true;
  in.late_confidence = STRAG_CONF_HIGH;
  in.late_gpu = 4;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_LINK);
  assert_non_null(strstr(d.reason, "made it late"));
  in.late_gpu = 3;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_LINK);
  in.late_gpu = 7;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_LATE_HOST);
  in.late_confidence = STRAG_CONF_MEDIUM;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_LINK);
  /* a GPU that finishes last at an end of the slow link: the link */
  in.late_named = false;
  in.have_candidate = true;
  in.candidate_gpu = 4;
  compute_evidence slow = evidence(200, 190);
  in.candidate = strag_compute_tests(&slow, 8);
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_LINK);
  assert_false(d.named_candidate);
  in.candidate_gpu = 6; /* elsewhere: a slow GPU */
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_GPU);
}

/* A GPU that finishes last firmly (p <= 1e-6) is a slow GPU whatever the
 * arrival tests named (in a pipeline its slow kernels make it arrive late
 * too); one that passes weakly gives way to a late GPU named with medium
 * or high confidence, not to one named with low. */
static void late_against_slow(void **state) {
  (void)state;
  kind_input in = no_evidence();
  in.late_named = true;
  in.late_gpu = 3;
  in.late_confidence = STRAG_CONF_HIGH;
  in.have_candidate = true;
  in.candidate_gpu = 5;
  compute_evidence firm = evidence(200, 190);
  in.candidate = strag_compute_tests(&firm, 8);
  kind_decision d;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_GPU);
  assert_true(d.named_candidate);
  compute_evidence weak = evidence(200, 45); /* p about 1e-4 */
  in.candidate = strag_compute_tests(&weak, 8);
  assert_true(in.candidate.last <= -3.0 && in.candidate.last > -6.0);
  in.late_confidence = STRAG_CONF_MEDIUM;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_LATE_HOST);
  assert_false(d.named_candidate);
  in.late_confidence = STRAG_CONF_LOW;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_GPU);
  /* the same GPU late and finishing last: a slow GPU */
  in.late_confidence = STRAG_CONF_HIGH;
  in.candidate_gpu = 3;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_GPU);
}

static void add_rank(instance *in, int32_t rank, int64_t compute,
                     int64_t final) {
  inst_rank *x = &in->ranks[in->nseen++];
  memset(x, 0, sizeof *x);
  x->rank = rank;
  x->arrival = 1000;
  x->completion = 2000;
  x->gap = STRAG_UNKNOWN;
  x->gpu_wait = STRAG_UNKNOWN;
  x->gpu_compute = compute;
  x->gpu_final = final;
}

/* Each instance: the rank with the shortest final_sync finished last when
 * it is alone there and more than the tolerance (10 us) below the median;
 * a tie, or a few us, counts for no one. Each rank's chance is 1/(ranks
 * with a final_sync); ranks without phases are left out. */
static void score_instances(void **state) {
  (void)state;
  summary *s = calloc(1, sizeof *s);
  assert_non_null(s);
  inst_rank ranks[5];
  instance in = {0};
  in.comm_id = 0xab;
  in.timing = true;
  in.nranks = 5;
  in.cap = 5;
  in.ranks = ranks;
  add_rank(&in, 0, 100 * US, 103 * US);
  add_rank(&in, 1, 100 * US, 103 * US);
  add_rank(&in, 2, 200 * US, 3 * US); /* the slow one */
  add_rank(&in, 3, 100 * US, 103 * US);
  add_rank(&in, 4, STRAG_UNKNOWN, STRAG_UNKNOWN); /* no phases */
  strag_kind_score(&s->strag, &in);
  in.nseen = 0;
  for (int32_t r = 0; r < 4; r++) /* all alike */
    add_rank(&in, r, 100 * US, 3 * US);
  strag_kind_score(&s->strag, &in);
  in.nseen = 0; /* rank 0 shortest by 2 us only */
  add_rank(&in, 0, 100 * US, 8 * US);
  for (int32_t r = 1; r < 4; r++)
    add_rank(&in, r, 100 * US, 10 * US);
  strag_kind_score(&s->strag, &in);
  for (int32_t r = 0; r < 5; r++) {
    rank_row *row = strag_rank_row(&s->strag, 0xab, r, true);
    assert_non_null(row);
    const compute_evidence *e = &row->compute;
    if (r == 4) {
      assert_int_equal(e->tested, 0);
      continue;
    }
    assert_int_equal(e->tested, 3);
    assert_true(fabs(e->chance_last - 0.75) < 1e-12);
    assert_int_equal(e->finished_last, r == 2 ? 1 : 0);
    assert_int_equal(e->median_compute_sum, 300 * US);
    assert_int_equal(e->median_final_sum, (103 + 3 + 10) * US);
  }
  rank_row *slow = strag_rank_row(&s->strag, 0xab, 2, true);
  assert_int_equal(slow->compute.compute_sum, 400 * US);
  assert_int_equal(slow->compute.final_sum, (3 + 3 + 10) * US);
  summary_free(s);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(compute_test_numbers),
      cmocka_unit_test(late_host),
      cmocka_unit_test(slow_gpu),
      cmocka_unit_test(not_a_slow_gpu),
      cmocka_unit_test(slow_link),
      cmocka_unit_test(late_against_slow),
      cmocka_unit_test(score_instances),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
