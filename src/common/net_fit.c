/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/net_fit.c — see net_fit.h.
 */
#include "net_fit.h"

#include <math.h>
#include <string.h>

void net_fit_init(net_fit_acc *a) {
  memset(a, 0, sizeof *a);
}

void net_fit_add(net_fit_acc *a, double bytes, double seconds) {
  if (!(seconds > 0) || !(bytes >= 0))
    return;
  a->n++;
  double n = (double)a->n;
  double dx = bytes - a->mean_x;
  double dy = seconds - a->mean_y;
  a->mean_x += dx / n;
  a->mean_y += dy / n;
  /* co-moments use the old delta of one and the new delta of the other */
  a->cxx += dx * (bytes - a->mean_x);
  a->cxy += dx * (seconds - a->mean_y);
  a->cyy += dy * (seconds - a->mean_y);
  double rate = bytes / seconds;
  if (rate > a->max_rate)
    a->max_rate = rate;
}

/* Student's t, two-sided 95 %, for `df` degrees of freedom (>= 1). */
static double t95(uint32_t df) {
  static const double table[30] = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df >= 1 && df <= 30)
    return table[df - 1];
  return 1.96 + 2.4 / (double)df; /* within 0.002 of the exact value */
}

/* Half-width of the intercept's 95 % confidence interval: t times its
 * standard error, s * sqrt(1/n + mean_x^2 / Sxx), s^2 = SSE / (n - 2). */
static double latency_halfwidth(const net_fit_acc *a) {
  double sse = a->cyy - a->cxy * a->cxy / a->cxx;
  if (!(sse > 0))
    return 0; /* the points lie on the line */
  double n = (double)a->n;
  double s2 = sse / (n - 2);
  double se = sqrt(s2 * (1.0 / n + a->mean_x * a->mean_x / a->cxx));
  return t95(a->n - 2) * se;
}

static net_fit_result rejected(net_fit_result r, net_fit_status why) {
  r.status = why;
  r.latency_s = 0;
  r.bandwidth_bps = 0;
  return r;
}

net_fit_result net_fit_solve(const net_fit_acc *a) {
  net_fit_result r;
  memset(&r, 0, sizeof r);
  r.points = a->n;
  if (a->n < NET_FIT_MIN_SIZES || !(a->cxx > 0))
    return rejected(r, NET_FIT_TOO_FEW_SIZES);
  double slope = a->cxy / a->cxx; /* seconds per byte */
  if (!(slope > 0))
    return rejected(r, NET_FIT_NOT_INCREASING);
  r.r2 = a->cyy > 0 ? (a->cxy * a->cxy) / (a->cxx * a->cyy) : 1.0;
  if (r.r2 < NET_FIT_MIN_R2)
    return rejected(r, NET_FIT_POOR_R2);
  double latency = a->mean_y - slope * a->mean_x;
  if (latency < -NET_FIT_LATENCY_TOLERANCE_S)
    return rejected(r, NET_FIT_NEGATIVE_LATENCY);
  double bandwidth = 1.0 / slope;
  if (bandwidth > NET_FIT_MAX_BANDWIDTH)
    return rejected(r, NET_FIT_ABOVE_CEILING);
  if (bandwidth > NET_FIT_MAX_RATE_FACTOR * a->max_rate)
    return rejected(r, NET_FIT_LATENCY_BOUND);
  r.latency_ci_s = latency_halfwidth(a);
  if (r.latency_ci_s > latency && r.latency_ci_s > NET_FIT_LATENCY_TOLERANCE_S)
    return rejected(r, NET_FIT_LATENCY_UNSUPPORTED);
  r.status = NET_FIT_OK;
  r.latency_s = latency > 0 ? latency : 0;
  r.bandwidth_bps = bandwidth;
  return r;
}

const char *net_fit_status_name(net_fit_status s) {
  switch (s) {
  case NET_FIT_OK:
    return "ok";
  case NET_FIT_TOO_FEW_SIZES:
    return "too-few-sizes";
  case NET_FIT_NOT_INCREASING:
    return "not-increasing";
  case NET_FIT_POOR_R2:
    return "poor-r2";
  case NET_FIT_NEGATIVE_LATENCY:
    return "negative-latency";
  case NET_FIT_LATENCY_BOUND:
    return "latency-bound";
  case NET_FIT_ABOVE_CEILING:
    return "above-ceiling";
  case NET_FIT_LATENCY_UNSUPPORTED:
    return "latency-unsupported";
  default:
    return "unknown";
  }
}

const char *net_fit_reason(net_fit_status s) {
  switch (s) {
  case NET_FIT_OK:
    return "fitted";
  case NET_FIT_TOO_FEW_SIZES:
    return "fewer than 3 distinct sizes";
  case NET_FIT_NOT_INCREASING:
    return "time does not grow with size";
  case NET_FIT_POOR_R2:
    return "R² below 0.9";
  case NET_FIT_NEGATIVE_LATENCY:
    return "latency below -1 us";
  case NET_FIT_LATENCY_BOUND:
    return "bandwidth above 5x the best transfer's bytes/time";
  case NET_FIT_ABOVE_CEILING:
    return "bandwidth above 1 TB/s";
  case NET_FIT_LATENCY_UNSUPPORTED:
    return "latency not supported by the points (its 95 % interval is wider "
           "than the latency and than 1 us)";
  default:
    return "unknown";
  }
}
