/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_scan.c — the JSONL scanner and record decoding
 * (src/cli/read/jsonl_scan.c, trace_record.c): spans, escapes, nesting, invalid
 * input with its offset, exact timestamps, hex ids, key prediction when
 * the key order changes, unknown keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "read/jsonl_scan.h"
#include "read/scan_blocks.h"
#include "read/trace_record.h"

static js_value num(const char *s) {
  js_value v = {s, strlen(s), JS_NUMBER, false};
  return v;
}

static js_value str(const char *s) {
  js_value v = {s, strlen(s), JS_STRING, strchr(s, '\\') != NULL};
  return v;
}

static void timestamps_are_exact(void **state) {
  (void)state;
  int64_t ns;
  js_value v = num("1795274479934219.589");
  assert_true(js_to_ns(&v, &ns));
  assert_int_equal(ns, INT64_C(1795274479934219589));
  v = num("0.001");
  assert_true(js_to_ns(&v, &ns));
  assert_int_equal(ns, 1);
  v = num("12");
  assert_true(js_to_ns(&v, &ns));
  assert_int_equal(ns, 12000);
  v = num("12.5");
  assert_true(js_to_ns(&v, &ns));
  assert_int_equal(ns, 12500);
  v = num("-3.250");
  assert_true(js_to_ns(&v, &ns));
  assert_int_equal(ns, -3250);
  v = num("1.23456789"); /* past ns: truncated */
  assert_true(js_to_ns(&v, &ns));
  assert_int_equal(ns, 1234);
  v = num("1.5e3"); /* exponent form: strtod fallback */
  assert_true(js_to_ns(&v, &ns));
  assert_int_equal(ns, 1500000);
  /* every ns of a full-size timestamp survives (a double would not) */
  for (int i = 0; i < 1000; i++) {
    char buf[40];
    snprintf(buf, sizeof buf, "1795274479934219.%03d", i);
    v = num(buf);
    assert_true(js_to_ns(&v, &ns));
    assert_int_equal(ns, INT64_C(1795274479934219000) + i);
  }
  v = num("1.2.3");
  assert_false(js_to_ns(&v, &ns));
  v = num("99999999999999999999");
  assert_false(js_to_ns(&v, &ns));
  v = str("12");
  assert_false(js_to_ns(&v, &ns));
}

static void integers_and_hex(void **state) {
  (void)state;
  int64_t i;
  uint64_t u;
  js_value v = num("-9223372036854775808");
  assert_true(js_to_i64(&v, &i));
  assert_true(i == INT64_MIN);
  v = num("9223372036854775808");
  assert_false(js_to_i64(&v, &i));
  v = num("18446744073709551615");
  assert_true(js_to_u64(&v, &u));
  assert_true(u == UINT64_MAX);
  v = num("18446744073709551616");
  assert_false(js_to_u64(&v, &u));
  v = num("1.5");
  assert_false(js_to_i64(&v, &i));
  v = str("0xb7bf000000000004");
  assert_true(js_to_hex_u64(&v, &u));
  assert_true(u == UINT64_C(0xb7bf000000000004));
  v = str("0xFFFFFFFFFFFFFFFF");
  assert_true(js_to_hex_u64(&v, &u));
  assert_true(u == UINT64_MAX);
  v = str("0x10000000000000000"); /* 17 digits */
  assert_false(js_to_hex_u64(&v, &u));
  v = str("12");
  assert_false(js_to_hex_u64(&v, &u));
  v = num("42"); /* numbers are accepted as ids too */
  assert_true(js_to_hex_u64(&v, &u));
  assert_int_equal(u, 42);
}

static void strings_and_escapes(void **state) {
  (void)state;
  const char *line = "{\"a\":\"x\\\"y\\\\\",\"b\":\"\\u00e9\\ud83d\\ude00\\n\","
                     "\"c\":\"\\\\\"}";
  js_iter it;
  js_value k, v;
  char buf[64];
  assert_true(js_object_begin(&it, line, line + strlen(line), line));
  assert_true(js_object_next(&it, &k, &v));
  assert_true(js_str_eq(&k, "a"));
  assert_true(v.escaped);
  assert_true(js_str_copy(&v, buf, sizeof buf));
  assert_string_equal(buf, "x\"y\\");
  assert_true(js_str_eq(&v, "x\"y\\"));
  assert_true(js_object_next(&it, &k, &v));
  js_str_copy(&v, buf, sizeof buf);
  assert_string_equal(buf, "\xc3\xa9\xf0\x9f\x98\x80\n");
  assert_true(js_object_next(&it, &k, &v));
  js_str_copy(&v, buf, sizeof buf); /* a string ending in an escaped \ */
  assert_string_equal(buf, "\\");
  assert_false(js_object_next(&it, &k, &v));
  assert_null(it.error);
  assert_true(js_rest_is_blank(&it));
  /* truncation of long strings keeps the buffer terminated */
  js_value longv = str("abcdefghij");
  assert_true(js_str_copy(&longv, buf, 4));
  assert_string_equal(buf, "abc");
}

