/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_reorder.c — the reorder window (reorder_window.h) and the
 * ordered reader through it (ord_open_window): the same records, lines
 * and order as the external sort (ord_open_lines) on inputs in order,
 * slightly and badly out of order, with late timing records, records
 * without a time, pad and invalid lines, one file or several, by start
 * and by end time, on 1 and 2 threads; within --memory-mb; and giving up
 * (out_of_window) rather than handing out a wrong order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_dir.h"

#include "cli.h"
#include "read/ordered_reader.h"
#include "read/reorder_window.h"
#include "read/trace_reader.h"

static char *dir; /* the group's temporary folder (test_dir.h) */

static int make_dir(void **state) {
  (void)state;
  cli_globals.quiet = true;
  dir = test_dir_make("reorder");
  return dir ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  return test_dir_remove();
}

/* ---- the window alone ---- */

/* Lines come out smallest first, ties by file then line, the ring wraps
 * many times, and the bytes in use never pass the budget. */
static void window_orders_and_wraps(void **state) {
  (void)state;
  reorder_window w;
  const size_t budget = 4096;
  assert_true(rw_init(&w, budget));
  uint64_t pushed = 0, popped = 0;
  int64_t last_key = INT64_MIN;
  uint32_t last_file = 0;
  uint64_t last_line = 0;
  char text[300];
  unsigned seed = 7;
  for (int i = 0; i < 20000; i++) {
    /* keys nearly in order: each at most 3 behind the largest so far, far
     * less than the window holds */
    seed = seed * 1103515245u + 12345u;
    int64_t key = i - (int64_t)(seed >> 16) % 4;
    size_t len = (seed >> 8) % sizeof text;
    memset(text, 'a' + i % 26, len);
    while (!rw_fits(&w, len)) {
      rw_node n;
      const char *t;
      rw_pop(&w, &n, &t);
      assert_true(rw_compare(n.key, n.file, n.line_no, last_key, last_file,
                             last_line) >= 0);
      for (uint32_t k = 0; k < n.len; k++)
        assert_int_equal(t[k], 'a' + (int)(n.line_no % 26));
      last_key = n.key;
      last_file = n.file;
      last_line = n.line_no;
      rw_release(&w);
      popped++;
    }
    assert_true(
        rw_push(&w, key, (uint32_t)(i % 3), (uint64_t)i, NULL, 0, text, len));
    pushed++;
  }
  while (rw_min(&w)) {
    rw_node n;
    const char *t;
    rw_pop(&w, &n, &t);
    rw_release(&w);
    popped++;
  }
  assert_int_equal(pushed, popped);
  assert_true(w.peak <= budget);
  assert_int_equal(w.span, 0);
  rw_free(&w);
}

/* ---- what ordering needs of a line ---- */

/* rec_decode_times gives rec_decode's answer, record type, members and
 * both times (rec_decode_start_time the start time) on every kind of line
 * (escaped keys, the general point form, version 1 and 2 timing records, endTs,
 * gpuActivity, no time, invalid). */
static void times_as_decoded(void **state) {
  (void)state;
  static const char *const lines[] = {
      "{\"recordType\":\"event\",\"type\":\"ncclProfileColl\",\"id\":"
      "\"0x5\",\"start\":{\"ts\":12.5,\"pid\":1,\"tid\":2},\"stop\":{"
      "\"ts\":14.25,\"pid\":1,\"tid\":2},\"end\":\"stopped\"}",
      "{\"recordType\":\"event\",\"type\":\"ncclProfileColl\",\"start\""
      ":{ \"tid\":2, \"ts\":1.5e1,\"pid\":1},\"endTs\":99.001,\"end\":"
      "\"inflight\"}",
      "{\"recordType\":\"event\",\"st\\u0061rt\":{\"ts\":3,\"pid\":1,"
      "\"tid\":1},\"stop\":{\"pid\":1}}",
      "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyStep\"}",
      "{\"recordType\":\"gpuActivity\",\"start\":{\"ts\":7,\"pid\":1,"
      "\"tid\":1},\"stop\":{\"ts\":9,\"pid\":1,\"tid\":1},\"endTs\":5}",
      "{\"recordType\":\"timing\",\"startNs\":1000,\"stopNs\":2000}",
      "{\"recordType\":\"timing\",\"start\":1.5,\"stop\":2.5}",
      "{\"recordType\":\"timing\",\"startNs\":\"x\",\"stop\":2.5}",
      "{\"recordType\":\"state\",\"state\":{\"ts\":4}}",
      "{\"recordType\":\"process\",\"hostname\":\"h\",\"ts\":1.000}",
      "{\"recordType\":\"mark\",\"name\":\"m\"}",
      "{\"recordType\":\"pad\"   }",
      "{\"recordType\":\"somethingNew\",\"ts\":8}",
      "{\"recordType\":",
      "[1,2]",
      "{\"recordType\":\"event\"} x",
  };
  rec_scratch *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  assert_non_null(a);
  assert_non_null(b);
  rec_scratch_init(a);
  rec_scratch_init(b);
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    rec full, times;
    size_t len = strlen(lines[i]);
    bool ok = rec_decode(&full, a, lines[i], len);
    assert_int_equal(rec_decode_times(&times, b, lines[i], len), ok);
    if (!ok)
      continue;
    assert_int_equal(times.rt, full.rt);
    assert_int_equal(rec_start_time(&times), rec_start_time(&full));
    assert_int_equal(rec_write_time(&times), rec_write_time(&full));
    assert_int_equal(times.f->nfound, full.f->nfound);
    assert_true(rec_decode_start_time(&times, b, lines[i], len));
    assert_int_equal(times.rt, full.rt);
    assert_int_equal(rec_start_time(&times), rec_start_time(&full));
  }
  free(a);
  free(b);
}

