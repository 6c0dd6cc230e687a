/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_units.c — unit tests of the plugin's small tools:
 * the u64 map, JSON formatting, configuration parsing, handles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "handle.h"
#include "json_writer.h"
#include "size_text.h"
#include "u64map.h"

static void test_u64map_put_get_remove(void **state) {
  (void)state;
  cs_u64map m;
  assert_true(cs_u64map_init(&m, 4));
  /* Enough keys to force several grows and long probe runs. */
  for (uint64_t k = 1; k <= 20000; k++)
    assert_true(cs_u64map_put(&m, k * 7919, (void *)(uintptr_t)k));
  assert_int_equal(m.count, 20000);
  for (uint64_t k = 1; k <= 20000; k++)
    assert_ptr_equal(cs_u64map_get(&m, k * 7919), (void *)(uintptr_t)k);
  /* Remove every other key: backward-shift deletion must keep the rest. */
  for (uint64_t k = 1; k <= 20000; k += 2)
    assert_ptr_equal(cs_u64map_remove(&m, k * 7919), (void *)(uintptr_t)k);
  for (uint64_t k = 1; k <= 20000; k++)
    assert_ptr_equal(cs_u64map_get(&m, k * 7919),
                     k % 2 ? NULL : (void *)(uintptr_t)k);
  assert_null(cs_u64map_remove(&m, 12345678));
  assert_null(cs_u64map_get(&m, 0));
  assert_false(cs_u64map_put(&m, 0, NULL)); /* 0 is the empty marker */
  cs_u64map_free(&m);
}

static void test_u64map_replace(void **state) {
  (void)state;
  cs_u64map m;
  assert_true(cs_u64map_init(&m, 16));
  assert_true(cs_u64map_put(&m, 5, (void *)1));
  assert_true(cs_u64map_put(&m, 5, (void *)2));
  assert_int_equal(m.count, 1);
  assert_ptr_equal(cs_u64map_get(&m, 5), (void *)2);
  cs_u64map_free(&m);
}

/* The longest run of occupied slots (wrapping around) and the longest
 * probe (distance from a key's home slot to where it sits). */
static void probe_shape(const cs_u64map *m, size_t *longest_run,
                        size_t *longest_probe) {
  size_t cap = cs_u64map_capacity(m), run = 0;
  *longest_run = 0;
  *longest_probe = 0;
  for (size_t i = 0; i < 2 * cap; i++) {
    run = m->slots[i & m->mask].key ? run + 1 : 0;
    if (run > *longest_run)
      *longest_run = run < cap ? run : cap;
  }
  for (size_t i = 0; i < cap; i++) {
    if (!m->slots[i].key)
      continue;
    size_t home = (size_t)(cs_u64_hash(m->slots[i].key) >> m->shift);
    size_t probe = (i - home) & m->mask;
    if (probe > *longest_probe)
      *longest_probe = probe;
  }
}

/* Keys with a common stride (the writer's ids are counters, NCCL's are
 * pointers) must not pile up into long probe runs: 500 keys in 1,024
 * slots, as the completion stage's trackers at 500 operations in flight.
 * A single multiply put stride 141 into 7 runs up to 72 slots long and
 * stride 987 into one run of 500. */
static void test_u64map_strided_keys_spread(void **state) {
  (void)state;
  static const struct {
    uint64_t first, stride;
  } cases[] = {
      {141, 141},                          /* ids between other events' */
      {987, 987},                          /* a Fibonacci number */
      {0x7f0000000000, 4096},              /* page-aligned pointers */
      {0x7f0000000000, UINT64_C(1) << 20}, /* 1 MiB apart */
      {0x55d0c0a01010, 16},                /* malloc'd pointers */
      {1, 1},                              /* plain counters */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    cs_u64map m;
    assert_true(cs_u64map_init(&m, 1024));
    for (uint64_t k = 0; k < 500; k++)
      assert_true(cs_u64map_put(&m, cases[c].first + k * cases[c].stride,
                                (void *)(uintptr_t)(k + 1)));
    assert_int_equal(cs_u64map_capacity(&m), 1024); /* no grow */
    size_t run, probe;
    probe_shape(&m, &run, &probe);
    print_message("stride %llu: longest run %zu, longest probe %zu\n",
                  (unsigned long long)cases[c].stride, run, probe);
    assert_true(run <= 32);
    assert_true(probe <= 16);
    cs_u64map_free(&m);
  }
}