static void nesting_and_types(void **state) {
  (void)state;
  const char *line = " { \"o\" : {\"x\":[1,{\"y\":\"]}\"}],\"z\":null} , "
                     "\"t\":true,\"f\":false,\"n\":-1.5e-3,\"e\":[] }  ";
  js_iter it;
  js_value k, v;
  assert_true(js_object_begin(&it, line, line + strlen(line), line));
  assert_true(js_object_next(&it, &k, &v));
  assert_int_equal(v.type, JS_OBJECT);
  assert_int_equal(v.len, strlen("{\"x\":[1,{\"y\":\"]}\"}],\"z\":null}"));
  js_iter inner;
  js_value k2, v2;
  assert_true(js_object_begin(&inner, v.ptr, v.ptr + v.len, line));
  assert_true(js_object_next(&inner, &k2, &v2));
  assert_int_equal(v2.type, JS_ARRAY);
  js_iter arr;
  js_value e;
  assert_true(js_array_begin(&arr, v2.ptr, v2.ptr + v2.len, line));
  assert_true(js_array_next(&arr, &e));
  assert_int_equal(e.type, JS_NUMBER);
  assert_true(js_array_next(&arr, &e));
  assert_int_equal(e.type, JS_OBJECT);
  assert_false(js_array_next(&arr, &e));
  assert_null(arr.error);
  assert_true(js_object_next(&it, &k, &v));
  assert_int_equal(v.type, JS_TRUE);
  assert_true(js_object_next(&it, &k, &v));
  assert_int_equal(v.type, JS_FALSE);
  assert_true(js_object_next(&it, &k, &v));
  assert_int_equal(v.type, JS_NUMBER);
  double d;
  assert_true(js_to_double(&v, &d));
  assert_true(d == -1.5e-3);
  assert_true(js_object_next(&it, &k, &v));
  assert_int_equal(v.type, JS_ARRAY);
  assert_false(js_object_next(&it, &k, &v));
  assert_null(it.error);
  assert_true(js_rest_is_blank(&it));
}

/* Invalid lines fail with a reason and the offset where it went wrong. */
static void invalid_lines(void **state) {
  (void)state;
  static const struct {
    const char *line;
    size_t at;
  } bad[] = {
      {"{\"a\":1", 6},          /* truncated */
      {"{\"a\":\"xyz", 5},      /* unterminated string */
      {"{\"a\" 1}", 5},         /* missing colon */
      {"{\"a\":1 \"b\":2}", 7}, /* missing comma */
      {"{\"a\":[1,2}", 9},      /* mismatched bracket (where) */
      {"{\"a\":tru}", 5},       /* bad literal */
      {"[1,2]", 0},             /* not an object */
      {"{a:1}", 1},             /* unquoted key */
      {"", 0},
  };
  js_fields f;
  js_fields_init(&f);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *l = bad[i].line;
    assert_false(js_fields_decode(&f, l, l + strlen(l), l, true));
    assert_non_null(f.error);
    assert_int_equal(f.error_at, bad[i].at);
  }
  const char *trailing = "{\"a\":1} x";
  assert_false(js_fields_decode(&f, trailing, trailing + strlen(trailing),
                                trailing, true));
  assert_string_equal(f.error, "text after the end of the object");
}

/* Key prediction must not confuse keys when the order changes, and
 * unknown keys are skipped. */
static void fields_any_order(void **state) {
  (void)state;
  js_fields f;
  js_fields_init(&f);
  const char *a = "{\"recordType\":\"mark\",\"ts\":1.000,\"pid\":7,\"x\":{}}";
  const char *b = "{\"pid\":8,\"unknownKey\":[1],\"ts\":2.500,\"recordType\":"
                  "\"mark\"}";
  for (int round = 0; round < 3; round++) {
    int64_t ts, pid;
    assert_true(js_fields_decode(&f, a, a + strlen(a), a, true));
    assert_true(js_to_ns(js_get(&f, K_ts), &ts));
    assert_true(js_to_i64(js_get(&f, K_pid), &pid));
    assert_int_equal(ts, 1000);
    assert_int_equal(pid, 7);
    assert_null(js_get(&f, K_tid));
    assert_true(js_fields_decode(&f, b, b + strlen(b), b, true));
    assert_true(js_to_ns(js_get(&f, K_ts), &ts));
    assert_true(js_to_i64(js_get(&f, K_pid), &pid));
    assert_int_equal(ts, 2500);
    assert_int_equal(pid, 8);
    assert_true(js_str_eq(js_get(&f, K_recordType), "mark"));
  }
  /* an escaped key is still recognised */
  const char *c = "{\"t\\u0073\":3.000}";
  int64_t ts;
  assert_true(js_fields_decode(&f, c, c + strlen(c), c, true));
  assert_true(js_to_ns(js_get(&f, K_ts), &ts));
  assert_int_equal(ts, 3000);
}