/* ---- the window against the sort ---- */

typedef enum { IN_ORDER, SLIGHTLY, BADLY, UNTIMED_TIMING } input_kind;

/* A trace file as the plugin writes one, `n` events: in the order of their
 * end, their durations (and so how late each comes by start time) set by
 * `kind`; a timing record for every 8th event, written `lag` events after
 * it; marks without a time, pad and invalid lines (one of them an invalid
 * timing line). */
static void write_trace(const char *path, int n, input_kind kind, int lag,
                        unsigned seed) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f,
          "{\"recordType\":\"process\",\"hostname\":\"h\",\"pid\":%u,"
          "\"ts\":1000.000}\n",
          seed);
  fputs("{\"recordType\":\"accounting\",\"linesLost\":0}\n", f);
  int64_t *start = malloc((size_t)n * sizeof *start);
  assert_non_null(start);
  for (int i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    unsigned r = seed >> 8;
    /* written as they end: start + duration grows with i */
    int64_t stop = 2000 + (int64_t)i * 10;
    int64_t dur = kind == IN_ORDER   ? 0
                  : kind == SLIGHTLY ? (int64_t)(r % 60)
                                     : (int64_t)(r % (10u * (unsigned)n));
    start[i] = stop - dur;
    fprintf(f,
            "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyStep\","
            "\"id\":\"0x%x\",\"parentId\":null,\"ctx\":1,\"commId\":\"0x1\","
            "\"rank\":0,\"start\":{\"ts\":%lld.%03u,\"pid\":1,\"tid\":1},"
            "\"stop\":{\"ts\":%lld.000,\"pid\":1,\"tid\":1},\"end\":"
            "\"stopped\",\"details\":{\"step\":%d}}\n",
            i + 1, (long long)start[i], r % 1000, (long long)stop, i);
    if (i % 97 == 0) /* after an event: takes its time */
      fputs("{\"recordType\":\"mark\",\"name\":\"no time\"}\n", f);
    int late = i - lag;
    if (late >= 0 && late % 8 == 0) {
      if (kind == UNTIMED_TIMING && late == 80)
        fputs("{\"recordType\":\"timing\",\"ctx\":1,\"rank\":0}\n", f);
      else
        fprintf(f,
                "{\"recordType\":\"timing\",\"ctx\":1,\"rank\":0,"
                "\"startNs\":%lld000,\"stopNs\":%lld500,\"durationNs\":5}\n",
                (long long)start[late], (long long)start[late] + 3);
    }
    if (i % 131 == 0)
      fputs("{\"recordType\":\"pad\"          }\n", f);
    if (i % 173 == 0)
      fputs("{\"recordType\":\n", f);
    if (i % 251 == 0)
      fputs("{\"recordType\":\"timing\",\"startNs\":\n", f);
  }
  free(start);
  fclose(f);
}

/* Make folder `name` with `nfiles` traces of `kind`. */
static void make_input(const char *name, int nfiles, input_kind kind, int n,
                       int lag, tr_inputs *in) {
  char sub[512], path[600];
  snprintf(sub, sizeof sub, "%s/%s", dir, name);
  assert_int_equal(mkdir(sub, 0700), 0);
  for (int i = 0; i < nfiles; i++) {
    snprintf(path, sizeof path, "%s/trace_%d.jsonl", sub, i);
    write_trace(path, n, kind, lag, 11u + (unsigned)i);
  }
  char *args[] = {sub};
  assert_true(tr_inputs_collect(in, 1, args));
}

