/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/common/test_net_fit.c — the shared link fit (src/common/net_fit.c):
 * it recovers a known latency and bandwidth from the fastest transfer per
 * size, including when slower (queued) transfers exist, and every check
 * that keeps an unphysical or unsupported fit out of the outputs rejects
 * what it should and nothing else.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "net_fit.h"

/* The emulator's default link: 2 us + bytes / 12.5 GB/s. */
static double model(double bytes) {
  return 2e-6 + bytes / 12.5e9;
}

static net_fit_result fit_sizes(const double *sizes, int n,
                                double (*time_of)(double)) {
  net_fit_acc a;
  net_fit_init(&a);
  for (int i = 0; i < n; i++)
    net_fit_add(&a, sizes[i], time_of(sizes[i]));
  return net_fit_solve(&a);
}

static const double step_sizes[] = {2048,   16384,  131072,
                                    262144, 524288, 1048576};

static void recovers_the_model(void **state) {
  (void)state;
  net_fit_result r = fit_sizes(step_sizes, 6, model);
  assert_int_equal(r.status, NET_FIT_OK);
  assert_true(fabs(r.latency_s - 2e-6) < 1e-9);
  assert_true(fabs(r.bandwidth_bps - 12.5e9) / 12.5e9 < 1e-6);
  assert_true(r.r2 > 0.999999);
  assert_int_equal(r.points, 6);
}

/* The fastest of several transfers per size: queueing only adds time. */
static void fastest_per_size_ignores_queueing(void **state) {
  (void)state;
  net_fit_acc a;
  net_fit_init(&a);
  uint64_t seed = 7;
  for (int i = 0; i < 6; i++) {
    double best = INFINITY;
    for (int k = 0; k < 20; k++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      double queued = (double)(seed >> 40) / (double)(1u << 24) * 50e-6;
      double t = model(step_sizes[i]) + (k == 3 ? 0 : queued + 1e-6);
      if (t < best)
        best = t;
    }
    net_fit_add(&a, step_sizes[i], best);
  }
  net_fit_result r = net_fit_solve(&a);
  assert_int_equal(r.status, NET_FIT_OK);
  assert_true(fabs(r.latency_s - 2e-6) / 2e-6 < 0.1);
  assert_true(fabs(r.bandwidth_bps - 12.5e9) / 12.5e9 < 0.1);
}

static void too_few_sizes(void **state) {
  (void)state;
  net_fit_result r = fit_sizes(step_sizes, 2, model);
  assert_int_equal(r.status, NET_FIT_TOO_FEW_SIZES);
  assert_true(r.latency_s == 0 && r.bandwidth_bps == 0);
  assert_int_equal(r.points, 2);
  /* the same size three times is one size */
  double same[] = {4096, 4096, 4096};
  assert_int_equal(fit_sizes(same, 3, model).status, NET_FIT_TOO_FEW_SIZES);
  /* points without a positive time are not points */
  net_fit_acc a;
  net_fit_init(&a);
  net_fit_add(&a, 1024, 0);
  net_fit_add(&a, 2048, -1);
  net_fit_add(&a, 4096, NAN);
  assert_int_equal(a.n, 0);
  assert_int_equal(net_fit_solve(&a).status, NET_FIT_TOO_FEW_SIZES);
}

static double shrinking(double bytes) {
  return 100e-6 - bytes / 1e11;
}

static void time_must_grow(void **state) {
  (void)state;
  assert_int_equal(fit_sizes(step_sizes, 6, shrinking).status,
                   NET_FIT_NOT_INCREASING);
}

/* Receive-side-like data: big sizes arrive fast (pipelined), small ones
 * wait for the sender. The line through them goes below zero. */
static double negative(double bytes) {
  return -20e-6 + bytes / 1e9;
}

static double slightly_negative(double bytes) {
  return -0.5e-6 + bytes / 1e9;
}

static void negative_latency(void **state) {
  (void)state;
  double sizes[] = {65536, 262144, 1048576};
  net_fit_result r = fit_sizes(sizes, 3, negative);
  assert_int_equal(r.status, NET_FIT_NEGATIVE_LATENCY);
  assert_true(r.latency_s == 0 && r.bandwidth_bps == 0);
  /* within the tolerance: noise around zero, reported as 0 */
  r = fit_sizes(sizes, 3, slightly_negative);
  assert_int_equal(r.status, NET_FIT_OK);
  assert_true(r.latency_s == 0);
  assert_true(fabs(r.bandwidth_bps - 1e9) / 1e9 < 1e-6);
}

static void poor_r2(void **state) {
  (void)state;
  net_fit_acc a;
  net_fit_init(&a);
  /* time grows a little with size, but mostly scatters */
  net_fit_add(&a, 1000, 100e-6);
  net_fit_add(&a, 2000, 10e-6);
  net_fit_add(&a, 3000, 150e-6);
  net_fit_add(&a, 4000, 40e-6);
  net_fit_add(&a, 5000, 160e-6);
  net_fit_result r = net_fit_solve(&a);
  assert_int_equal(r.status, NET_FIT_POOR_R2);
  assert_true(r.r2 < NET_FIT_MIN_R2);
  assert_true(r.bandwidth_bps == 0);
}