static char *jbuf_text(cs_jbuf *b) {
  cs_jbuf_putc(b, '\0');
  return b->data;
}

static void test_json_numbers(void **state) {
  (void)state;
  cs_jbuf b;
  cs_jbuf_init(&b);
  cs_jbuf_u64(&b, 0);
  cs_jbuf_putc(&b, ' ');
  cs_jbuf_u64(&b, UINT64_MAX);
  cs_jbuf_putc(&b, ' ');
  cs_jbuf_i64(&b, INT64_MIN);
  cs_jbuf_putc(&b, ' ');
  cs_jbuf_i64(&b, -42);
  cs_jbuf_putc(&b, ' ');
  cs_jbuf_u64(&b, 1234567890);
  assert_string_equal(jbuf_text(&b),
                      "0 18446744073709551615 -9223372036854775808 -42 "
                      "1234567890");
  cs_jbuf_free(&b);
}

static void test_json_hex_and_time(void **state) {
  (void)state;
  cs_jbuf b;
  cs_jbuf_init(&b);
  cs_jbuf_hex_str(&b, 0);
  cs_jbuf_hex_str(&b, 0xdeadbeefcafef00dull);
  cs_jbuf_ns_as_us(&b, 1795274479934219589LL);
  cs_jbuf_putc(&b, ' ');
  cs_jbuf_ns_as_us(&b, 7);
  cs_jbuf_putc(&b, ' ');
  cs_jbuf_ns_as_us(&b, -1500);
  assert_string_equal(jbuf_text(&b),
                      "\"0x0\"\"0xdeadbeefcafef00d\"1795274479934219.589 "
                      "0.007 -1.500");
  cs_jbuf_free(&b);
}

static void test_json_string_escaping(void **state) {
  (void)state;
  cs_jbuf b;
  cs_jbuf_init(&b);
  cs_jbuf_str(&b, "a\"b\\c\nd\te\x01<img src=x onerror=alert(1)>");
  cs_jbuf_putc(&b, ' ');
  cs_jbuf_str(&b, NULL);
  assert_string_equal(jbuf_text(&b), "\"a\\\"b\\\\c\\nd\\te\\u0001<img src=x "
                                     "onerror=alert(1)>\" null");
  cs_jbuf_free(&b);
}

static void test_mask_parsing(void **state) {
  (void)state;
  int mask = -1;
  char err[160];
  assert_true(cs_config_parse_mask("coll,p2p", &mask, err, sizeof err));
  assert_int_equal(mask, 0x6);
  assert_true(cs_config_parse_mask("all,-proxyctrl", &mask, err, sizeof err));
  assert_int_equal(mask, CS_MASK_ALL & ~0x20);
  assert_true(cs_config_parse_mask("default", &mask, err, sizeof err));
  assert_int_equal(mask, CS_MASK_DEFAULT);
  assert_true(cs_config_parse_mask("0x7FFF", &mask, err, sizeof err));
  assert_int_equal(mask, 0x7FFF);
  assert_true(cs_config_parse_mask("minimal|ProxyOp", &mask, err, sizeof err));
  assert_int_equal(mask, CS_MASK_MINIMAL | 0x8);
  assert_false(cs_config_parse_mask("coll,bogus", &mask, err, sizeof err));
  assert_non_null(strstr(err, "bogus"));
  assert_false(cs_config_parse_mask("", &mask, err, sizeof err));
  /* The default preset has what completion timing needs, not the noisy
   * per-step events; `all` adds them. */
  assert_true(CS_MASK_DEFAULT & (1 << 1));   /* coll */
  assert_true(CS_MASK_DEFAULT & (1 << 6));   /* kernelch */
  assert_true(CS_MASK_DEFAULT & (1 << 3));   /* proxyop */
  assert_true(CS_MASK_DEFAULT & (1 << 9));   /* collapi */
  assert_true(CS_MASK_DEFAULT & (1 << 12));  /* cecoll */
  assert_true(CS_MASK_DEFAULT & (1 << 15));  /* kernelphase */
  assert_false(CS_MASK_DEFAULT & (1 << 4));  /* proxystep */
  assert_false(CS_MASK_DEFAULT & (1 << 5));  /* proxyctrl */
  assert_false(CS_MASK_DEFAULT & (1 << 7));  /* netplugin */
  assert_true((CS_MASK_ALL & 0xB0) == 0xB0); /* all adds them */
}