static void decode_event_record(void **state) {
  (void)state;
  static rec_scratch s;
  rec_scratch_init(&s);
  rec r;
  const char *line =
      "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyOp\",\"id\":"
      "\"0x100d\",\"parentId\":null,\"parentStatus\":\"foreign\","
      "\"parentRaw\":\"0xbd1b000000000004\",\"ctx\":null,\"commId\":null,"
      "\"rank\":1,\"isPxn\":true,\"originPid\":6979,\"start\":{\"ts\":"
      "1795274668086214.881,\"pid\":6978,\"tid\":6987},\"stop\":{\"ts\":"
      "1795274668086321.093,\"pid\":6978,\"tid\":6987},\"duration\":106.212,"
      "\"end\":\"stopped\",\"details\":{\"channelId\":0}}       ";
  assert_true(rec_decode(&r, &s, line, strlen(line)));
  assert_int_equal(r.rt, RT_EVENT);
  assert_int_equal(r.et, ET_PROXY_OP);
  assert_true(r.has_id);
  assert_int_equal(r.id, 0x100d);
  assert_int_equal(r.parent, PAR_FOREIGN);
  assert_true(r.parent_raw == UINT64_C(0xbd1b000000000004));
  assert_false(r.has_ctx);
  assert_false(r.has_comm);
  assert_int_equal(r.rank, 1);
  assert_true(r.start.present);
  assert_int_equal(r.start.ts, INT64_C(1795274668086214881));
  assert_int_equal(r.start.tid, 6987);
  assert_int_equal(r.stop.ts, INT64_C(1795274668086321093));
  assert_int_equal(r.end, END_STOPPED);
  assert_int_equal(rec_start_time(&r), INT64_C(1795274668086214881));
  assert_int_equal(rec_write_time(&r), INT64_C(1795274668086321093));

  const char *reclaimed =
      "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyStep\",\"id\":"
      "\"0x7\",\"parentId\":\"0x6\",\"ctx\":1,\"commId\":\"0xabc\",\"rank\":0,"
      "\"start\":{\"ts\":5.000,\"pid\":1,\"tid\":2},\"stop\":null,"
      "\"duration\":null,\"end\":\"reclaimed\",\"reclaimReason\":"
      "\"abandoned\",\"endTs\":9.000,\"details\":{}}";
  assert_true(rec_decode(&r, &s, reclaimed, strlen(reclaimed)));
  assert_int_equal(r.parent, PAR_LOCAL);
  assert_int_equal(r.parent_id, 6);
  assert_int_equal(r.ctx, 1);
  assert_int_equal(r.comm_id, 0xabc);
  assert_false(r.stop.present);
  assert_int_equal(r.end, END_RECLAIMED);
  assert_int_equal(rec_end_time(&r), 9000);

  const char *pad = "{\"recordType\":\"pad\"                 }";
  assert_true(rec_decode(&r, &s, pad, strlen(pad)));
  assert_int_equal(r.rt, RT_PAD);
  const char *other = "{\"recordType\":\"futureThing\",\"ts\":1.000}";
  assert_true(rec_decode(&r, &s, other, strlen(other)));
  assert_int_equal(r.rt, RT_UNKNOWN);
  assert_int_equal(rec_start_time(&r), 1000);
  const char *lifecycle =
      "{\"recordType\":\"event\",\"type\":\"ProfilerLifecycle\",\"func\":"
      "\"ProfilerInit\",\"ctx\":1,\"commId\":\"0xabc\",\"rank\":0,\"start\":{"
      "\"ts\":1.000,\"pid\":1,\"tid\":1},\"stop\":{\"ts\":1.000,\"pid\":1,"
      "\"tid\":1},\"duration\":0.000}";
  assert_true(rec_decode(&r, &s, lifecycle, strlen(lifecycle)));
  assert_int_equal(r.et, ET_LIFECYCLE);
  assert_int_equal(r.end, END_STOPPED);
}

/* The byte loop the scanner had before it looked at eight bytes at a
 * time: where the string that starts after `open` ends. */
static size_t string_len_bytewise(const char *open, const char *end,
                                  bool *escaped) {
  const char *q = open + 1;
  *escaped = false;
  while (q < end && *q != '"') {
    if (*q == '\\') {
      *escaped = true;
      q++;
    }
    q++;
  }
  return (size_t)(q - (open + 1));
}

/* Strings of every length up to 40 with a quote or a backslash at every
 * place (across the eight-byte steps), ended or cut short; long runs of
 * spaces; numbers past 19 digits; and {ts,pid,tid} objects in the
 * plugin's form and in every other form read as the general decoding
 * reads them. */
/* An event's states and a ProxyStep's link read by rec_states_next and
 * rec_step_link_decode (the plugin's form in one pass) give what the
 * general decoding gives, entry by entry, for the plugin's form and for
 * every other form around it. */
