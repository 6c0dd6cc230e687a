/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_link_steps.c — the per-step test of a link
 * (summary_link_steps.c, docs/cli.md "Network", slow pairs): each
 * operation's fastest step of its largest size, compared with the other
 * links of the same communicator at the same step size; slow only when
 * consistently (a sign test, times the links compared), at least twice
 * and at least 10 us slower; and how sure the verdict's kind is of a
 * link it found, and which of several slow links it names
 * (summary_kind.c).
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
#define KIB 1024

/* `n` values: `slow` of them `high`, the others `low`. */
static int64_t *values(size_t n, size_t slow, int64_t high, int64_t low) {
  int64_t *v = malloc(n * sizeof *v);
  assert_non_null(v);
  for (size_t i = 0; i < n; i++)
    v[i] = i < slow ? high : low;
  return v;
}

/* 40 operations at 62 us against 80 at 31 us: slow, with the numbers. */
static void consistently_slow(void **state) {
  (void)state;
  int64_t *ops = values(40, 40, 62 * US, 0);
  int64_t *others = values(80, 0, 0, 31 * US);
  link_step_result r = link_step_test(ops, 40, others, 80, 4);
  assert_true(r.tested);
  assert_true(r.slow);
  assert_int_equal(r.ops, 40);
  assert_int_equal(r.ops_slower, 40);
  assert_int_equal(r.median_ns, 62 * US);
  assert_int_equal(r.reference_ns, 31 * US);
  assert_float_equal(r.ratio, 2.0, 1e-9);
  /* 2^-40 times the 4 links compared */
  assert_float_equal(r.log10p, -40 * log10(2.0) + log10(4.0), 1e-6);
  free(ops);
  free(others);
}

/* Consistently slower, but only 1.5 times: not called slow. */
static void not_twice(void **state) {
  (void)state;
  int64_t *ops = values(40, 40, 45 * US, 0);
  int64_t *others = values(80, 0, 0, 30 * US);
  link_step_result r = link_step_test(ops, 40, others, 80, 4);
  assert_true(r.tested);
  assert_true(r.log10p < -9);
  assert_false(r.slow);
  free(ops);
  free(others);
}

/* 3 times as long, consistently, but 4 us against 1.3 us: steps a network
 * modelled as free, or with nothing to move, takes; noise, not a link. */
static void below_the_floor(void **state) {
  (void)state;
  int64_t *ops = values(40, 40, 4 * US, 0);
  int64_t *others = values(80, 0, 0, 1300);
  link_step_result r = link_step_test(ops, 40, others, 80, 4);
  assert_true(r.ratio > 3.0);
  assert_true(r.log10p < -9);
  assert_false(r.slow);
  free(ops);
  free(others);
}

/* A median 3 times the reference from 11 stalled operations of 21: the
 * other 10 are as fast as the others', which chance explains. */
static void not_consistent(void **state) {
  (void)state;
  int64_t *ops = values(21, 11, 100 * US, 30 * US);
  int64_t *others = values(80, 0, 0, 30 * US);
  link_step_result r = link_step_test(ops, 21, others, 80, 4);
  assert_true(r.tested);
  assert_int_equal(r.ops_slower, 11);
  assert_true(r.ratio > 3.0);
  assert_false(r.slow);
  free(ops);
  free(others);
}

/* 12 of 12 slower: p = 2.4e-4 passes alone, not times 10 links. */
static void bonferroni(void **state) {
  (void)state;
  int64_t *ops = values(12, 12, 90 * US, 0);
  int64_t *others = values(12, 0, 0, 30 * US);
  assert_true(link_step_test(ops, 12, others, 12, 1).slow);
  assert_false(link_step_test(ops, 12, others, 12, 10).slow);
  /* too few operations on either side: not tested */
  assert_false(link_step_test(ops, 3, others, 12, 1).tested);
  assert_false(link_step_test(ops, 12, others, 3, 1).tested);
  free(ops);
  free(others);
}

/* A network of `nlinks` links, comm ids given. */
static void network_of(network_state *n, const uint64_t *comms,
                       const int32_t *from, const int32_t *to, size_t nlinks) {
  memset(n, 0, sizeof *n);
  n->links = calloc(nlinks, sizeof *n->links);
  assert_non_null(n->links);
  n->nlinks = n->cap_links = nlinks;
  for (size_t i = 0; i < nlinks; i++) {
    n->links[i].comm_id = comms[i];
    n->links[i].from = from[i];
    n->links[i].to = to[i];
  }
}