static void test_mask_names(void **state) {
  (void)state;
  char names[256];
  cs_config_mask_names(0x46, names, sizeof names);
  assert_string_equal(names, "coll,p2p,kernelch");
  /* RCCL's ProxyDiag (1 << 16) has a name; bits beyond it stay numbers */
  cs_config_mask_names(0x30002, names, sizeof names);
  assert_string_equal(names, "coll,proxydiag,0x20000");
  int mask = 0;
  char err[128];
  assert_true(cs_config_parse_mask("proxydiag", &mask, err, sizeof err));
  assert_int_equal(mask, 1 << 16);
}

static void test_size_parsing(void **state) {
  (void)state;
  size_t n;
  assert_true(cs_config_parse_size("4M", &n));
  assert_int_equal(n, 4u << 20);
  assert_true(cs_config_parse_size("64KiB", &n));
  assert_int_equal(n, 64u << 10);
  assert_true(cs_config_parse_size("4096", &n));
  assert_int_equal(n, 4096);
  assert_false(cs_config_parse_size("4X", &n));
  assert_false(cs_config_parse_size("", &n));
  /* The shared reader (ncclemu's --sizes use it too). */
  uint64_t v;
  assert_true(size_text_parse("1gb", &v));
  assert_int_equal(v, UINT64_C(1) << 30);
  assert_false(size_text_parse("-4K", &v));
  assert_false(size_text_parse("4 K", &v));
  assert_false(size_text_parse("99999999999999999999G", &v));
  assert_false(size_text_parse("17179869184G", &v)); /* 2^64 bytes */
  assert_false(size_text_parse(NULL, &v));
  /* Strict: what strtoull/strtod would also take is not a size. */
  static const struct {
    const char *text;
    size_text_result result;
    uint64_t bytes;
  } cases[] = {
      {"0", SIZE_TEXT_OK, 0},
      {"16G", SIZE_TEXT_OK, UINT64_C(16) << 30},
      {"4kib", SIZE_TEXT_OK, 4096},
      {"4KB", SIZE_TEXT_OK, 4096},
      {"18446744073709551615", SIZE_TEXT_OK, UINT64_MAX},
      {"18446744073709551616", SIZE_TEXT_TOO_LARGE, 0},
      {"99999999999G", SIZE_TEXT_TOO_LARGE, 0},
      {"17592186044416M", SIZE_TEXT_TOO_LARGE, 0}, /* 2^64 bytes */
      {"", SIZE_TEXT_MALFORMED, 0},
      {" 5", SIZE_TEXT_MALFORMED, 0},
      {"5 ", SIZE_TEXT_MALFORMED, 0},
      {"5K ", SIZE_TEXT_MALFORMED, 0},
      {"+5", SIZE_TEXT_MALFORMED, 0},
      {"-0", SIZE_TEXT_MALFORMED, 0},
      {"nan", SIZE_TEXT_MALFORMED, 0},
      {"inf", SIZE_TEXT_MALFORMED, 0},
      {"0x10", SIZE_TEXT_MALFORMED, 0},
      {"1e3", SIZE_TEXT_MALFORMED, 0},
      {"1.5K", SIZE_TEXT_MALFORMED, 0},
      {"4KK", SIZE_TEXT_MALFORMED, 0},
      {"4KiBB", SIZE_TEXT_MALFORMED, 0},
      {"4B", SIZE_TEXT_MALFORMED, 0},
      {"K", SIZE_TEXT_MALFORMED, 0},
      {"99999999999999999999x", SIZE_TEXT_MALFORMED, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    v = 12345;
    size_text_result r = size_text_read(cases[i].text, &v);
    if (r != cases[i].result)
      fail_msg("size '%s': result %d, expected %d", cases[i].text, (int)r,
               (int)cases[i].result);
    assert_int_equal(v, r == SIZE_TEXT_OK ? cases[i].bytes : 12345);
  }
}

static void test_config_from_environment(void **state) {
  (void)state;
  cs_config c;
  setenv("CCLSCOPE_MODE", "metrics,trace", 1);
  setenv("CCLSCOPE_MASK", "coll,kernelch", 1);
  setenv("CCLSCOPE_DIR", "/tmp/somewhere", 1);
  setenv("CCLSCOPE_RING_SIZE", "1M", 1);
  setenv("CCLSCOPE_JOB_ID", "job/42", 1);
  setenv("CCLSCOPE_HOSTNAME", "node 7", 1);
  cs_config_load(&c);
  assert_true(c.trace);
  assert_true(c.metrics);
  assert_int_equal(c.mask, 0x42);
  assert_string_equal(c.mask_source, "CCLSCOPE_MASK");
  assert_string_equal(c.dir, "/tmp/somewhere");
  assert_int_equal(c.ring_bytes, 1u << 20);
  assert_string_equal(c.run_id, "job-42"); /* made safe for file names */
  assert_string_equal(c.hostname, "node-7");

  /* Invalid values fall back to defaults (with a warning, not checked). */
  setenv("CCLSCOPE_MODE", "fast", 1);
  setenv("CCLSCOPE_MASK", "nope", 1);
  setenv("CCLSCOPE_RING_SIZE", "12", 1);
  unsetenv("CCLSCOPE_DIR");
  cs_config_load(&c);
  assert_true(c.trace);
  assert_false(c.metrics);
  assert_int_equal(c.mask, CS_MASK_DEFAULT);
  assert_int_equal(c.ring_bytes, 4u << 20);
  assert_string_equal(c.dir, "cclscope-job-42");

  /* NCCL_PROFILE_EVENT_MASK is honoured when CCLSCOPE_MASK is unset. */
  unsetenv("CCLSCOPE_MASK");
  setenv("NCCL_PROFILE_EVENT_MASK", "4095", 1);
  setenv("CCLSCOPE_MODE", "off", 1);
  cs_config_load(&c);
  assert_int_equal(c.mask, 4095);
  assert_string_equal(c.mask_source, "NCCL_PROFILE_EVENT_MASK");
  assert_false(c.trace);
  assert_false(c.metrics);
  unsetenv("NCCL_PROFILE_EVENT_MASK");
  unsetenv("CCLSCOPE_MODE");
  unsetenv("CCLSCOPE_RING_SIZE");
  unsetenv("CCLSCOPE_JOB_ID");
  unsetenv("CCLSCOPE_HOSTNAME");
}

/* CCLSCOPE_DIRECT_IO: auto by default, on/off and their boolean spellings,
 * anything else back to auto. */
static void test_config_direct_io(void **state) {
  (void)state;
  static const struct {
    const char *value;
    const char *expected;
  } cases[] = {{NULL, "auto"},   {"auto", "auto"},     {"on", "on"},
               {"1", "on"},      {"yes", "on"},        {"true", "on"},
               {"off", "off"},   {"0", "off"},         {"no", "off"},
               {"false", "off"}, {"sometimes", "auto"}};
  cs_config c;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (cases[i].value)
      setenv("CCLSCOPE_DIRECT_IO", cases[i].value, 1);
    else
      unsetenv("CCLSCOPE_DIRECT_IO");
    cs_config_load(&c);
    assert_string_equal(c.direct_io, cases[i].expected);
  }
  unsetenv("CCLSCOPE_DIRECT_IO");
}

