/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_otlp_env.c — the OTLP push's settings
 * (src/plugin/metrics/otlp_env.c) and how messages quote what users give
 * (cs_log_show, cs_log_printable in src/plugin/log.c):
 *
 * - the %XX decoder and the OTEL_* list reader (trimming, decoded keys, a
 *   decoded %00 counted);
 * - headers: a decoded CR, LF, NUL or other control character in a value,
 *   or a name that is not an HTTP token, is refused with one warning naming
 *   the variable and the header, the others are kept as header lines;
 * - warnings name the variable that was read (the _METRICS_ one when it
 *   wins) and show no control character;
 * - an endpoint that would end libcurl's request line early is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "log.h"
#include "otlp_env.h"

/* ---- warnings ---- */

enum { MAX_WARNINGS = 16 };
static struct {
  int count;
  char text[MAX_WARNINGS][1100];
} warned;

static void keep_warning(const char *text) {
  if (warned.count < MAX_WARNINGS)
    snprintf(warned.text[warned.count], sizeof warned.text[0], "%s", text);
  warned.count++;
}

/* No byte below 0x20 and no 0x7F in any warning kept. */
static void assert_warnings_printable(void) {
  for (int i = 0; i < warned.count && i < MAX_WARNINGS; i++)
    for (const char *p = warned.text[i]; *p; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7F)
        fail_msg("warning %d holds byte 0x%02x: %s", i, (unsigned char)*p,
                 warned.text[i]);
}

/* Exactly one warning, holding every one of the NULL-terminated `parts`. */
static void assert_one_warning_with(const char *context, ...) {
  if (warned.count != 1)
    fail_msg("%s: %d warnings, expected one (first: %s)", context, warned.count,
             warned.count ? warned.text[0] : "-");
  va_list ap;
  va_start(ap, context);
  for (const char *part = va_arg(ap, const char *); part;
       part = va_arg(ap, const char *))
    if (!strstr(warned.text[0], part))
      fail_msg("%s: the warning '%s' lacks '%s'", context, warned.text[0],
               part);
  va_end(ap);
  assert_warnings_printable();
}

static const char *const otel_variables[] = {
    "OTEL_EXPORTER_OTLP_HEADERS",     "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
    "OTEL_EXPORTER_OTLP_PROTOCOL",    "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
    "OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION",
    "CCLSCOPE_OTLP_ENDPOINT",         "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
};

static int setup(void **state) {
  (void)state;
  memset(&warned, 0, sizeof warned);
  for (size_t i = 0; i < sizeof otel_variables / sizeof otel_variables[0]; i++)
    unsetenv(otel_variables[i]);
  cs_log_set_warning_sink(keep_warning);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  cs_log_set_warning_sink(NULL);
  for (size_t i = 0; i < sizeof otel_variables / sizeof otel_variables[0]; i++)
    unsetenv(otel_variables[i]);
  return 0;
}

/* ---- the decoder and the list reader ---- */

static void percent_decoding(void **state) {
  (void)state;
  static const struct {
    const char *in, *out;
    size_t len; /* decoded length (a %00 counts) */
  } cases[] = {
      {"plain", "plain", 5},
      {"ml%20infra", "ml infra", 8},
      {"a%2Cb%3dc", "a,b=c", 5},
      {"%0d%0A", "\r\n", 2},
      {"%e2%82%AC", "\xe2\x82\xac", 3},
      {"100%", "100%", 4},       /* no digits after it: kept */
      {"50%2", "50%2", 4},       /* one digit: kept */
      {"%zz%g0", "%zz%g0", 6},   /* not hex: kept */
      {"%%41", "%A", 2},         /* the first '%' has no digits */
      {"+ stays", "+ stays", 7}, /* not a form encoding */
      {"a%00b", "a", 3},         /* the NUL is counted, C text stops */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[64];
    size_t n = cs_otlp_percent_decode(cases[i].in, strlen(cases[i].in), out,
                                      sizeof out);
    if (n != cases[i].len || strcmp(out, cases[i].out) != 0)
      fail_msg("'%s' decoded to '%s' (%zu bytes), expected %zu bytes",
               cases[i].in, out, n, cases[i].len);
  }
  /* Only the given length is read, and the output is always terminated. */
  char out[4];
  assert_int_equal(cs_otlp_percent_decode("%41%42", 3, out, sizeof out), 1);
  assert_string_equal(out, "A");
  assert_int_equal(cs_otlp_percent_decode("abcdef", 6, out, sizeof out), 3);
  assert_string_equal(out, "abc");
}

