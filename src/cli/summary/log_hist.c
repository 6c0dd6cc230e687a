/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/log_hist.c — the log-bucket histogram (see log_hist.h for the
 * error).
 */
#include "summary/log_hist.h"

#include <stdlib.h>
#include <string.h>

void lhist_init(lhist *h) {
  memset(h, 0, sizeof *h);
}

void lhist_free(lhist *h) {
  for (int r = 0; r < LHIST_ROWS; r++)
    free(h->rows[r]);
  memset(h, 0, sizeof *h);
}

/* Row and sub-bucket of a value >= 0. Row 0 holds 0..127 exactly. */
static void locate(uint64_t v, int *row, int *sub) {
  if (v < LHIST_SUB) {
    *row = 0;
    *sub = (int)v;
    return;
  }
  int e = 63 - __builtin_clzll(v);
  *row = e - LHIST_SUB_BITS + 1;
  *sub = (int)((v >> (e - LHIST_SUB_BITS)) & (LHIST_SUB - 1));
}

/* Midpoint of a bucket (the reported value). */
static int64_t bucket_mid(int row, int sub) {
  if (row == 0)
    return sub;
  int e = row + LHIST_SUB_BITS - 1;
  uint64_t width = 1ull << (e - LHIST_SUB_BITS);
  uint64_t low = (uint64_t)(LHIST_SUB + sub) << (e - LHIST_SUB_BITS);
  return (int64_t)(low + width / 2);
}

static bool add_count(lhist *h, int row, int sub, uint64_t n) {
  if (!h->rows[row]) {
    h->rows[row] = calloc(LHIST_SUB, sizeof(uint32_t));
    if (!h->rows[row])
      return false;
  }
  uint64_t c = h->rows[row][sub] + n;
  h->rows[row][sub] = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
  return true;
}

bool lhist_add(lhist *h, int64_t v) {
  if (v < 0)
    v = 0;
  int row, sub;
  locate((uint64_t)v, &row, &sub);
  if (!add_count(h, row, sub, 1))
    return false;
  if (h->count == 0 || v < h->min)
    h->min = v;
  if (h->count == 0 || v > h->max)
    h->max = v;
  h->count++;
  h->sum += (double)v;
  return true;
}

int64_t lhist_quantile(const lhist *h, double q) {
  if (h->count == 0)
    return 0;
  if (q <= 0)
    return h->min;
  if (q >= 1)
    return h->max;
  uint64_t rank = (uint64_t)(q * (double)h->count);
  if ((double)rank < q * (double)h->count)
    rank++; /* ceil */
  if (rank < 1)
    rank = 1;
  uint64_t seen = 0;
  for (int r = 0; r < LHIST_ROWS; r++) {
    if (!h->rows[r])
      continue;
    for (int s = 0; s < LHIST_SUB; s++) {
      seen += h->rows[r][s];
      if (seen >= rank) {
        int64_t v = bucket_mid(r, s);
        if (v < h->min)
          v = h->min;
        if (v > h->max)
          v = h->max;
        return v;
      }
    }
  }
  return h->max;
}

double lhist_mean(const lhist *h) {
  return h->count ? h->sum / (double)h->count : 0.0;
}

bool lhist_merge(lhist *dst, const lhist *src) {
  for (int r = 0; r < LHIST_ROWS; r++) {
    if (!src->rows[r])
      continue;
    for (int s = 0; s < LHIST_SUB; s++)
      if (src->rows[r][s] && !add_count(dst, r, s, src->rows[r][s]))
        return false;
  }
  if (src->count) {
    if (dst->count == 0 || src->min < dst->min)
      dst->min = src->min;
    if (dst->count == 0 || src->max > dst->max)
      dst->max = src->max;
  }
  dst->count += src->count;
  dst->sum += src->sum;
  return true;
}