static void remove_input(tr_inputs *in) {
  char sub[512];
  snprintf(sub, sizeof sub, "%s", in->paths[0]);
  for (size_t i = 0; i < in->n; i++)
    unlink(in->paths[i]);
  char *slash = strrchr(sub, '/');
  if (slash)
    *slash = '\0';
  rmdir(sub);
  tr_inputs_free(in);
}

/* What the window handed out, to compare with the sort once it is
 * known to have got through (before it gives up, what it handed out need
 * not be the sort's order: the caller throws it away). */
typedef struct {
  char *text;
  size_t len;
  size_t file;
  uint64_t line_no;
  int64_t key;
} handed;

/* Through the window: the sort's records exactly (true), or it gave up
 * (false). */
static bool window_as_sort(const tr_inputs *in, ord_mode mode, size_t budget) {
  ord_reader wo, so;
  assert_true(ord_open_window(&wo, in, mode, budget, "test"));
  handed *got = NULL;
  size_t n = 0, cap = 0;
  ord_where ww, sw;
  const rec *wr, *sr;
  while ((wr = ord_next(&wo, &ww)) != NULL) {
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      got = realloc(got, cap * sizeof *got);
      assert_non_null(got);
    }
    got[n].text = malloc(wr->len ? wr->len : 1);
    assert_non_null(got[n].text);
    memcpy(got[n].text, wr->line, wr->len);
    got[n].len = wr->len;
    got[n].file = ww.file;
    got[n].line_no = ww.line_no;
    got[n].key = ww.key;
    n++;
  }
  assert_false(wo.failed);
  assert_true(wo.window->peak <= budget);
  bool complete = !wo.out_of_window;
  if (complete) {
    assert_true(ord_open_lines(&so, in, mode, budget, "test"));
    for (size_t i = 0; i < n; i++) {
      sr = ord_next(&so, &sw);
      assert_non_null(sr);
      assert_int_equal(got[i].len, sr->len);
      assert_memory_equal(got[i].text, sr->line, sr->len);
      assert_int_equal(got[i].file, sw.file);
      assert_int_equal(got[i].line_no, sw.line_no);
      assert_int_equal(got[i].key, sw.key);
    }
    assert_null(ord_next(&so, &sw));
    assert_int_equal(wo.records, so.records);
    assert_int_equal(wo.invalid, so.invalid);
    assert_int_equal(wo.unreadable_files, so.unreadable_files);
    assert_true(so.invalid > 0);
    ord_close(&so);
  }
  for (size_t i = 0; i < n; i++)
    free(got[i].text);
  free(got);
  ord_close(&wo);
  return complete;
}

/* Through ord_open_window_records: each record as rec_decode gives it
 * (fields and members at their place in its line), and the sort's
 * (ord_open) lines in the sort's order (true), or it gave up (false). */
static bool records_as_sort(const tr_inputs *in, size_t budget) {
  ord_reader wo, so;
  assert_true(ord_open_window_records(&wo, in, ORD_START, budget, "test"));
  rec_scratch *ws = malloc(sizeof *ws);
  assert_non_null(ws);
  rec_scratch_init(ws);
  handed *got = NULL;
  size_t n = 0, cap = 0;
  ord_where ww, sw;
  const rec *wr, *sr;
  while ((wr = ord_next(&wo, &ww)) != NULL) {
    rec want;
    assert_true(rec_decode(&want, ws, wr->line, wr->len));
    assert_int_equal(wr->rt, want.rt);
    assert_int_equal(wr->id, want.id);
    assert_int_equal(wr->parent, want.parent);
    assert_int_equal(wr->start.ts, want.start.ts);
    assert_int_equal(wr->stop.ts, want.stop.ts);
    assert_int_equal(wr->has_ts, want.has_ts);
    assert_int_equal(wr->ts, want.ts);
    assert_int_equal(wr->f->nfound, want.f->nfound);
    for (int k = 1; k < K_KEY_COUNT; k++) {
      const js_value *a = js_get(&ws->top, (js_key)k);
      const js_value *c = js_get(wr->f, (js_key)k);
      assert_int_equal(a == NULL, c == NULL);
      if (a)
        assert_ptr_equal(a->ptr, c->ptr); /* the same line */
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      got = realloc(got, cap * sizeof *got);
      assert_non_null(got);
    }
    got[n].text = malloc(wr->len ? wr->len : 1);
    assert_non_null(got[n].text);
    memcpy(got[n].text, wr->line, wr->len);
    got[n].len = wr->len;
    got[n].file = ww.file;
    got[n].line_no = ww.line_no;
    n++;
  }
  assert_false(wo.failed);
  assert_true(wo.window->peak <= budget);
  bool complete = !wo.out_of_window;
  if (complete) {
    assert_true(ord_open(&so, in, ORD_START, budget, "test"));
    for (size_t i = 0; i < n; i++) {
      sr = ord_next(&so, &sw);
      assert_non_null(sr);
      assert_int_equal(got[i].len, sr->len);
      assert_memory_equal(got[i].text, sr->line, sr->len);
      assert_int_equal(got[i].file, sw.file);
      assert_int_equal(got[i].line_no, sw.line_no);
    }
    assert_null(ord_next(&so, &sw));
    assert_int_equal(wo.invalid, so.invalid);
    for (size_t i = 0; i < in->n; i++) { /* the identities perfetto uses */
      assert_int_equal(wo.files[i].id.pid, so.files[i].id.pid);
      assert_int_equal(wo.files[i].id.has_process, so.files[i].id.has_process);
    }
    ord_close(&so);
  }
  for (size_t i = 0; i < n; i++)
    free(got[i].text);
  free(got);
  free(ws);
  ord_close(&wo);
  return complete;
}