/* Latency-bound transfers: 50 us each, the bytes change the time by
 * nanoseconds. The slope says hundreds of GB/s, the transfers never moved
 * more than 5 GB/s: the bandwidth is not measured. */
static double latency_bound(double bytes) {
  return 50e-6 + bytes / 400e9;
}

static void bandwidth_beyond_the_transfers(void **state) {
  (void)state;
  double sizes[] = {4096, 16384, 65536, 262144};
  net_fit_result r = fit_sizes(sizes, 4, latency_bound);
  assert_int_equal(r.status, NET_FIT_LATENCY_BOUND);
  assert_true(r.bandwidth_bps == 0);
}

/* Above 1 TB/s: no network link; even with transfers that fast. */
static double too_fast(double bytes) {
  return 1e-9 + bytes / 3e12;
}

static void bandwidth_ceiling(void **state) {
  (void)state;
  net_fit_result r = fit_sizes(step_sizes, 6, too_fast);
  assert_int_equal(r.status, NET_FIT_ABOVE_CEILING);
  assert_true(r.bandwidth_bps == 0);
}

/* A latency the points do not support: four sizes where the bytes
 * dominate the time, scattered by queueing (R² 0.981), give 7.5 us for a
 * link of 1 us + bytes / 12.5 GB/s; its 95 % interval is +-42 us. */
static void latency_not_supported(void **state) {
  (void)state;
  net_fit_acc a;
  net_fit_init(&a);
  net_fit_add(&a, 262144, 40.7e-6);
  net_fit_add(&a, 524288, 43.1e-6);
  net_fit_add(&a, 1048576, 88.4e-6);
  net_fit_add(&a, 2097152, 187.7e-6);
  net_fit_result r = net_fit_solve(&a);
  assert_true(r.r2 > 0.98 && r.r2 < 0.982);
  assert_int_equal(r.status, NET_FIT_LATENCY_UNSUPPORTED);
  assert_true(r.latency_s == 0 && r.bandwidth_bps == 0);
  assert_true(r.latency_ci_s > 40e-6 && r.latency_ci_s < 45e-6);
  assert_string_equal(net_fit_status_name(r.status), "latency-unsupported");
}

/* Small noise, but a small latency against it: 1.2 us +- 1.5 us (three
 * sizes: t = 12.7) could be 0; not a measured latency. */
static void latency_within_its_noise(void **state) {
  (void)state;
  net_fit_acc a;
  net_fit_init(&a);
  net_fit_add(&a, 1048576, 1.2e-6 + 1048576 / 12.5e9 + 0.1e-6);
  net_fit_add(&a, 4194304, 1.2e-6 + 4194304 / 12.5e9 - 0.15e-6);
  net_fit_add(&a, 16777216, 1.2e-6 + 16777216 / 12.5e9 + 0.05e-6);
  net_fit_result r = net_fit_solve(&a);
  assert_int_equal(r.status, NET_FIT_LATENCY_UNSUPPORTED);
}

/* The same shapes that the points do support stay: the model itself at
 * sizes where the bytes dominate (the line is exact), and a latency well
 * above its interval (the queueing test above, 2 us). */
static void latency_supported(void **state) {
  (void)state;
  double big[] = {1048576, 4194304, 16777216};
  net_fit_result r = fit_sizes(big, 3, model);
  assert_int_equal(r.status, NET_FIT_OK);
  assert_true(fabs(r.latency_s - 2e-6) < 1e-9);
  assert_true(r.latency_ci_s < 1e-9);
  net_fit_acc a;
  net_fit_init(&a);
  double jitter[] = {0.3e-6, -0.2e-6, 0.1e-6, -0.3e-6, 0.2e-6, 0};
  for (int i = 0; i < 6; i++)
    net_fit_add(&a, step_sizes[i], model(step_sizes[i]) + jitter[i]);
  r = net_fit_solve(&a);
  assert_int_equal(r.status, NET_FIT_OK);
  assert_true(r.latency_ci_s > 0 && r.latency_ci_s < r.latency_s);
}

static void names_and_reasons(void **state) {
  (void)state;
  for (int s = 0; s < NET_FIT_STATUS_COUNT; s++) {
    assert_string_not_equal(net_fit_status_name((net_fit_status)s), "unknown");
    assert_string_not_equal(net_fit_reason((net_fit_status)s), "unknown");
  }
  assert_string_equal(net_fit_status_name(NET_FIT_OK), "ok");
  assert_string_equal(net_fit_status_name(NET_FIT_NEGATIVE_LATENCY),
                      "negative-latency");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(recovers_the_model),
      cmocka_unit_test(fastest_per_size_ignores_queueing),
      cmocka_unit_test(too_few_sizes),
      cmocka_unit_test(time_must_grow),
      cmocka_unit_test(negative_latency),
      cmocka_unit_test(poor_r2),
      cmocka_unit_test(bandwidth_beyond_the_transfers),
      cmocka_unit_test(bandwidth_ceiling),
      cmocka_unit_test(latency_not_supported),
      cmocka_unit_test(latency_within_its_noise),
      cmocka_unit_test(latency_supported),
      cmocka_unit_test(names_and_reasons),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