enum { MAX_PAIRS = 8 };
typedef struct {
  int n;
  char written[MAX_PAIRS][64], key[MAX_PAIRS][64], value[MAX_PAIRS][64];
  size_t key_len[MAX_PAIRS], value_len[MAX_PAIRS];
} pairs_seen;

static void keep_pair(const cs_otlp_pair *p, void *arg) {
  pairs_seen *seen = arg;
  assert_true(seen->n < MAX_PAIRS);
  snprintf(seen->written[seen->n], 64, "%s", p->written_key);
  snprintf(seen->key[seen->n], 64, "%s", p->key);
  snprintf(seen->value[seen->n], 64, "%s", p->value);
  seen->key_len[seen->n] = p->key_len;
  seen->value_len[seen->n] = p->value_len;
  seen->n++;
}

static void list_reading(void **state) {
  (void)state;
  pairs_seen seen = {0};
  assert_true(cs_otlp_each_pair(" a = 1 ,\tb%2Dc\t=x%3Dy, noequals ,=v, "
                                "d=e=f,empty=,%20s%20=%20t%20,z=%00",
                                keep_pair, &seen));
  assert_int_equal(seen.n, 6);
  assert_string_equal(seen.key[0], "a");
  assert_string_equal(seen.value[0], "1");
  assert_string_equal(seen.written[1], "b%2Dc");
  assert_string_equal(seen.key[1], "b-c");
  assert_string_equal(seen.value[1], "x=y");
  assert_string_equal(seen.key[2], "d");
  assert_string_equal(seen.value[2], "e=f"); /* the first '=' splits */
  assert_string_equal(seen.key[3], "empty");
  assert_int_equal(seen.value_len[3], 0);
  /* Encoded spaces are the user's: only written ones are trimmed. */
  assert_string_equal(seen.key[4], " s ");
  assert_string_equal(seen.value[4], " t ");
  assert_string_equal(seen.key[5], "z");
  assert_int_equal(seen.value_len[5], 1); /* the decoded NUL */

  /* A list too long to read: no pair, and false. */
  char long_list[CS_OTLP_LIST_MAX + 1];
  memset(long_list, 'k', sizeof long_list - 1);
  long_list[1] = '=';
  long_list[sizeof long_list - 1] = '\0';
  seen.n = 0;
  assert_false(cs_otlp_each_pair(long_list, keep_pair, &seen));
  assert_int_equal(seen.n, 0);
  long_list[CS_OTLP_LIST_MAX - 1] = '\0';
  assert_true(cs_otlp_each_pair(long_list, keep_pair, &seen));
  assert_int_equal(seen.n, 1);
  assert_true(cs_otlp_each_pair(NULL, keep_pair, &seen));
}

/* ---- headers ---- */