/* Every mode and thread count: `complete` says whether the window must
 * get through (true), must give up (false). */
static void expect_window(const tr_inputs *in, size_t budget, bool complete) {
  unsigned saved = tr_jobs;
  static const unsigned jobs[] = {1, 2};
  static const ord_mode modes[] = {ORD_START, ORD_END};
  for (size_t j = 0; j < 2; j++)
    for (size_t m = 0; m < 2; m++) {
      tr_jobs = jobs[j];
      assert_int_equal(window_as_sort(in, modes[m], budget), complete);
    }
  tr_jobs = saved;
}

/* In order and slightly out of order (each event a few places late by
 * start time, timing records 300 events late), one file and three: the
 * window gets through with a few KiB, and gives the sort's order. */
static void window_nearly_in_order(void **state) {
  (void)state;
  tr_inputs in;
  make_input("in_order", 1, IN_ORDER, 3000, 300, &in);
  expect_window(&in, 8192, true);
  remove_input(&in);
  make_input("slightly", 3, SLIGHTLY, 2000, 300, &in);
  expect_window(&in, 64u << 10, true);
  expect_window(&in, 256u << 20, true);
  remove_input(&in);
}

static void append_events(const char *path, int first, int n);

/* The window keeping each record's decoding (perfetto): the records
 * rec_decode gives, in the sort's order, on 1 and 2 threads; it gives up
 * when badly out of order for its budget, and when a file's first record
 * is not its process record (its identity would not be known in time). */
static void window_records(void **state) {
  (void)state;
  unsigned saved = tr_jobs;
  tr_inputs in;
  make_input("records", 3, SLIGHTLY, 1500, 300, &in);
  for (unsigned j = 1; j <= 2; j++) {
    tr_jobs = j;
    assert_true(records_as_sort(&in, 128u << 10));
    assert_true(records_as_sort(&in, 256u << 20));
  }
  remove_input(&in);
  make_input("records_badly", 2, BADLY, 1500, 50, &in);
  assert_false(records_as_sort(&in, 16u << 10));
  remove_input(&in);
  char sub[512], path[600];
  snprintf(sub, sizeof sub, "%s/no_process", dir);
  assert_int_equal(mkdir(sub, 0700), 0);
  snprintf(path, sizeof path, "%s/trace_0.jsonl", sub);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("{\"recordType\":\"mark\",\"name\":\"first\",\"ts\":1.0}\n", f);
  fclose(f);
  append_events(path, 0, 400);
  char *args[] = {sub};
  assert_true(tr_inputs_collect(&in, 1, args));
  assert_false(records_as_sort(&in, 16u << 10));
  remove_input(&in);
  tr_jobs = saved;
}

/* Badly out of order: all of it fits in a large budget (the same order as
 * the sort), a small one gives up; so does a timing record without a
 * time (it would take the time of a record its reader does not see). */
static void window_badly_out_of_order(void **state) {
  (void)state;
  tr_inputs in;
  make_input("badly", 2, BADLY, 2000, 50, &in);
  expect_window(&in, 256u << 20, true);
  expect_window(&in, 16u << 10, false);
  remove_input(&in);
  make_input("untimed", 1, UNTIMED_TIMING, 1000, 20, &in);
  expect_window(&in, 256u << 20, false);
  remove_input(&in);
}

/* Append `n` events from `first` on (in order, written as they end),
 * each 8th followed by its timing record at once. */
