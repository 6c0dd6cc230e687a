/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/stats.h — the statistic the metrics are made of:
 *
 *  - a log-bucketed histogram of durations (4 buckets per octave from 1 µs,
 *    so a quantile read from it is within ~9 % of the truth; exported to
 *    Prometheus/OTLP with the octave bounds 1 µs × 2^k).
 * The link fit lives in src/common/net_fit.c (shared with the CLI).
 */
#ifndef CCLSCOPE_STATS_H
#define CCLSCOPE_STATS_H

#include <stdint.h>

#define CS_HIST_PER_OCTAVE 4
#define CS_HIST_OCTAVES 27 /* 1 µs .. ~134 s; more goes to the last bucket */
#define CS_HIST_BUCKETS (CS_HIST_PER_OCTAVE * CS_HIST_OCTAVES + 1)

typedef struct {
  uint64_t count;
  double sum_s;
  uint64_t buckets[CS_HIST_BUCKETS]; /* not cumulative */
} cs_hist;

void cs_hist_add(cs_hist *h, double seconds);
/* Upper bound (seconds) of fine bucket i (+inf for the last). */
double cs_hist_upper(int i);
/* Quantile q in [0,1], seconds (geometric middle of its bucket); 0 if empty. */
double cs_hist_quantile(const cs_hist *h, double q);
/* Count of values <= 1 µs × 2^octave (for exposition with octave bounds). */
uint64_t cs_hist_count_le_octave(const cs_hist *h, int octave);

#endif
