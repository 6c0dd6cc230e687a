/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/ptimer_fit.c — see ptimer_fit.h for the model.
 */
#include "read/ptimer_fit.h"

#include <stdlib.h>
#include <string.h>

#define BUCKET_NS INT64_C(500000000) /* half a second of host time */
#define WINDOW_BUCKETS 16            /* 8 s each side */
#define MAX_SLOPE 200e-6             /* beyond: noise, not a clock */
#define MIN_SLOPE_BASE_NS INT64_C(400000000)
#define MAX_BOUND_GAP_NS INT64_C(1000000000) /* 1 s */

struct ptf_bucket {
  uint64_t gpu;
  int64_t number;         /* host time / BUCKET_NS */
  int64_t upper, t_upper; /* smallest upper bound and when; INT64_MAX none */
  int64_t lower, t_lower; /* largest lower bound and when; INT64_MIN none */
};

struct ptf_gpu {
  uint64_t gpu;
  size_t first, n; /* its buckets, sorted by number */
  double slope;    /* offset drift, ns per ns of host time */
};

void ptf_init(ptimer_fit *f) {
  memset(f, 0, sizeof *f);
  pair_map_init(&f->index);
}

void ptf_free(ptimer_fit *f) {
  free(f->buckets);
  free(f->gpus);
  pair_map_free(&f->index);
  memset(f, 0, sizeof *f);
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static ptf_bucket *bucket_for(ptimer_fit *f, uint64_t gpu, int64_t host_ns) {
  if (f->finished || f->oom)
    return NULL;
  int64_t number = floor_div(host_ns, BUCKET_NS);
  bool inserted;
  uint64_t *idx = pair_map_put(&f->index, gpu, (uint64_t)number, 0, &inserted);
  if (!idx) {
    f->oom = true;
    return NULL;
  }
  if (!inserted)
    return &f->buckets[*idx - 1];
  if (f->nbuckets == f->cap_buckets) {
    size_t ncap = f->cap_buckets ? f->cap_buckets * 2 : 64;
    ptf_bucket *nb = realloc(f->buckets, ncap * sizeof *nb);
    if (!nb) {
      pair_map_remove(&f->index, gpu, (uint64_t)number);
      f->oom = true;
      return NULL;
    }
    f->buckets = nb;
    f->cap_buckets = ncap;
  }
  ptf_bucket *b = &f->buckets[f->nbuckets++];
  *b = (ptf_bucket){gpu, number, INT64_MAX, 0, INT64_MIN, 0};
  *idx = f->nbuckets;
  return b;
}

void ptf_seen(ptimer_fit *f, uint64_t gpu, int64_t host_ns, uint64_t ptimer) {
  ptf_bucket *b = bucket_for(f, gpu, host_ns);
  int64_t offset = host_ns - (int64_t)ptimer;
  if (b && offset < b->upper) {
    b->upper = offset;
    b->t_upper = host_ns;
  }
}

void ptf_not_before(ptimer_fit *f, uint64_t gpu, int64_t host_ns,
                    uint64_t ptimer) {
  ptf_bucket *b = bucket_for(f, gpu, host_ns);
  int64_t offset = host_ns - (int64_t)ptimer;
  if (b && offset > b->lower) {
    b->lower = offset;
    b->t_lower = host_ns;
  }
}

static int cmp_bucket(const void *x, const void *y) {
  const ptf_bucket *a = x, *b = y;
  if (a->gpu != b->gpu)
    return a->gpu < b->gpu ? -1 : 1;
  return a->number < b->number ? -1 : a->number > b->number;
}

/* The drift of one GPU: the change of the upper envelope from its first
 * to its last bucket that has one (every minimum carries about the same
 * bias, which cancels), 0 over less than 0.4 s. */
static double drift_of(const ptf_bucket *b, size_t n) {
  const ptf_bucket *first = NULL, *last = NULL;
  for (size_t i = 0; i < n; i++)
    if (b[i].upper != INT64_MAX) {
      if (!first)
        first = &b[i];
      last = &b[i];
    }
  if (!first || last->t_upper - first->t_upper < MIN_SLOPE_BASE_NS)
    return 0;
  double slope = (double)(last->upper - first->upper) /
                 (double)(last->t_upper - first->t_upper);
  if (slope > MAX_SLOPE)
    slope = MAX_SLOPE;
  if (slope < -MAX_SLOPE)
    slope = -MAX_SLOPE;
  return slope;
}

bool ptf_finish(ptimer_fit *f) {
  if (f->finished)
    return !f->oom;
  f->finished = true;
  pair_map_free(&f->index);
  pair_map_init(&f->index);
  if (f->oom)
    return false;
  if (f->nbuckets > 1)
    qsort(f->buckets, f->nbuckets, sizeof *f->buckets, cmp_bucket);
  size_t ngpus = 0;
  for (size_t i = 0; i < f->nbuckets; i++)
    if (i == 0 || f->buckets[i].gpu != f->buckets[i - 1].gpu)
      ngpus++;
  f->gpus = calloc(ngpus ? ngpus : 1, sizeof *f->gpus);
  if (!f->gpus) {
    f->oom = true;
    return false;
  }
  for (size_t i = 0; i < f->nbuckets; i++) {
    if (i == 0 || f->buckets[i].gpu != f->buckets[i - 1].gpu)
      f->gpus[f->ngpus++] = (ptf_gpu){f->buckets[i].gpu, i, 0, 0};
    f->gpus[f->ngpus - 1].n++;
  }
  for (size_t g = 0; g < f->ngpus; g++)
    f->gpus[g].slope = drift_of(&f->buckets[f->gpus[g].first], f->gpus[g].n);
  return true;
}

static const ptf_gpu *gpu_of(const ptimer_fit *f, uint64_t gpu) {
  size_t lo = 0, hi = f->ngpus;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (f->gpus[mid].gpu < gpu)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < f->ngpus && f->gpus[lo].gpu == gpu ? &f->gpus[lo] : NULL;
}

static int64_t along(double slope, int64_t bound, int64_t at, int64_t near) {
  double d = slope * (double)(near - at);
  return bound + (int64_t)(d + (d >= 0 ? 0.5 : -0.5));
}

bool ptf_to_host(const ptimer_fit *f, uint64_t gpu, uint64_t ptimer,
                 int64_t near_ns, int64_t *host_ns, bool *anchored) {
  *anchored = false;
  const ptf_gpu *g = f->finished ? gpu_of(f, gpu) : NULL;
  if (!g)
    return false;
  const ptf_bucket *b = &f->buckets[g->first];
  int64_t number = floor_div(near_ns, BUCKET_NS);
  size_t lo = 0, hi = g->n; /* first bucket >= number - window */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b[mid].number < number - WINDOW_BUCKETS)
      lo = mid + 1;
    else
      hi = mid;
  }
  int64_t upper = INT64_MAX, lower = INT64_MIN;
  for (size_t i = lo; i < g->n && b[i].number <= number + WINDOW_BUCKETS; i++) {
    if (b[i].upper != INT64_MAX) {
      int64_t u = along(g->slope, b[i].upper, b[i].t_upper, near_ns);
      if (u < upper)
        upper = u;
    }
    if (b[i].lower != INT64_MIN) {
      int64_t l = along(g->slope, b[i].lower, b[i].t_lower, near_ns);
      if (l > lower)
        lower = l;
    }
  }
  /* a lower bound above the upper one, or far below it, comes from a
   * CUPTI clock that is not the trace's: not used */
  int64_t offset;
  if (lower != INT64_MIN &&
      (upper == INT64_MAX ||
       (lower <= upper && upper - lower <= MAX_BOUND_GAP_NS))) {
    offset = lower;
    *anchored = true;
  } else if (upper != INT64_MAX) {
    offset = upper;
  } else {
    return false;
  }
  *host_ns = (int64_t)ptimer + offset;
  return true;
}