static void states_and_links_match_general(void **state) {
  (void)state;
  static const char *const states[] = {
      "[{\"name\":\"SendGPUWait\",\"id\":8,\"ts\":12.500},"
      "{\"name\":\"SendWait\",\"id\":9,\"ts\":13.750,\"transSize\":1048576}]",
      "[]",
      "[ ]",
      "[{\"name\":\"RecvWait\",\"id\":10,\"ts\":1795894523012283.928},"
      "{\"name\":\"RecvFlushWait\",\"id\":11,\"ts\":1.5,\"transSize\":0}]",
      /* repeats, other arguments, escapes, spaces, other orders */
      "[{\"name\":\"SendWait\",\"id\":9,\"ts\":1.000,\"transSize\":4,"
      "\"count\":3,\"lastTs\":2.000}]",
      "[{\"name\":\"ProxyCtrlAppendEnd\",\"id\":18,\"ts\":1.0,"
      "\"appendedProxyOps\":4}]",
      "[{\"name\":\"we\\\"ird\",\"id\":9,\"ts\":1.0,\"transSize\":7}]",
      "[ {\"name\":\"SendWait\",\"id\":9,\"ts\":1.0} , "
      "{\"name\":\"SendWait\",\"id\":9,\"ts\":2.0}]",
      "[{\"id\":9,\"name\":\"SendWait\",\"ts\":1.0,\"transSize\":7}]",
      "[{\"name\":\"SendWait\",\"id\":9,\"ts\":1.0,\"transSize\":-7}]",
      "[{\"name\":\"SendWait\",\"id\":9,\"ts\":1.0,\"transSize\":-0}]",
      "[{\"name\":\"SendWait\",\"id\":9,\"ts\":1.0,\"transSize\":007}]",
      "[{\"name\":\"SendWait\",\"id\":9,\"ts\":1.0,\"transSize\":1.5}]",
      "[{\"name\":\"SendWait\",\"id\":9,\"ts\":1.0,"
      "\"transSize\":18446744073709551615}]",
      "[{\"name\":\"SendWait\",\"id\":9,\"ts\":1e3,\"transSize\":7}]",
      "[{\"name\":\"SendWait\",\"id\":9.5,\"ts\":1.0}]",
      "[{\"name\":\"SendWait\",\"ts\":1.0},{\"name\":\"X\",\"id\":9}]",
      "[{\"name\":7,\"id\":9,\"ts\":1.0}]",
      "[1,\"x\",null,{\"name\":\"SendWait\",\"id\":9,\"ts\":1.0},[2]]",
      "[{\"name\":\"SendWait\",\"id\":9,\"ts\":1.0}",
      "[{\"name\":\"SendWait\",\"id\":9,\"ts\":1.0},]",
      "[{\"name\":\"SendWait\",\"id\":9,\"ts\":1.0}x]",
  };
  static const char *const details[] = {
      "{\"step\":0,\"peer\":1,\"channelId\":0,\"isSend\":true}",
      "{\"step\":7,\"peer\":-1,\"channelId\":31,\"isSend\":false}",
      "{\"step\":0}",
      "{}",
      "{\"step\":0,\"peer\":1,\"channelId\":0,\"isSend\":1}",
      "{\"step\":0,\"peer\":1.5,\"channelId\":0,\"isSend\":true}",
      "{\"step\":0,\"peer\":1,\"channelId\":0.5,\"isSend\":true}",
      "{\"step\":0,\"peer\":1,\"isSend\":true}",
      "{\"peer\":1,\"step\":0,\"channelId\":2,\"isSend\":true}",
      "{ \"step\":0,\"peer\":1,\"channelId\":0,\"isSend\":true}",
      "{\"step\":0,\"peer\":1,\"channelId\":0,\"isSend\":true,\"x\":1}",
      "{\"step\":0,\"peer\":1,\"channelId\":0,\"isSend\":truex}",
      "{\"step\":0,\"peer\":1,\"channelId\":0,\"isSend\":true",
  };
  rec_scratch *sc = malloc(sizeof *sc);
  assert_non_null(sc);
  rec_scratch_init(sc);
  js_fields want_f;
  js_fields_init(&want_f);
  char line[1024];
  for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
    for (size_t j = 0; j < sizeof details / sizeof details[0]; j++) {
      snprintf(line, sizeof line,
               "{\"recordType\":\"event\",\"details\":%s,\"states\":%s}",
               details[j], states[i]);
      rec r;
      if (!rec_decode(&r, sc, line, strlen(line)))
        continue; /* not an object: nothing to read */
      /* the states, read both ways */
      rec_states_iter it;
      rec_state got;
      const js_value *sv = js_get(r.f, K_states);
      js_iter want_it;
      bool want_begin =
          sv && js_array_begin(&want_it, sv->ptr, sv->ptr + sv->len, line);
      assert_int_equal(rec_states_begin(&it, &r, &sc->state), want_begin);
      if (want_begin) {
        js_value v;
        for (;;) {
          bool want_more;
          while (
              (want_more = js_array_next(&want_it, &v)) &&
              (v.type != JS_OBJECT ||
               !js_fields_decode(&want_f, v.ptr, v.ptr + v.len, line, false)))
            ;
          bool got_more = rec_states_next(&it, &got);
          if (got_more != want_more)
            fail_msg("states %zu: %s", i, states[i]);
          if (!got_more)
            break;
          int64_t id, ts;
          uint64_t size = 0;
          bool has_id = js_to_i64(js_get(&want_f, K_id), &id);
          bool has_ts = js_to_ns(js_get(&want_f, K_ts), &ts);
          bool has_size = js_to_u64(js_get(&want_f, K_transSize), &size);
          assert_int_equal(got.has_id, has_id);
          assert_int_equal(got.has_ts, has_ts);
          assert_int_equal(got.has_size, has_size);
          if (has_id)
            assert_int_equal(got.id, id);
          if (has_ts)
            assert_int_equal(got.ts, ts);
          assert_int_equal(got.size, size);
          const js_value *sv2 = js_get(&want_f, K_transSize);
          assert_int_equal(got.size_value.type, sv2 ? sv2->type : JS_NONE);
          if (sv2) {
            assert_ptr_equal(got.size_value.ptr, sv2->ptr);
            assert_int_equal(got.size_value.len, sv2->len);
          }
          const js_value *name = js_get(&want_f, K_name);
          assert_int_equal(got.name.type, name ? name->type : JS_NONE);
          if (name) {
            assert_int_equal(got.name.len, name->len);
            assert_ptr_equal(got.name.ptr, name->ptr);
            assert_int_equal(got.name.escaped, name->escaped);
          }
        }
        assert_int_equal(it.it.error != NULL, want_it.error != NULL);
      }
      /* the link, read both ways */
      rec_step_link link;
      const js_value *d = js_get(r.f, K_details);
      bool want_ok =
          d && d->type == JS_OBJECT &&
          js_fields_decode(&want_f, d->ptr, d->ptr + d->len, line, false);
      assert_int_equal(rec_step_link_decode(&r, &sc->sub, &link), want_ok);
      if (!want_ok)
        continue;
      int64_t peer, channel = -1;
      bool is_send;
      bool has_peer = js_to_i64(js_get(&want_f, K_peer), &peer);
      bool has_is_send = js_to_bool(js_get(&want_f, K_isSend), &is_send);
      js_to_i64(js_get(&want_f, K_channelId), &channel);
      assert_int_equal(link.has_peer, has_peer);
      assert_int_equal(link.has_is_send, has_is_send);
      if (has_peer)
        assert_int_equal(link.peer, peer);
      if (has_is_send)
        assert_int_equal(link.is_send, is_send);
      assert_int_equal(link.channel, channel);
    }
  free(sc);
}