/* `count` operations of link `link` (ids from `*id`), each of a smaller
 * step first (1 KiB, 2 us: a last step of another operation), then
 * steps of `step_bytes`: a queued one, its fastest `fast`, a queued one
 * again. The operation's measure is `fast`. */
static void add_ops(network_state *n, size_t link, uint64_t *id, int count,
                    uint64_t step_bytes, int64_t fast, int64_t queued) {
  for (int k = 0; k < count; k++, (*id)++) {
    net_step_add(n, 0, *id, link, KIB, 2 * US);
    net_step_add(n, 0, *id, link, step_bytes, queued);
    net_step_add(n, 0, *id, link, step_bytes, fast);
    net_step_add(n, 0, *id, link, step_bytes, queued);
    if (k % 2) /* the others' records never come: counted at the end */
      net_step_op_done(n, 0, *id);
  }
}

static const link_size_row *row_of(const network_state *n, size_t link,
                                   uint64_t step_bytes) {
  for (size_t i = 0; i < n->nsized; i++)
    if (n->sized[i].link == link && n->sized[i].step_bytes == step_bytes)
      return &n->sized[i];
  return NULL;
}

/* Only links of the same communicator and step size are compared, and an
 * operation counts by its fastest step:
 *   comm A: links 0 and 1 move 128 KiB steps, 0's operations all have
 *     queued steps of 200 us but a fastest of 31 us, 1's 62 us: 1 is slow;
 *   comm B: links 3 and 4 move 128 KiB steps at 62 us: alike, neither is
 *     slow (against comm A's they would be); link 2 moves 1 MiB steps
 *     (90 us, a size of its own): not compared. */
static void grouping(void **state) {
  (void)state;
  const uint64_t comms[] = {0xa, 0xa, 0xb, 0xb, 0xb};
  const int32_t from[] = {0, 1, 2, 0, 1}, to[] = {1, 2, 0, 1, 0};
  network_state n;
  network_of(&n, comms, from, to, 5);
  uint64_t id = 1;
  add_ops(&n, 0, &id, 20, 128 * KIB, 31 * US, 200 * US);
  add_ops(&n, 1, &id, 20, 128 * KIB, 62 * US, 70 * US);
  add_ops(&n, 2, &id, 20, 1024 * KIB, 90 * US, 95 * US);
  add_ops(&n, 3, &id, 20, 128 * KIB, 62 * US, 70 * US);
  add_ops(&n, 4, &id, 20, 128 * KIB, 62 * US, 70 * US);
  net_step_tests(&n);
  assert_int_equal(n.nopen, 0);
  assert_int_equal(n.links_step_tested, 4); /* 0, 1, 3, 4 */
  const link_size_row *r0 = row_of(&n, 0, 128 * KIB);
  const link_size_row *r1 = row_of(&n, 1, 128 * KIB);
  const link_size_row *r2 = row_of(&n, 2, 1024 * KIB);
  assert_non_null(r0);
  assert_non_null(r1);
  assert_non_null(r2);
  assert_int_equal(r0->nops, 20);
  assert_int_equal(r0->result.median_ns, 31 * US);
  assert_false(r0->result.slow);
  assert_true(r1->result.slow);
  assert_int_equal(r1->result.reference_ns, 31 * US);
  assert_false(r2->result.tested);
  assert_null(row_of(&n, 0, KIB)); /* the small last steps are no measure */
  assert_false(n.links[0].slow_steps);
  assert_true(n.links[1].slow_steps);
  for (size_t i = 2; i < 5; i++)
    assert_false(n.links[i].slow_steps);
  net_step_free(&n);
  free(n.links);
}

/* The reference of each link in a group of 4 (its others' median, found
 * without copying them) is what the test on copies gives, with values
 * that repeat and groups of odd and even sizes. */
