/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_link_fit_export.c — a link fit that failed the checks of
 * src/common/net_fit.h never reaches an exporter as a number: the
 * Prometheus text and the OTLP JSON carry latency, bandwidth and R² only
 * for the valid fit, and cclscope_link_fit_valid (cclscope.link.fit.valid)
 * says 1/ok for it and 0 with the check's name for the rejected one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "metrics_otlp.h"
#include "metrics_prom.h"

/* src 0 -> dst 1: a valid fit; src 2 -> dst 3: rejected (negative
 * latency, the numbers zeroed by net_fit_solve) */
static cs_metrics_snapshot two_links(cs_link_series links[2],
                                     cs_metrics_health *health,
                                     cs_metrics_steps *steps) {
  memset(links, 0, 2 * sizeof *links);
  links[0].src = 0;
  links[0].dst = 1;
  links[0].transfers_total = 10;
  links[0].bytes_total = 1000;
  links[0].has_fit = true;
  links[0].fit = (net_fit_result){.status = NET_FIT_OK,
                                  .latency_s = 2e-6,
                                  .bandwidth_bps = 12.5e9,
                                  .r2 = 0.999,
                                  .points = 5};
  links[1].src = 2;
  links[1].dst = 3;
  links[1].transfers_total = 10;
  links[1].bytes_total = 1000;
  links[1].has_fit = true;
  links[1].fit =
      (net_fit_result){.status = NET_FIT_NEGATIVE_LATENCY, .points = 4};
  memset(health, 0, sizeof *health);
  memset(steps, 0, sizeof *steps);
  return (cs_metrics_snapshot){.run_id = "r",
                               .hostname = "h",
                               .pid = 1,
                               .global_rank = -1,
                               .links = links,
                               .nlinks = 2,
                               .health = health,
                               .steps = steps};
}

/* Lines of `text` that start with `prefix` and contain `needle`. */
static int count_lines(const char *text, const char *prefix,
                       const char *needle) {
  int n = 0;
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s", (int)len, line);
    if (strncmp(buf, prefix, strlen(prefix)) == 0 && strstr(buf, needle))
      n++;
    line = end ? end + 1 : NULL;
  }
  return n;
}

static void prometheus_omits_rejected_fits(void **state) {
  (void)state;
  cs_link_series links[2];
  cs_metrics_health health;
  cs_metrics_steps steps;
  cs_metrics_snapshot snap = two_links(links, &health, &steps);
  cs_jbuf b;
  cs_jbuf_init(&b);
  cs_metrics_render_prometheus(&snap, &b);
  cs_jbuf_putc(&b, '\0');
  const char *t = b.data;
  const char *metrics[] = {"cclscope_link_latency_seconds{",
                           "cclscope_link_bandwidth_bytes_per_second{",
                           "cclscope_link_fit_r2{"};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(count_lines(t, metrics[i], "src_rank=\"0\""), 1);
    assert_int_equal(count_lines(t, metrics[i], "src_rank=\"2\""), 0);
  }
  assert_int_equal(count_lines(t, "cclscope_link_fit_valid{",
                               "src_rank=\"0\",dst_rank=\"1\",mode=\"min\","
                               "status=\"ok\"} 1"),
                   1);
  assert_int_equal(count_lines(t, "cclscope_link_fit_valid{",
                               "src_rank=\"2\",dst_rank=\"3\",mode=\"min\","
                               "status=\"negative-latency\"} 0"),
                   1);
  /* the counters of the rejected link are still there */
  assert_int_equal(
      count_lines(t, "cclscope_link_bytes_total{", "src_rank=\"2\""), 1);
  assert_null(strstr(t, "mode=\"avg\""));
  cs_jbuf_free(&b);
}

static void otlp_omits_rejected_fits(void **state) {
  (void)state;
  cs_link_series links[2];
  cs_metrics_health health;
  cs_metrics_steps steps;
  cs_metrics_snapshot snap = two_links(links, &health, &steps);
  cs_jbuf b;
  cs_jbuf_init(&b);
  cs_metrics_render_otlp(&snap, 1000, &b);
  cs_jbuf_putc(&b, '\0');
  const char *t = b.data;
  /* one latency and one bandwidth point (the valid link), two validity
   * points: rejected src 2 appears only in bytes and validity */
  const char *lat = strstr(t, "\"cclscope.link.latency\"");
  const char *bw = strstr(t, "\"cclscope.link.bandwidth\"");
  const char *valid = strstr(t, "\"cclscope.link.fit.valid\"");
  assert_non_null(lat);
  assert_non_null(bw);
  assert_non_null(valid);
  assert_true(lat < bw && bw < valid);
  char between[8192];
  snprintf(between, sizeof between, "%.*s", (int)(valid - lat), lat);
  assert_null(
      strstr(between, "\"nccl.dst_rank\",\"value\":{\"intValue\":\"3\"}"));
  assert_non_null(strstr(valid, "\"negative-latency\""));
  assert_non_null(strstr(valid, "\"ok\""));
  cs_jbuf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(prometheus_omits_rejected_fits),
      cmocka_unit_test(otlp_omits_rejected_fits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