static void header_refusals(void **state) {
  (void)state;
  static const struct {
    const char *key;
    size_t key_len;
    const char *value;
    size_t value_len;
    bool refused;
  } cases[] = {
      {"Authorization", 13, "Bearer abc", 10, false},
      {"x-tab", 5, "a\tb", 3, false},
      {"x-utf8", 6, "\xe2\x82\xac", 3, false},
      {"x!#$%&'*+-.^_`|~9", 17, "v", 1, false},
      {"x-empty", 7, "", 0, false},
      {"a", 1, "b\r\nX-Injected: 1", 16, true},
      {"a", 1, "b\nX-Injected: 1", 15, true},
      {"a", 1, "b\rc", 3, true},
      {"a", 1, "b\0c", 3, true},
      {"a", 1, "\x1b[31m", 5, true},
      {"a", 1, "del\x7f", 4, true},
      {"a b", 3, "v", 1, true},
      {"a:b", 3, "v", 1, true},
      {"a\r\nX-Injected", 13, "1", 1, true},
      {"a\0b", 3, "v", 1, true},
      {"x(y)", 4, "v", 1, true},
      {"x\xc3\xa9", 3, "v", 1, true},
      {"content-length", 14, "5", 1, true},
      {"Transfer-Encoding", 17, "chunked", 7, true},
      {"CONTENT-TYPE", 12, "text/plain", 10, true},
      {"Content-Encoding", 16, "br", 2, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cs_otlp_pair p = {.written_key = cases[i].key,
                      .key = cases[i].key,
                      .key_len = cases[i].key_len,
                      .value = cases[i].value,
                      .value_len = cases[i].value_len};
    const char *why = cs_otlp_header_refusal(&p);
    if ((why != NULL) != cases[i].refused)
      fail_msg("case %zu (%s): %s", i, cases[i].key,
               why ? why : "accepted, expected refused");
  }
}

/* The header lines of `h`, joined with '|'. */
static void joined_lines(const cs_otlp_headers *h, char *out, size_t outlen) {
  out[0] = '\0';
  int n = 0;
  for (const char *line = h->lines; line < h->lines + h->used;
       line += strlen(line) + 1, n++) {
    size_t used = strlen(out);
    snprintf(out + used, outlen - used, "%s%s", n ? "|" : "", line);
  }
  assert_int_equal(n, h->count);
}

/* The reproduction, percent-encoded and raw: the injected line is
 * refused with a warning, the good headers around it are sent. */
static void injected_headers_refused(void **state) {
  (void)state;
  static const char *const lists[] = {
      "good=yes,a=b%0d%0aX-Injected: 1,also=fine",
      "good=yes,a=b\r\nX-Injected: 1,also=fine",
      "good=yes,a=b%0aX-Injected: 1,also=fine",
      "good=yes,a=b%00X-Injected: 1,also=fine",
  };
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
    cs_otlp_headers h;
    char lines[512];
    warned.count = 0;
    cs_otlp_headers_parse("OTEL_EXPORTER_OTLP_HEADERS", lists[i], &h);
    joined_lines(&h, lines, sizeof lines);
    assert_string_equal(lines, "good: yes|also: fine");
    assert_one_warning_with(lists[i], "OTEL_EXPORTER_OTLP_HEADERS",
                            "header 'a' is not sent", NULL);
  }
}

static void header_lines(void **state) {
  (void)state;
  cs_otlp_headers h;
  char lines[512];
  cs_otlp_headers_parse("OTEL_EXPORTER_OTLP_HEADERS",
                        " api-key = s%3Dcret ,x-empty=,x-tab=a%09b", &h);
  joined_lines(&h, lines, sizeof lines);
  /* "Name;" sends an empty header with libcurl ("Name:" removes one). */
  assert_string_equal(lines, "api-key: s=cret|x-empty;|x-tab: a\tb");
  assert_int_equal(warned.count, 0);
  cs_otlp_headers_parse("OTEL_EXPORTER_OTLP_HEADERS", NULL, &h);
  assert_int_equal(h.count, 0);
  assert_int_equal(h.used, 0);
}

/* The warning shows the name as written, control characters as '?'. */
static void refused_name_shown_printable(void **state) {
  (void)state;
  cs_otlp_headers h;
  cs_otlp_headers_parse("OTEL_EXPORTER_OTLP_HEADERS", "X\x1b[2J\x7fY=1,X%0AZ=2",
                        &h);
  assert_int_equal(h.count, 0);
  assert_int_equal(warned.count, 2);
  assert_non_null(strstr(warned.text[0], "header 'X?[2J?Y' is not sent"));
  assert_non_null(strstr(warned.text[1], "header 'X%0AZ' is not sent"));
  assert_warnings_printable();
}

static void too_long_header_list(void **state) {
  (void)state;
  char list[CS_OTLP_LIST_MAX + 10];
  memset(list, 'v', sizeof list - 1);
  memcpy(list, "k=", 2);
  list[sizeof list - 1] = '\0';
  cs_otlp_headers h;
  cs_otlp_headers_parse("OTEL_EXPORTER_OTLP_HEADERS", list, &h);
  assert_int_equal(h.count, 0);
  assert_one_warning_with("too long", "OTEL_EXPORTER_OTLP_HEADERS",
                          "none of its headers is sent", NULL);
}