static void fast_paths_match_general(void **state) {
  (void)state;
  char line[128];
  for (int n = 0; n <= 40; n++)
    for (int at = -1; at < n; at++) {
      char text[48];
      memset(text, 'x', (size_t)n);
      text[n] = '\0';
      if (at >= 0)
        text[at] = '\\';
      if (at == n - 1 && at >= 0)
        continue; /* a backslash would escape the closing quote */
      snprintf(line, sizeof line, "{\"k\":\"%s\"}", text);
      js_iter it;
      js_value k, v;
      assert_true(js_object_begin(&it, line, line + strlen(line), line));
      assert_true(js_object_next(&it, &k, &v));
      bool escaped;
      size_t len = string_len_bytewise(line + 5, line + strlen(line), &escaped);
      assert_int_equal(v.len, len);
      assert_int_equal(v.len, n);
      assert_int_equal(v.escaped, escaped);
      assert_false(js_object_next(&it, &k, &v));
      assert_null(it.error);
      /* cut before its closing quote */
      size_t cut = strlen(line) - 2;
      assert_true(js_object_begin(&it, line, line + cut, line));
      assert_false(js_object_next(&it, &k, &v));
      assert_string_equal(it.error, "unterminated string");
      assert_int_equal(it.error_at, 5);
    }
  /* runs of spaces between members and before the end */
  snprintf(line, sizeof line, "{\"id\":1%*s,%*s\"ts\":22%*s}", 17, "", 9, "",
           31, "");
  js_fields f;
  js_fields_init(&f);
  assert_true(js_fields_decode(&f, line, line + strlen(line), line, true));
  assert_int_equal(js_get(&f, K_id)->len, 1);
  assert_int_equal(js_get(&f, K_ts)->len, 2);
  assert_int_equal(js_get(&f, K_ts)->ptr - line, 39);
  uint64_t u;
  js_value v = num("0000000000000000000000042"); /* 25 digits */
  assert_true(js_to_u64(&v, &u));
  assert_int_equal(u, 42);
  v = num("9999999999999999999"); /* 19 digits */
  assert_true(js_to_u64(&v, &u));
  assert_true(u == UINT64_C(9999999999999999999));
  v = num("99999999999999999999"); /* 20 */
  assert_false(js_to_u64(&v, &u));

  static const char *const points[] = {
      "{\"ts\":12.500,\"pid\":7,\"tid\":8}", /* the plugin's form */
      "{\"ts\":12.500,\"pid\":-7,\"tid\":8}",
      "{ \"ts\":12.500,\"pid\":7,\"tid\":8}",
      "{\"ts\":12.500,\"tid\":8,\"pid\":7}",
      "{\"pid\":7,\"ts\":1.5e1,\"tid\":8}",
      "{\"ts\":1.5e1,\"pid\":7,\"tid\":8}",
      "{\"ts\":12.500,\"pid\":7,\"tid\":8,\"x\":1}",
      "{\"ts\":12.500,\"pid\":7.5,\"tid\":8}",
      "{\"ts\":12.500,\"pid\":7}",
      "{\"ts\":\"12\",\"pid\":7,\"tid\":8}",
      "{\"ts\":1.2.3,\"pid\":7,\"tid\":8}",
      "{\"ts\":12.500,\"pid\":7,\"tid\":null}",
      "{\"ts\":12.500,\"pid\":7,\"tid\":8 }",
      "{\"ts\":12.500,\"pid\":7,\"tid\":8,}",
      "{\"ts\":12.500,\"pid\":7,\"ts\":9}",
      "{}",
      /* the numbers the one-pass form reads, and those it leaves to the
       * general decoding: sizes, signs, fractions, exponents */
      "{\"ts\":1764321234567.123,\"pid\":4242,\"tid\":4243}",
      "{\"ts\":1764321234567.1234567,\"pid\":1,\"tid\":2}",
      "{\"ts\":1764321234567,\"pid\":1,\"tid\":2}",
      "{\"ts\":-0.5,\"pid\":-0,\"tid\":007}",
      "{\"ts\":12.,\"pid\":7,\"tid\":8}",
      "{\"ts\":.5,\"pid\":7,\"tid\":8}",
      "{\"ts\":1e3,\"pid\":7,\"tid\":8}",
      "{\"ts\":12.5e1,\"pid\":7,\"tid\":8}",
      "{\"ts\":12.5,\"pid\":7e1,\"tid\":8}",
      "{\"ts\":12.5,\"pid\":7,\"tid\":8-}",
      "{\"ts\":9223372036854775,\"pid\":7,\"tid\":8}",
      "{\"ts\":9223372036854774,\"pid\":7,\"tid\":8}",
      "{\"ts\":123456789012345678,\"pid\":7,\"tid\":8}",
      "{\"ts\":1234567890123456789,\"pid\":7,\"tid\":8}",
      "{\"ts\":1,\"pid\":123456789012345678,\"tid\":8}",
      "{\"ts\":1,\"pid\":1234567890123456789,\"tid\":8}",
      "{\"ts\":1,\"pid\":-9223372036854775808,\"tid\":8}",
      "{\"ts\":1,\"pid\":99999999999999999999,\"tid\":8}",
      "{\"ts\":--1,\"pid\":7,\"tid\":8}",
      /* 16 digits, as the plugin writes times: read eight at a time */
      "{\"ts\":1795894523012283.928,\"pid\":1,\"tid\":2}",
      "{\"ts\":-1795894523012283.928,\"pid\":1,\"tid\":2}",
      "{\"ts\":1795894523012283,\"pid\":1,\"tid\":2}",
      "{\"ts\":0000000000000000.5,\"pid\":1,\"tid\":2}",
      "{\"ts\":9999999999999999.999,\"pid\":1,\"tid\":2}",
      "{\"ts\":17958945230122839.5,\"pid\":1,\"tid\":2}",
      "{\"ts\":179589452301228.5,\"pid\":1,\"tid\":2}",
      "{\"ts\":1795894523012a83.928,\"pid\":1,\"tid\":2}",
      "{\"ts\":179589452301228:.928,\"pid\":1,\"tid\":2}",
      "{\"ts\":1795894/23012283.928,\"pid\":1,\"tid\":2}",
      "{\"ts\":1795894523012283e1,\"pid\":1,\"tid\":2}",
      "{\"ts\":1795894523012283.,\"pid\":1,\"tid\":2}",
      "{\"ts\":-,\"pid\":7,\"tid\":8}",
  };
  js_fields scratch;
  js_fields_init(&scratch);
  for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
    js_value pv = {points[i], strlen(points[i]), JS_OBJECT, false};
    rec_point got;
    bool ok = rec_point_decode(&pv, &scratch, points[i], &got);
    /* the general decoding, by hand */
    rec_point want = {0, -1, -1, false};
    bool want_ok =
        js_fields_decode(&f, pv.ptr, pv.ptr + pv.len, pv.ptr, false) &&
        js_to_ns(js_get(&f, K_ts), &want.ts);
    if (want_ok) {
      js_to_i64(js_get(&f, K_pid), &want.pid);
      js_to_i64(js_get(&f, K_tid), &want.tid);
      want.present = true;
    } else {
      want.ts = 0;
    }
    assert_int_equal(ok, want_ok);
    assert_int_equal(got.present, want.present);
    assert_int_equal(got.ts, want.ts);
    assert_int_equal(got.pid, want.pid);
    assert_int_equal(got.tid, want.tid);
  }
}

