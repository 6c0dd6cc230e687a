/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/net_fit.h — the network link model time = latency + bytes /
 * bandwidth, fitted by least squares on one point per distinct transfer
 * size (the fastest send transfer of that size: queueing and stalls only
 * add time, so the fastest is the closest to what the link itself does),
 * and the checks that decide whether the fit describes a link at all.
 * Shared by the plugin's metrics (src/plugin/metrics/metrics.c) and the
 * CLI's summary (src/cli/summary/summary_network.c), so both say the same
 * thing about the same transfers. Pure: no allocation, no lock, no I/O.
 *
 * A fit is rejected (status other than NET_FIT_OK, latency and bandwidth
 * then 0 and not to be shown or exported) when:
 *   - it has fewer than NET_FIT_MIN_SIZES distinct sizes (two points always
 *     fit exactly, so nothing could be checked);
 *   - time does not grow with size (slope <= 0: no bandwidth);
 *   - R² is below NET_FIT_MIN_R2 (the points are not on a line);
 *   - the latency is below -NET_FIT_LATENCY_TOLERANCE_S (a latency in
 *     [-tolerance, 0) is noise around zero and is reported as 0);
 *   - the bandwidth is above NET_FIT_MAX_RATE_FACTOR times the best
 *     throughput (bytes / time) of any of its transfers: the transfers are
 *     latency-bound and do not measure bandwidth;
 *   - the bandwidth is above NET_FIT_MAX_BANDWIDTH (no network link is that
 *     fast; NCCL records no steps for intra-node transports);
 *   - the points do not support the latency: the half-width of its 95 %
 *     confidence interval (Student's t with points - 2 degrees of freedom
 *     times the intercept's standard error, from the residuals) is larger
 *     than the latency and than NET_FIT_LATENCY_TOLERANCE_S. A latency is
 *     the line's value at zero bytes: when the points scatter, or when they
 *     all lie where the bytes dominate the time, it is an extrapolation the
 *     points do not pin down (7 us fitted for 1 us, at R² 0.98).
 * docs/cli.md "Network" and docs/metrics.md "Links" explain the choices.
 */
#ifndef CCLSCOPE_NET_FIT_H
#define CCLSCOPE_NET_FIT_H

#include <stdint.h>

#define NET_FIT_MIN_SIZES 3
#define NET_FIT_MIN_R2 0.9
#define NET_FIT_LATENCY_TOLERANCE_S 1e-6
#define NET_FIT_MAX_RATE_FACTOR 5.0
#define NET_FIT_MAX_BANDWIDTH 1e12 /* bytes per second: 1 TB/s */

/* Running sums of the points (Welford-style means and co-moments). */
typedef struct {
  uint32_t n;
  double mean_x, mean_y;
  double cxx, cxy, cyy;
  double max_rate; /* the best bytes / seconds of any point */
} net_fit_acc;

typedef enum {
  NET_FIT_OK = 0,
  NET_FIT_TOO_FEW_SIZES,
  NET_FIT_NOT_INCREASING,
  NET_FIT_POOR_R2,
  NET_FIT_NEGATIVE_LATENCY,
  NET_FIT_LATENCY_BOUND,
  NET_FIT_ABOVE_CEILING,
  NET_FIT_LATENCY_UNSUPPORTED,
  NET_FIT_STATUS_COUNT
} net_fit_status;

typedef struct {
  net_fit_status status;
  double latency_s;     /* >= 0 when NET_FIT_OK, else 0 */
  double bandwidth_bps; /* bytes per second, > 0 when NET_FIT_OK, else 0 */
  double r2;            /* when the line could be computed, else 0 */
  /* half-width of the latency's 95 % confidence interval (s), when the
   * line could be computed, else 0 */
  double latency_ci_s;
  uint32_t points; /* distinct sizes */
} net_fit_result;

void net_fit_init(net_fit_acc *a);
/* One point: `bytes` moved in `seconds` (> 0; other points are ignored).
 * Add one point per distinct size. */
void net_fit_add(net_fit_acc *a, double bytes, double seconds);
net_fit_result net_fit_solve(const net_fit_acc *a);

/* "too-few-sizes", ... : for JSON fields and metric labels ("ok" for OK). */
const char *net_fit_status_name(net_fit_status s);
/* A sentence for people: "fewer than 3 distinct sizes", ... */
const char *net_fit_reason(net_fit_status s);

#endif
