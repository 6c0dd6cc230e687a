/*
 * src/cli/summary/fit.h — least-squares line fit y = intercept + slope * x.
 *
 * Streaming and numerically stable (Welford-style running means and
 * co-moments), so points need not be kept. Used for the network model
 * time = latency + size / bandwidth: x = bytes, y = microseconds, so
 * latency = intercept (us) and bandwidth = 1 / slope (bytes/us = MB/s).
 */
#ifndef CCLSCOPE_CLI_FIT_H
#define CCLSCOPE_CLI_FIT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  uint64_t n;
  double mean_x, mean_y;
  double cxx, cxy, cyy; /* sums of (x-mx)^2, (x-mx)(y-my), (y-my)^2 */
} lsq;

typedef struct {
  bool ok;          /* at least two distinct x values */
  double intercept; /* y at x = 0 */
  double slope;     /* dy/dx */
  double r2;        /* coefficient of determination, 1 for a perfect fit */
  uint64_t n;
} lsq_result;

void lsq_init(lsq *s);
void lsq_add(lsq *s, double x, double y);
lsq_result lsq_solve(const lsq *s);

#endif