/* A reference for containers: the length of the object or array at
 * `open`, or 0 when it is not closed properly, byte by byte. */
static size_t container_len_bytewise(const char *open, const char *end) {
  char stack[64];
  int depth = 0;
  for (const char *q = open; q < end; q++) {
    if (*q == '"') {
      bool escaped;
      q += string_len_bytewise(q, end, &escaped) + 1;
      if (q >= end)
        return 0;
      continue;
    }
    if (*q == '{' || *q == '[') {
      if (depth == 64)
        return 0;
      stack[depth++] = *q == '{' ? '}' : ']';
    } else if (*q == '}' || *q == ']') {
      if (depth == 0 || stack[depth - 1] != *q)
        return 0;
      if (--depth == 0)
        return (size_t)(q + 1 - open);
    }
  }
  return 0;
}

/* The line {"d":CONTAINER} up to `end`: js_object_next skips the value
 * as container_len_bytewise measures it, or fails where it finds none. */
static void container_as_bytewise(const char *line, const char *end) {
  const char *value = line + 5;
  size_t want = container_len_bytewise(value, end);
  js_iter it;
  js_value k, v;
  assert_true(js_object_begin(&it, line, end, line));
  bool ok = js_object_next(&it, &k, &v);
  if (want == 0) {
    assert_false(ok);
    assert_non_null(it.error);
  } else {
    assert_true(ok);
    assert_int_equal(v.len, want);
    assert_ptr_equal(v.ptr, value);
  }
}