static void test_handles(void **state) {
  (void)state;
  cs_handle_new_tag();
  uint16_t first = cs_handle_tag;
  assert_int_not_equal(first, 0);
  void *h = cs_handle_from_id(12345);
  assert_true(cs_handle_is_our_event((uint64_t)(uintptr_t)h));
  assert_false(cs_handle_is_our_ctx((uint64_t)(uintptr_t)h));
  assert_int_equal((uint64_t)(uintptr_t)h & CS_ID_MASK, 12345);
  void *c = cs_handle_from_ctx_serial(3);
  assert_true(cs_handle_is_our_ctx((uint64_t)(uintptr_t)c));
  assert_false(cs_handle_is_our_event((uint64_t)(uintptr_t)c));
  /* A new session's tag makes the old session's handles foreign. */
  cs_handle_new_tag();
  assert_int_not_equal(cs_handle_tag, first);
  assert_false(cs_handle_is_our_event((uint64_t)(uintptr_t)h));
  /* Pointers and small integers are never ours. */
  int local;
  assert_false(cs_handle_is_our_event((uint64_t)(uintptr_t)&local));
  assert_false(cs_handle_is_our_event(1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_u64map_put_get_remove),
      cmocka_unit_test(test_u64map_replace),
      cmocka_unit_test(test_u64map_strided_keys_spread),
      cmocka_unit_test(test_json_numbers),
      cmocka_unit_test(test_json_hex_and_time),
      cmocka_unit_test(test_json_string_escaping),
      cmocka_unit_test(test_mask_parsing),
      cmocka_unit_test(test_mask_names),
      cmocka_unit_test(test_size_parsing),
      cmocka_unit_test(test_config_from_environment),
      cmocka_unit_test(test_config_direct_io),
      cmocka_unit_test(test_handles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