static void append_events(const char *path, int first, int n) {
  FILE *f = fopen(path, "a");
  assert_non_null(f);
  for (int i = first; i < first + n; i++) {
    fprintf(f,
            "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyStep\","
            "\"id\":\"0x%x\",\"start\":{\"ts\":%d.000,\"pid\":1,\"tid\":1},"
            "\"stop\":{\"ts\":%d.500,\"pid\":1,\"tid\":1},\"details\":{"
            "\"pad\":\"%0150d\"}}\n",
            i + 1, 2000 + i * 10, 2000 + i * 10, 0);
    if (i % 8 == 0)
      fprintf(f,
              "{\"recordType\":\"timing\",\"startNs\":%d000,"
              "\"stopNs\":%d600}\n",
              2000 + i * 10, 2000 + i * 10);
  }
  fclose(f);
}

/* A file still being written while it is merged: its timing records'
 * reader reaches the end first (the file had none after its first
 * lines); the timing records appended after that are the first reader's,
 * not left out; a last line cut short is not handed out by the timing
 * reader. */
static void window_file_that_grows(void **state) {
  (void)state;
  char sub[512], path[600];
  snprintf(sub, sizeof sub, "%s/grows", dir);
  assert_int_equal(mkdir(sub, 0700), 0);
  snprintf(path, sizeof path, "%s/trace_0.jsonl", sub);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("{\"recordType\":\"process\",\"pid\":1,\"ts\":1000.000}\n", f);
  fclose(f);
  append_events(path, 0, 17); /* timing records for events 0, 8, 16 */
  f = fopen(path, "a");
  assert_non_null(f);
  for (int i = 17; i < 4000; i++) /* ~0.9 MB without timing records */
    fprintf(f,
            "{\"recordType\":\"event\",\"type\":\"ncclProfileKernelCh\","
            "\"id\":\"0x%x\",\"start\":{\"ts\":%d.000,\"pid\":1,\"tid\":1},"
            "\"details\":{\"pad\":\"%0150d\"}}\n",
            i + 1, 2000 + i * 10, 0);
  fclose(f);
  tr_inputs in;
  char *args[] = {sub};
  assert_true(tr_inputs_collect(&in, 1, args));
  unsigned saved = tr_jobs;
  tr_jobs = 1;
  ord_reader wo;
  assert_true(ord_open_window(&wo, &in, ORD_START, 16u << 10, "test"));
  ord_where ww;
  const rec *wr = ord_next(&wo, &ww);
  assert_non_null(wr);
  assert_true(wo.files[0].late_eof); /* its reader is at the end */
  /* the file grows: events and timing records, in order, then a timing
   * record cut short */
  append_events(path, 4000, 2000);
  f = fopen(path, "a");
  assert_non_null(f);
  fputs("{\"recordType\":\"timing\",\"startNs\":99999999000", f);
  fclose(f);
  handed *got = NULL;
  size_t n = 0, cap = 0;
  do {
    if (n == cap) {
      cap = cap ? cap * 2 : 4096;
      got = realloc(got, cap * sizeof *got);
      assert_non_null(got);
    }
    got[n].text = malloc(wr->len ? wr->len : 1);
    assert_non_null(got[n].text);
    memcpy(got[n].text, wr->line, wr->len);
    got[n].len = wr->len;
    got[n].line_no = ww.line_no;
    n++;
  } while ((wr = ord_next(&wo, &ww)) != NULL);
  assert_false(wo.out_of_window);
  assert_false(wo.failed);
  ord_reader so;
  ord_where sw;
  const rec *sr;
  assert_true(ord_open_lines(&so, &in, ORD_START, 16u << 10, "test"));
  for (size_t i = 0; i < n; i++) {
    sr = ord_next(&so, &sw);
    assert_non_null(sr);
    assert_int_equal(got[i].line_no, sw.line_no);
    assert_int_equal(got[i].len, sr->len);
    assert_memory_equal(got[i].text, sr->line, sr->len);
  }
  assert_null(ord_next(&so, &sw));
  assert_int_equal(wo.invalid, so.invalid);
  assert_int_equal(wo.invalid, 1); /* the cut timing record */
  for (size_t i = 0; i < n; i++)
    free(got[i].text);
  free(got);
  ord_close(&so);
  ord_close(&wo);
  tr_jobs = saved;
  remove_input(&in);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(window_orders_and_wraps),
      cmocka_unit_test(times_as_decoded),
      cmocka_unit_test(window_nearly_in_order),
      cmocka_unit_test(window_badly_out_of_order),
      cmocka_unit_test(window_file_that_grows),
      cmocka_unit_test(window_records),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