/* The _METRICS_ variable wins, and its warnings name it. */
static void headers_from_the_metrics_variable(void **state) {
  (void)state;
  cs_otlp_headers h;
  char lines[512];
  setenv("OTEL_EXPORTER_OTLP_HEADERS", "general=1", 1);
  setenv("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "m=1,bad=%0d%0aX: 1", 1);
  cs_otlp_headers_from_env(&h);
  joined_lines(&h, lines, sizeof lines);
  assert_string_equal(lines, "m: 1");
  assert_one_warning_with("metrics headers",
                          "OTEL_EXPORTER_OTLP_METRICS_HEADERS: the header "
                          "'bad' is not sent",
                          NULL);
  warned.count = 0;
  setenv("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "", 1); /* empty: unset */
  cs_otlp_headers_from_env(&h);
  joined_lines(&h, lines, sizeof lines);
  assert_string_equal(lines, "general: 1");
  assert_int_equal(warned.count, 0);
}

/* ---- protocol and compression ---- */

static void wire_warnings_name_their_variable(void **state) {
  (void)state;
  static const struct {
    const char *var, *value, *shown;
  } cases[] = {
      {"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "grpc", "'grpc'"},
      {"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", "'grpc'"},
      {"OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "br", "'br'"},
      {"OTEL_EXPORTER_OTLP_COMPRESSION", "br", "'br'"},
      {"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "grpc\x1b[31m\r\n",
       "'grpc?[31m?\?'"},
      {"OTEL_EXPORTER_OTLP_PROTOCOL", "\x7f\t", "'?\?'"},
      {"OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "zz\x01", "'zz?'"},
      {"OTEL_EXPORTER_OTLP_COMPRESSION", "g\nzip", "'g?zip'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char named[128];
    snprintf(named, sizeof named, "%s=%s is not supported", cases[i].var,
             cases[i].shown);
    setenv(cases[i].var, cases[i].value, 1);
    warned.count = 0;
    cs_otlp_wire w = cs_otlp_wire_from_env("http://collector:4318/v1/metrics");
    unsetenv(cases[i].var);
    assert_one_warning_with(cases[i].var, named, NULL);
    assert_int_equal(w.encoding, CS_OTLP_PROTOBUF);
    assert_null(w.gzip_var);
  }
}

static void wire_settings(void **state) {
  (void)state;
  setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", 1);
  setenv("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/json", 1);
  setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "none", 1);
  setenv("OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "gzip", 1);
  cs_otlp_wire w = cs_otlp_wire_from_env("http://c:4318/v1/metrics");
  assert_int_equal(warned.count, 0);
  assert_int_equal(w.encoding, CS_OTLP_JSON);
  assert_string_equal(w.gzip_var, "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION");
  setenv("OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "", 1);
  setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip", 1);
  w = cs_otlp_wire_from_env("http://c:4318/v1/metrics");
  assert_string_equal(w.gzip_var, "OTEL_EXPORTER_OTLP_COMPRESSION");
  assert_int_equal(warned.count, 0);
}

/* ---- the endpoint ---- */

static void endpoints(void **state) {
  (void)state;
  char buf[128];
  assert_null(cs_otlp_endpoint_from_env(buf, sizeof buf));
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", 1);
  assert_string_equal(cs_otlp_endpoint_from_env(buf, sizeof buf),
                      "http://c:4318/v1/metrics");
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318/", 1);
  assert_string_equal(cs_otlp_endpoint_from_env(buf, sizeof buf),
                      "http://c:4318/v1/metrics");
  setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:1/x%0D%0A", 1);
  assert_string_equal(cs_otlp_endpoint_from_env(buf, sizeof buf),
                      "http://m:1/x%0D%0A"); /* encoded: stays encoded */
  setenv("CCLSCOPE_OTLP_ENDPOINT", "http://cs:2/v1/metrics", 1);
  assert_string_equal(cs_otlp_endpoint_from_env(buf, sizeof buf),
                      "http://cs:2/v1/metrics");
  assert_int_equal(warned.count, 0);
}

/* A raw CR, LF or space would end libcurl's request line or Host header
 * early: refused, with a warning naming the variable and what is used. */
static void endpoints_refused(void **state) {
  (void)state;
  char buf[128];
  setenv("CCLSCOPE_OTLP_ENDPOINT",
         "http://c:4318/v1/metrics HTTP/1.0\r\nX-Injected: 1\r\n", 1);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://good:4318", 1);
  assert_string_equal(cs_otlp_endpoint_from_env(buf, sizeof buf),
                      "http://good:4318/v1/metrics");
  assert_one_warning_with("CR LF endpoint", "CCLSCOPE_OTLP_ENDPOINT='http",
                          "HTTP/1.0?\?X-Injected: 1?\?' is invalid",
                          "using OTEL_EXPORTER_OTLP_ENDPOINT", NULL);

  warned.count = 0;
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318\n", 1);
  assert_null(cs_otlp_endpoint_from_env(buf, sizeof buf));
  assert_int_equal(warned.count, 2);
  assert_non_null(strstr(warned.text[1], "OTEL_EXPORTER_OTLP_ENDPOINT='"));
  assert_non_null(strstr(warned.text[1], "no OTLP push"));
  assert_warnings_printable();

  /* Too long for the buffer (with its /v1/metrics): refused, not cut. */
  warned.count = 0;
  unsetenv("CCLSCOPE_OTLP_ENDPOINT");
  char url[128];
  memset(url, 'h', sizeof url - 8);
  url[sizeof url - 8] = '\0';
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url, 1);
  assert_null(cs_otlp_endpoint_from_env(buf, sizeof buf));
  assert_one_warning_with("long endpoint", "too long", NULL);
}

/* ---- how messages quote values ---- */

static void values_shown(void **state) {
  (void)state;
  cs_log_shown shown;
  assert_string_equal(cs_log_show("plain", &shown), "plain");
  assert_string_equal(cs_log_show("a\r\nb\x1b\x7f\t", &shown), "a?\?b?\?\?");
  char long_value[100];
  memset(long_value, 'x', sizeof long_value - 1);
  long_value[sizeof long_value - 1] = '\0';
  long_value[63] = '\n';
  cs_log_show(long_value, &shown);
  assert_int_equal(strlen(shown.text), CS_LOG_SHOWN_CHARS + 3);
  assert_int_equal(shown.text[63], '?');
  assert_string_equal(shown.text + CS_LOG_SHOWN_CHARS, "...");
  long_value[CS_LOG_SHOWN_CHARS] = '\0'; /* exactly 64: not cut */
  assert_string_equal(cs_log_show(long_value, &shown) + 60, "xxx?");

  char text[] = "a\x01\x1f\x20~\x7f\x80";
  cs_log_printable(text);
  assert_string_equal(text, "a?\? ~?\x80");
}

/* Whatever a caller quotes, a warning carries no control character. */
static void every_warning_printable(void **state) {
  (void)state;
  cs_log_warn("cannot use '%s'", "/tmp/a\r\nb\x1b[2J");
  assert_one_warning_with("warning", "cannot use '/tmp/a?\?b?[2J'", NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(percent_decoding, setup, teardown),
      cmocka_unit_test_setup_teardown(list_reading, setup, teardown),
      cmocka_unit_test_setup_teardown(header_refusals, setup, teardown),
      cmocka_unit_test_setup_teardown(injected_headers_refused, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(header_lines, setup, teardown),
      cmocka_unit_test_setup_teardown(refused_name_shown_printable, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(too_long_header_list, setup, teardown),
      cmocka_unit_test_setup_teardown(headers_from_the_metrics_variable, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(wire_warnings_name_their_variable, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(wire_settings, setup, teardown),
      cmocka_unit_test_setup_teardown(endpoints, setup, teardown),
      cmocka_unit_test_setup_teardown(endpoints_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(values_shown, setup, teardown),
      cmocka_unit_test_setup_teardown(every_warning_printable, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