/* Containers skipped eight bytes at a time: every bracket (and the
 * bytes one bit away from one: '{' ^ 0x20 is '[', but also 'k' ^ 0x20 =
 * 'K' must not count) at every place of the eight-byte steps, strings with
 * brackets and escaped quotes inside, mismatched and unclosed ones; each
 * gives the length (or failure) the byte-at-a-time reference gives. */
static void containers_match_bytewise(void **state) {
  (void)state;
  static const char *const pieces[] = {"{",       "}",
                                       "[",       "]",
                                       "\"a{]\"", "\"\\\"}\"",
                                       "1",       "[]",
                                       "{}",      ",",
                                       ":",       "\"k\"",
                                       "K",       "{\"x\":[1,{\"y\":\"]\"}]}",
                                       "   ",     ";",
                                       "}}",      "]]"};
  const size_t npieces = sizeof pieces / sizeof pieces[0];
  uint64_t rng = 12345;
  char body[160], line[200];
  for (int round = 0; round < 20000; round++) {
    size_t len = 0;
    body[0] = '\0';
    int n = (int)(rng % 12);
    for (int i = 0; i < n; i++) {
      rng = rng * 6364136223846793005u + 1442695040888963407u;
      const char *piece = pieces[(rng >> 33) % npieces];
      size_t pl = strlen(piece);
      if (len + pl + 1 >= sizeof body)
        break;
      memcpy(body + len, piece, pl + 1);
      len += pl;
    }
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    const char *open = (rng >> 40) & 1 ? "[" : "{";
    const char *close = (rng >> 41) & 1 ? "]" : "}";
    /* the container is the value of "d", so that js_object_next skips it */
    snprintf(line, sizeof line, "{\"d\":%s%s%s}", open, body, close);
    container_as_bytewise(line, line + strlen(line));
  }
  /* an escaped quote, an escaped backslash before a quote, and a bracket
   * in a string at every place of two sixteen-byte blocks; lines cut at
   * every length */
  static const char *const inner[] = {"\"a\\\"]\"", "\"\\\\\"", "\"}\"",
                                      "\"\\\\\\\"{\""};
  for (size_t k = 0; k < sizeof inner / sizeof inner[0]; k++)
    for (int shift = 0; shift < 40; shift++) {
      snprintf(line, sizeof line, "{\"d\":[%*s%s,1]}", shift, "", inner[k]);
      const char *end = line + strlen(line);
      for (const char *cut = line + 6; cut <= end; cut++)
        container_as_bytewise(line, cut);
    }
}

/* The block masks (scan_blocks.h) against a byte loop: the portable
 * 8-byte form on random blocks of the bytes that matter, their neighbours
 * one bit away ('K', 'k', ';', '|', 0xDB, 0xFB...) and any byte; the
 * block the scanner uses on this machine (16 bytes with SSE2) against the
 * 8-byte form. */
static void block_masks_match_bytewise(void **state) {
  (void)state;
  static const unsigned char alphabet[] = {
      '"',  '\\', '{',  '}',         '[',         ']',  'K',
      'k',  ';',  '|',  0x5C ^ 0x20, 0x22 ^ 0x20, 0xDB, 0xFB,
      0xDD, 0xFD, 0x00, 0x80,        0xFF,        'x',  ' '};
  uint64_t rng = 99;
  char block[16];
  for (int round = 0; round < 200000; round++) {
    for (int i = 0; i < 16; i++) {
      rng = rng * 6364136223846793005u + 1442695040888963407u;
      unsigned r = (unsigned)(rng >> 33);
      block[i] = (char)(r & 1 ? alphabet[(r >> 1) % sizeof alphabet]
                              : (unsigned char)(r >> 8));
    }
    unsigned q = 0, b = 0, br = 0;
    for (int i = 0; i < 8; i++) {
      char c = block[i];
      q |= (unsigned)(c == '"') << i;
      b |= (unsigned)(c == '\\') << i;
      br |= (unsigned)(c == '{' || c == '}' || c == '[' || c == ']') << i;
    }
    block_masks m = masks_of_8(block);
    assert_int_equal(m.quotes, q);
    assert_int_equal(m.backslashes, b);
    assert_int_equal(m.brackets, br);
    block_masks lo = masks_of_8(block), hi = masks_of_8(block + 8);
    block_masks whole = masks_of_block(block);
    if (SCAN_BLOCK == 16) {
      assert_int_equal(whole.quotes, lo.quotes | hi.quotes << 8);
      assert_int_equal(whole.backslashes, lo.backslashes | hi.backslashes << 8);
      assert_int_equal(whole.brackets, lo.brackets | hi.brackets << 8);
    } else {
      assert_int_equal(whole.quotes, lo.quotes);
      assert_int_equal(whole.brackets, lo.brackets);
    }
  }
}

