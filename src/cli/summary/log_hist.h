/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/log_hist.h — quantiles of durations with bounded memory.
 *
 * A log-bucket histogram (HDR-style): values below 128 are counted exactly;
 * a value v >= 128 with leading bit e falls into one of 128 equal
 * sub-buckets of [2^e, 2^(e+1)), each 2^(e-7) wide. A quantile is reported
 * as the midpoint of its bucket (clamped to the exact min and max), so its
 * relative error is at most 2^-8 = 0.39 %. Rows of 128 counters are
 * allocated only for the magnitudes that occur (512 bytes each; a
 * histogram of durations between 1 us and 1 s uses at most 11 rows).
 * Count, sum, min and max are exact.
 */
#ifndef CCLSCOPE_CLI_LOG_HIST_H
#define CCLSCOPE_CLI_LOG_HIST_H

#include <stdbool.h>
#include <stdint.h>

#define LHIST_SUB_BITS 7
#define LHIST_SUB (1 << LHIST_SUB_BITS)
#define LHIST_ROWS (64 - LHIST_SUB_BITS + 1)

typedef struct {
  uint64_t count;
  int64_t min;
  int64_t max;
  double sum;
  uint32_t *rows[LHIST_ROWS];
} lhist;

void lhist_init(lhist *h);
void lhist_free(lhist *h);
/* Add a value (negative values count as 0). False when out of memory. */
bool lhist_add(lhist *h, int64_t v);
/* q in [0,1]; 0 when empty. */
int64_t lhist_quantile(const lhist *h, double q);
double lhist_mean(const lhist *h);
/* Add every count of `src` into `dst`. */
bool lhist_merge(lhist *dst, const lhist *src);

#endif
