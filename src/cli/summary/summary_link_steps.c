/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_link_steps.c — the per-step test of a link: is
 * it slower than the other links of its communicator at the same step
 * size, consistently over its operations? It needs no fit, so it works
 * where a communicator moves one message size (a training job's gradient
 * buckets, pipeline activations), where the fits (summary_network.c)
 * cannot be made. docs/cli.md ("Network", slow pairs) is the rule.
 *
 *   - an operation is one ProxyOp: one channel's share of one collective
 *     or send on one link. Its measure is its fastest send step of its
 *     largest step size (SendWait -> stop): queueing behind earlier steps
 *     and a late proxy thread only add time, so an operation's fastest
 *     step is what the link itself does (the fits take the fastest
 *     transfer of each size for the same reason);
 *   - per (communicator, step size), each link with at least
 *     STEP_MIN_OPS operations is compared with the other links' operations
 *     (at least as many): the reference is their median. Were the link
 *     like the others, each of its operations would be slower than the
 *     reference with chance at most 1/2; the count of its slower ones is
 *     tested against that (a one-sided binomial tail, a sign test, times
 *     the links compared);
 *   - slow: the test passes (p <= 1e-3), its median is at least
 *     STEP_SLOW_RATIO times the reference (a step that takes twice as
 *     long: the link's bandwidth is below half the others', whatever its
 *     latency, which only makes the ratio smaller) and at least
 *     STEP_MIN_EXCESS_NS longer (a network modelled as free, or a link
 *     with nothing to move, has steps of a few us whose ratios are noise).
 *
 * Memory: 8 bytes per operation (each one's fastest step), and the
 * operations whose record has not been read yet.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "summary/summary.h"

#define STEP_MIN_OPS 4
#define STEP_SLOW_RATIO 2.0
#define STEP_MIN_EXCESS_NS 10000
#define STEP_SLOW_LOG10_P (-3.0)

/* ---- reading: each operation's fastest step ---- */

static link_size_row *sized_row(network_state *n, size_t link,
                                uint64_t step_bytes) {
  bool inserted;
  uint64_t *idx = pair_map_put(&n->sized_index, link, step_bytes, 0, &inserted);
  if (!idx)
    return NULL;
  if (inserted) {
    if (n->nsized == n->cap_sized) {
      size_t ncap = n->cap_sized ? n->cap_sized * 2 : 32;
      link_size_row *nr = realloc(n->sized, ncap * sizeof *nr);
      if (!nr) {
        pair_map_remove(&n->sized_index, link, step_bytes);
        return NULL;
      }
      n->sized = nr;
      n->cap_sized = ncap;
    }
    link_size_row *r = &n->sized[n->nsized++];
    memset(r, 0, sizeof *r);
    r->link = link;
    r->step_bytes = step_bytes;
    *idx = n->nsized;
  }
  return &n->sized[*idx - 1];
}

/* One finished operation into its link's row of its step size. */
static void keep_op(network_state *n, const open_op *op) {
  link_size_row *r = sized_row(n, op->link, op->step_bytes);
  if (!r)
    return;
  if (r->nops == r->cap_ops) {
    size_t ncap = r->cap_ops ? r->cap_ops * 2 : 16;
    int64_t *nv = realloc(r->op_min_ns, ncap * sizeof *nv);
    if (!nv)
      return;
    r->op_min_ns = nv;
    r->cap_ops = ncap;
  }
  r->op_min_ns[r->nops++] = op->min_ns;
}

void net_step_add(network_state *n, uint64_t file, uint64_t op_id, size_t link,
                  uint64_t bytes, int64_t ns) {
  bool inserted;
  uint64_t *idx = pair_map_put(&n->open_index, file, op_id, 0, &inserted);
  if (!idx)
    return;
  if (!inserted) {
    open_op *op = &n->open_ops[*idx - 1];
    if (bytes > op->step_bytes) { /* the larger steps are the measure */
      op->step_bytes = bytes;
      op->min_ns = ns;
    } else if (bytes == op->step_bytes && ns < op->min_ns) {
      op->min_ns = ns;
    }
    return;
  }
  if (n->nopen == n->cap_open) {
    size_t ncap = n->cap_open ? n->cap_open * 2 : 64;
    open_op *no = realloc(n->open_ops, ncap * sizeof *no);
    if (!no) {
      pair_map_remove(&n->open_index, file, op_id);
      return;
    }
    n->open_ops = no;
    n->cap_open = ncap;
  }
  n->open_ops[n->nopen++] = (open_op){file, op_id, link, bytes, ns};
  *idx = n->nopen;
}

void net_step_op_done(network_state *n, uint64_t file, uint64_t op_id) {
  uint64_t *idx = pair_map_get(&n->open_index, file, op_id);
  if (!idx)
    return;
  size_t i = (size_t)*idx - 1;
  keep_op(n, &n->open_ops[i]);
  pair_map_remove(&n->open_index, file, op_id);
  n->nopen--;
  if (i == n->nopen)
    return;
  n->open_ops[i] = n->open_ops[n->nopen]; /* the last one fills the hole */
  uint64_t *moved =
      pair_map_get(&n->open_index, n->open_ops[i].file, n->open_ops[i].op_id);
  if (moved)
    *moved = i + 1;
}

/* ---- the test ---- */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* The median of a sorted array of n > 0 values. */
static int64_t sorted_median(const int64_t *v, size_t n) {
  return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* The test of the link's operations (sorted) against the reference. */
static link_step_result judge(const int64_t *ops, size_t nops,
                              int64_t reference, uint64_t links_tested) {
  link_step_result r = {0};
  r.tested = true;
  r.ops = nops;
  r.median_ns = sorted_median(ops, nops);
  r.reference_ns = reference;
  for (size_t i = 0; i < nops; i++)
    r.ops_slower += ops[i] > reference;
  double l10 = strag_log10_binomial_tail(nops, r.ops_slower, 0.5) +
               log10((double)(links_tested > 0 ? links_tested : 1));
  r.log10p = l10 > 0.0 ? 0.0 : l10;
  r.ratio = reference > 0     ? (double)r.median_ns / (double)reference
            : r.median_ns > 0 ? HUGE_VAL
                              : 1.0;
  r.slow = r.log10p <= STEP_SLOW_LOG10_P && r.ratio >= STEP_SLOW_RATIO &&
           r.median_ns - reference >= STEP_MIN_EXCESS_NS;
  return r;
}

link_step_result link_step_test(int64_t *ops, size_t nops, int64_t *others,
                                size_t nothers, uint64_t links_tested) {
  if (nops < STEP_MIN_OPS || nothers < STEP_MIN_OPS) {
    link_step_result r = {0};
    r.ratio = 1.0;
    r.ops = nops;
    return r;
  }
  qsort(ops, nops, sizeof *ops, cmp_i64);
  qsort(others, nothers, sizeof *others, cmp_i64);
  return judge(ops, nops, sorted_median(others, nothers), links_tested);
}

/* How many of the sorted v[0..n) are <= x. */
static size_t count_le(const int64_t *v, size_t n, int64_t x) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The k-th smallest (from 0) of the group's operations `all` (sorted)
 * without the link's own `mine` (sorted, a part of `all`): the first
 * value of `all` with more than k of the others at or below it. */
static int64_t others_kth(const int64_t *all, size_t nall, const int64_t *mine,
                          size_t nmine, size_t k) {
  size_t lo = 0, hi = nall - 1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    size_t below =
        count_le(all, nall, all[mid]) - count_le(mine, nmine, all[mid]);
    if (below > k)
      hi = mid;
    else
      lo = mid + 1;
  }
  return all[lo];
}

/* The median of the others' operations (the same as sorted_median of
 * them alone), without copying them for each link. */
static int64_t others_median(const int64_t *all, size_t nall,
                             const int64_t *mine, size_t nmine) {
  size_t m = nall - nmine;
  if (m % 2)
    return others_kth(all, nall, mine, nmine, m / 2);
  int64_t a = others_kth(all, nall, mine, nmine, m / 2 - 1);
  int64_t b = others_kth(all, nall, mine, nmine, m / 2);
  return a + (b - a) / 2;
}

/* A row's place in the order of the groups: by communicator, then step
 * size; each run of equal keys is a group whose links are compared with
 * one another. */
typedef struct {
  uint64_t comm_id, step_bytes;
  size_t row; /* index in network_state.sized */
} group_key;

static int cmp_group(const void *a, const void *b) {
  const group_key *x = a, *y = b;
  if (x->comm_id != y->comm_id)
    return x->comm_id < y->comm_id ? -1 : 1;
  if (x->step_bytes != y->step_bytes)
    return x->step_bytes < y->step_bytes ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

static bool same_group(const group_key *x, const group_key *y) {
  return x->comm_id == y->comm_id && x->step_bytes == y->step_bytes;
}

/* A row that can take part: a known communicator (PXN rows whose
 * communicator was not found are left out). */
static bool comparable(const network_state *n, const link_size_row *r) {
  return n->links[r->link].comm_id != 0;
}

/* Every operation of the group [lo, hi) of `keys` into `out`, sorted,
 * each row's own sorted too; how many. */
static size_t pool_group(network_state *n, const group_key *keys, size_t lo,
                         size_t hi, int64_t *out) {
  size_t k = 0;
  for (size_t j = lo; j < hi; j++) {
    link_size_row *r = &n->sized[keys[j].row];
    qsort(r->op_min_ns, r->nops, sizeof *r->op_min_ns, cmp_i64);
    memcpy(out + k, r->op_min_ns, r->nops * sizeof *out);
    k += r->nops;
  }
  qsort(out, k, sizeof *out, cmp_i64);
  return k;
}

void net_step_tests(network_state *n) {
  while (n->nopen > 0) /* operations whose record never came */
    net_step_op_done(n, n->open_ops[n->nopen - 1].file,
                     n->open_ops[n->nopen - 1].op_id);
  group_key *keys = malloc((n->nsized + 1) * sizeof *keys);
  if (!keys)
    return;
  size_t m = 0;
  for (size_t i = 0; i < n->nsized; i++)
    if (comparable(n, &n->sized[i]))
      keys[m++] = (group_key){n->links[n->sized[i].link].comm_id,
                              n->sized[i].step_bytes, i};
  qsort(keys, m, sizeof *keys, cmp_group);
  /* pass 1: how many links are compared (the Bonferroni factor); pass 2:
   * the tests */
  for (int pass = 0; pass < 2; pass++) {
    for (size_t lo = 0, hi; lo < m; lo = hi) {
      size_t total = 0;
      for (hi = lo; hi < m && same_group(&keys[hi], &keys[lo]); hi++)
        total += n->sized[keys[hi].row].nops;
      if (hi - lo < 2)
        continue;
      int64_t *all = pass ? malloc((total + 1) * sizeof *all) : NULL;
      if (pass && !all)
        continue;
      size_t nall = pass ? pool_group(n, keys, lo, hi, all) : 0;
      for (size_t j = lo; j < hi; j++) {
        link_size_row *r = &n->sized[keys[j].row];
        if (r->nops < STEP_MIN_OPS || total - r->nops < STEP_MIN_OPS)
          continue;
        if (!pass) {
          n->links_step_tested++;
          continue;
        }
        int64_t ref = others_median(all, nall, r->op_min_ns, r->nops);
        r->result = judge(r->op_min_ns, r->nops, ref, n->links_step_tested);
        if (r->result.slow)
          n->links[r->link].slow_steps = true;
      }
      free(all);
    }
  }
  free(keys);
}

void net_step_free(network_state *n) {
  for (size_t i = 0; i < n->nsized; i++)
    free(n->sized[i].op_min_ns);
  free(n->sized);
  pair_map_free(&n->sized_index);
  free(n->open_ops);
  pair_map_free(&n->open_index);
}