/* js_fields_decode takes the member it expects (the key that followed the
 * previous one last time) without scanning the key; a key that only
 * starts like the expected one, an escaped spelling of it, spaces around
 * the colon, a missing comma and a value that fails all decode as the
 * general path decodes them. */
static void predicted_keys_match_general(void **state) {
  (void)state;
  js_fields f;
  js_fields_init(&f);
  const char *learn = "{\"id\":1,\"ts\":2,\"pid\":3}";
  assert_true(js_fields_decode(&f, learn, learn + strlen(learn), learn, true));
  /* the same order again: every member taken as predicted */
  const char *same = "{\"id\":4,\"ts\":5,\"pid\":6}";
  assert_true(js_fields_decode(&f, same, same + strlen(same), same, true));
  assert_int_equal(js_get(&f, K_ts)->ptr - same, 13);
  assert_int_equal(js_get(&f, K_pid)->ptr[0], '6');
  /* "tsx" starts like "ts": not taken for it */
  const char *longer = "{\"id\":4,\"tsx\":5,\"pid\":6}";
  assert_true(
      js_fields_decode(&f, longer, longer + strlen(longer), longer, true));
  assert_null(js_get(&f, K_ts));
  assert_int_equal(js_get(&f, K_pid)->ptr[0], '6');
  /* "t\u0073" is "ts" escaped: found through the general path */
  const char *esc = "{\"id\":4,\"t\\u0073\":7,\"pid\":6}";
  assert_true(js_fields_decode(&f, esc, esc + strlen(esc), esc, true));
  assert_non_null(js_get(&f, K_ts));
  assert_int_equal(js_get(&f, K_ts)->ptr[0], '7');
  /* spaces around the colon and after the comma */
  js_fields_decode(&f, learn, learn + strlen(learn), learn, true);
  const char *spaced = "{\"id\" : 4 , \"ts\"  :5,\"pid\":6 }";
  assert_true(
      js_fields_decode(&f, spaced, spaced + strlen(spaced), spaced, true));
  assert_int_equal(js_get(&f, K_ts)->ptr[0], '5');
  /* no comma before the expected key: the general path's error */
  const char *nocomma = "{\"id\":4 \"ts\":5}";
  assert_false(
      js_fields_decode(&f, nocomma, nocomma + strlen(nocomma), nocomma, true));
  assert_string_equal(f.error, "',' or '}' expected");
  assert_int_equal(f.error_at, 8);
  /* the expected key's value is bad: the error is the value's */
  js_fields_decode(&f, learn, learn + strlen(learn), learn, true);
  const char *bad = "{\"id\":4,\"ts\":@}";
  assert_false(js_fields_decode(&f, bad, bad + strlen(bad), bad, true));
  assert_string_equal(f.error, "unexpected character");
  assert_int_equal(f.error_at, 13);
  /* the line ends right after the expected key */
  js_fields_decode(&f, learn, learn + strlen(learn), learn, true);
  const char *cut = "{\"id\":4,\"ts\"";
  assert_false(js_fields_decode(&f, cut, cut + strlen(cut), cut, true));
  assert_non_null(f.error);
}

static void event_type_names(void **state) {
  (void)state;
  for (int t = 0; t < ET_COUNT; t++) {
    const char *name = ev_type_json_name((ev_type)t);
    js_value v = {name, strlen(name), JS_STRING, false};
    assert_int_equal(ev_type_from_json(&v), t);
  }
  assert_string_equal(ev_type_short_name(ET_PROXY_STEP), "ProxyStep");
  assert_true(ev_legal_parents(ET_PROXY_STEP) == (1u << ET_PROXY_OP));
  assert_int_equal(ev_legal_parents(ET_GROUP_API), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(timestamps_are_exact),
      cmocka_unit_test(integers_and_hex),
      cmocka_unit_test(strings_and_escapes),
      cmocka_unit_test(nesting_and_types),
      cmocka_unit_test(invalid_lines),
      cmocka_unit_test(fields_any_order),
      cmocka_unit_test(decode_event_record),
      cmocka_unit_test(event_type_names),
      cmocka_unit_test(fast_paths_match_general),
      cmocka_unit_test(states_and_links_match_general),
      cmocka_unit_test(containers_match_bytewise),
      cmocka_unit_test(block_masks_match_bytewise),
      cmocka_unit_test(predicted_keys_match_general),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