static void reference_of_others(void **state) {
  (void)state;
  const uint64_t comms[] = {0xa, 0xa, 0xa, 0xa};
  const int32_t from[] = {0, 1, 2, 3}, to[] = {1, 2, 3, 0};
  const int counts[] = {7, 12, 5, 9};
  network_state n;
  network_of(&n, comms, from, to, 4);
  uint64_t id = 1, seed = 12345;
  int64_t *vals[4];
  for (size_t l = 0; l < 4; l++) {
    vals[l] = malloc((size_t)counts[l] * sizeof *vals[l]);
    assert_non_null(vals[l]);
    for (int k = 0; k < counts[l]; k++, id++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      int64_t v = (int64_t)((seed >> 33) % 9) * 10 * US + (int64_t)l * US;
      vals[l][k] = v;
      net_step_add(&n, 0, id, l, 128 * KIB, v);
      net_step_op_done(&n, 0, id);
    }
  }
  net_step_tests(&n);
  for (size_t l = 0; l < 4; l++) {
    int64_t others[64], mine[64];
    size_t k = 0;
    for (size_t o = 0; o < 4; o++)
      for (int j = 0; o != l && j < counts[o]; j++)
        others[k++] = vals[o][j];
    memcpy(mine, vals[l], (size_t)counts[l] * sizeof *mine);
    link_step_result want =
        link_step_test(mine, (size_t)counts[l], others, k, n.links_step_tested);
    const link_size_row *r = row_of(&n, l, 128 * KIB);
    assert_non_null(r);
    assert_int_equal(r->result.reference_ns, want.reference_ns);
    assert_int_equal(r->result.median_ns, want.median_ns);
    assert_int_equal(r->result.ops_slower, want.ops_slower);
  }
  for (size_t l = 0; l < 4; l++)
    free(vals[l]);
  net_step_free(&n);
  free(n.links);
}

/* The kind's confidence in a link the step test found: high only when it
 * is below 0.3 x the median and the test is firm (p <= 1e-9). */
static void step_link_confidence(void **state) {
  (void)state;
  kind_input in;
  memset(&in, 0, sizeof in);
  in.late_gpu = in.candidate_gpu = -1;
  in.have_link = true;
  in.link.from = 0;
  in.link.to = 1;
  in.link.from_global = 0;
  in.link.to_global = 4;
  in.link.by_steps = true;
  in.link.bandwidth_gbs = 1.0;
  in.link.median_gbs = 3.5;
  in.link.steps.log10p = -20;
  kind_decision d;
  strag_kind_decide(&in, &d);
  assert_int_equal(d.kind, STRAG_KIND_SLOW_LINK);
  assert_int_equal(d.confidence, STRAG_CONF_HIGH);
  in.link.steps.log10p = -5; /* far, but not firm */
  strag_kind_decide(&in, &d);
  assert_int_equal(d.confidence, STRAG_CONF_MEDIUM);
  in.link.steps.log10p = -20;
  in.link.bandwidth_gbs = 1.7; /* firm, but about half the median */
  strag_kind_decide(&in, &d);
  assert_int_equal(d.confidence, STRAG_CONF_MEDIUM);
}

static kind_link link_between(int64_t from, int64_t to, double gbs,
                              bool by_steps) {
  kind_link l = {0};
  l.from = (int32_t)from;
  l.to = (int32_t)to;
  l.from_global = from;
  l.to_global = to;
  l.bandwidth_gbs = gbs;
  l.median_gbs = 10.0;
  l.by_steps = by_steps;
  return l;
}

/* Which of several slow links the verdict names: a plant on communicator
 * ranks 0:1 slows the pipeline of every (tp, dp) pair, g0 -> g4 and
 * g2 -> g6 among them; the late GPU g6 is at an end of the second, which
 * explains it, however slow the first. Then a fitted link before one
 * only the step test found, then the slower. */
static void which_link(void **state) {
  (void)state;
  kind_link a = link_between(0, 4, 1.0, true),
            b = link_between(2, 6, 3.0, true);
  assert_true(strag_link_explains_more(&b, &a, 6));
  assert_false(strag_link_explains_more(&a, &b, 6));
  assert_true(strag_link_explains_more(&a, &b, -1)); /* no late GPU */
  kind_link fitted = link_between(1, 5, 4.0, false);
  assert_true(strag_link_explains_more(&fitted, &a, -1));
  assert_false(strag_link_explains_more(&a, &fitted, -1));
  assert_true(strag_link_explains_more(&b, &fitted, 6));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(consistently_slow),
      cmocka_unit_test(not_twice),
      cmocka_unit_test(below_the_floor),
      cmocka_unit_test(not_consistent),
      cmocka_unit_test(bonferroni),
      cmocka_unit_test(grouping),
      cmocka_unit_test(reference_of_others),
      cmocka_unit_test(step_link_confidence),
      cmocka_unit_test(which_link),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
