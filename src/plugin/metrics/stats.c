/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/stats.c — see stats.h.
 */
#include "stats.h"

#include <math.h>

static int bucket_of(double seconds) {
  if (!(seconds > 1e-6))
    return 0;
  int i = (int)ceil(log2(seconds / 1e-6) * CS_HIST_PER_OCTAVE);
  if (i < 0)
    return 0;
  if (i >= CS_HIST_BUCKETS - 1)
    return CS_HIST_BUCKETS - 1;
  return i;
}

double cs_hist_upper(int i) {
  if (i >= CS_HIST_BUCKETS - 1)
    return INFINITY;
  return 1e-6 * exp2((double)i / CS_HIST_PER_OCTAVE);
}

void cs_hist_add(cs_hist *h, double seconds) {
  h->buckets[bucket_of(seconds)]++;
  h->count++;
  h->sum_s += seconds > 0 ? seconds : 0;
}

double cs_hist_quantile(const cs_hist *h, double q) {
  if (h->count == 0)
    return 0;
  uint64_t rank = (uint64_t)ceil(q * (double)h->count);
  if (rank == 0)
    rank = 1;
  uint64_t seen = 0;
  for (int i = 0; i < CS_HIST_BUCKETS; i++) {
    seen += h->buckets[i];
    if (seen >= rank) {
      if (i == 0)
        return 1e-6;
      if (i == CS_HIST_BUCKETS - 1)
        return cs_hist_upper(i - 1);
      return sqrt(cs_hist_upper(i - 1) * cs_hist_upper(i));
    }
  }
  return cs_hist_upper(CS_HIST_BUCKETS - 2);
}

uint64_t cs_hist_count_le_octave(const cs_hist *h, int octave) {
  uint64_t n = 0;
  int last = octave * CS_HIST_PER_OCTAVE;
  for (int i = 0; i <= last && i < CS_HIST_BUCKETS - 1; i++)
    n += h->buckets[i];
  return n;
}
