/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_reader.c — reading inputs: folder listing (subfolders in
 * name order, each file once), line splitting
 * across buffer refills and longer than the buffer, an unterminated last
 * line, and the ordered multi-file stream (exact start and end order,
 * sorted in memory or through temporary files; lock step), and inputs
 * that hold no record at all (empty files, blank lines, pad records); the
 * read-ahead threads give exactly what reading alone gives.
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
#include "read/read_ahead.h"
#include "read/trace_reader.h"

static char *dir; /* the group's temporary folder (test_dir.h) */

static int make_dir(void **state) {
  (void)state;
  cli_globals.quiet = true;
  dir = test_dir_make("reader");
  return dir ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  return test_dir_remove();
}

static void write_file(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void lines_and_buffers(void **state) {
  (void)state;
  /* a line 3x longer than the 4 KiB minimum buffer, then a short one, then
   * an unterminated last line */
  size_t n = 12000;
  char *text = malloc(n + 64);
  assert_non_null(text);
  memset(text, 'x', n);
  memcpy(text, "{\"recordType\":", 14); /* (else: not a trace) */
  strcpy(text + n, "\nshort\nlast");
  write_file("lines.txt", text);
  char path[512];
  snprintf(path, sizeof path, "%s/lines.txt", dir);
  tr_file f;
  assert_int_equal(tr_open(&f, path, 4096), 0);
  assert_int_equal(tr_next(&f), 1);
  assert_int_equal(f.line_len, n);
  assert_false(f.line_unterminated);
  assert_int_equal(f.line_no, 1);
  assert_int_equal(tr_next(&f), 1);
  assert_int_equal(f.line_len, 5);
  assert_memory_equal(f.line, "short", 5);
  assert_int_equal(tr_next(&f), 1);
  assert_int_equal(f.line_len, 4);
  assert_true(f.line_unterminated);
  assert_int_equal(f.line_no, 3);
  assert_int_equal(tr_next(&f), 0);
  assert_int_equal(f.bytes_read, n + 11);
  tr_close(&f);
  free(text);
  assert_int_equal(tr_open(&f, "/nonexistent/x", 4096), 2 /* ENOENT */);
}

static void folder_listing(void **state) {
  (void)state;
  write_file("b.jsonl", "{}\n");
  write_file("a.jsonl", "{}\n");
  write_file("notes.txt", "x\n");
  tr_inputs in;
  char *args[] = {dir};
  assert_true(tr_inputs_collect(&in, 1, args));
  assert_int_equal(in.n, 2);
  assert_non_null(strstr(in.paths[0], "/a.jsonl"));
  assert_non_null(strstr(in.paths[1], "/b.jsonl"));
  tr_inputs_free(&in);
  char *missing[] = {"/nonexistent/dir"};
  assert_false(tr_inputs_collect(&in, 1, missing));
  char p[512];
  snprintf(p, sizeof p, "%s/a.jsonl", dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/b.jsonl", dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/notes.txt", dir);
  unlink(p);
}

/* Per-node subfolders are walked too, in name order, each file once:
 * hidden names are left out, a symbolic link back to a folder being read
 * is not followed again, a link to a file already taken and a file named
 * beside its folder (or a folder named twice) add nothing. */
static void folder_walk(void **state) {
  (void)state;
  static const char *const folders[] = {"walk", "walk/node1", "walk/node0",
                                        "walk/.hidden", "walk/node1/deeper"};
  for (size_t i = 0; i < sizeof folders / sizeof *folders; i++) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, folders[i]);
    assert_int_equal(mkdir(p, 0700), 0);
  }
  const char *pad = "{\"recordType\":\"pad\"}\n";
  write_file("walk/top.jsonl", pad);
  write_file("walk/node1/b.jsonl.zst", pad); /* (by name only here) */
  write_file("walk/node1/deeper/c.jsonl", pad);
  write_file("walk/node0/a.jsonl", pad);
  write_file("walk/node0/.a.jsonl", pad);
  write_file("walk/node0/notes.txt", pad);
  write_file("walk/.hidden/h.jsonl", pad);
  char link[512], top[512], named[512];
  snprintf(link, sizeof link, "%s/walk/node0/loop", dir);
  assert_int_equal(symlink("..", link), 0);
  snprintf(link, sizeof link, "%s/walk/node1/again.jsonl", dir);
  assert_int_equal(symlink("../node0/a.jsonl", link), 0);
  snprintf(top, sizeof top, "%s/walk", dir);
  snprintf(named, sizeof named, "%s/walk/node0/a.jsonl", dir);
  static const char *const want[] = {
      "/walk/node0/a.jsonl", "/walk/node1/b.jsonl.zst",
      "/walk/node1/deeper/c.jsonl", "/walk/top.jsonl"};
  /* the folder, then the folder again and a file in it */
  char *args[] = {top, top, named};
  tr_inputs in;
  assert_true(tr_inputs_collect(&in, 3, args));
  assert_int_equal(in.n, 4);
  for (size_t i = 0; i < 4; i++) {
    size_t n = strlen(in.paths[i]), m = strlen(want[i]);
    assert_true(n >= m);
    assert_string_equal(in.paths[i] + n - m, want[i]);
  }
  tr_inputs_free(&in);
  /* a file first keeps its name; the folder adds the others */
  char *first[] = {named, top};
  assert_true(tr_inputs_collect(&in, 2, first));
  assert_int_equal(in.n, 4);
  assert_string_equal(in.paths[0], named);
  tr_inputs_free(&in);
  /* a folder whose tree holds no trace file is an error (what is hidden
   * in it does not count) */
  char empty[512];
  snprintf(empty, sizeof empty, "%s/walk/node1/none", dir);
  assert_int_equal(mkdir(empty, 0700), 0);
  write_file("walk/node1/none/notes.txt", pad);
  write_file("walk/node1/none/.h.jsonl", pad);
  char *none[] = {empty};
  assert_false(tr_inputs_collect(&in, 1, none));
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
  assert_int_equal(system(cmd), 0);
}

/* An event line starting at `start` us and ending at `stop` us. */
static void event_line(char *buf, size_t cap, int id, int start, int stop) {
  snprintf(buf, cap,
           "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyStep\","
           "\"id\":\"0x%x\",\"parentId\":null,\"ctx\":1,\"commId\":\"0x1\","
           "\"rank\":0,\"start\":{\"ts\":%d.000,\"pid\":1,\"tid\":1},\"stop\":"
           "{\"ts\":%d.000,\"pid\":1,\"tid\":1},\"duration\":%d.000,\"end\":"
           "\"stopped\",\"details\":{}}\n",
           id, start, stop, stop - start);
}

/* Two files written in end order; merged by start they interleave. */
static void write_two_files(void) {
  /* file 1: events (start,stop) (10,20) (5,30) (25,40) (1,50)
   * file 2: (12,15) (16,35) (2,45) */
  static const int f1[][2] = {{10, 20}, {5, 30}, {25, 40}, {1, 50}};
  static const int f2[][2] = {{12, 15}, {16, 35}, {2, 45}};
  char text[4096] = "", line[512];
  for (int i = 0; i < 4; i++) {
    event_line(line, sizeof line, i + 1, f1[i][0], f1[i][1]);
    strcat(text, line);
  }
  strcat(text, "{\"recordType\":\"pad\"      }\n");
  write_file("t1.jsonl", text);
  text[0] = '\0';
  for (int i = 0; i < 3; i++) {
    event_line(line, sizeof line, i + 1, f2[i][0], f2[i][1]);
    strcat(text, line);
  }
  strcat(text, "not json\n");
  write_file("t2.jsonl", text);
}

/* Start order, end order and lock step, sorted in memory and with a budget
 * so small that every few lines go to a temporary file. */
static void check_orders(size_t memory) {
  tr_inputs in;
  char *args[] = {dir};
  assert_true(tr_inputs_collect(&in, 1, args));
  ord_reader o;
  assert_true(ord_open(&o, &in, ORD_START, memory, "test"));
  if (memory < 1000)
    assert_true(o.nruns > 2); /* it really spilled */
  else
    assert_int_equal(o.nruns, 1);
  static const int want[] = {1, 2, 5, 10, 12, 16, 25};
  static const size_t files[] = {0, 1, 0, 0, 1, 1, 0};
  ord_where w;
  const rec *r;
  size_t n = 0;
  while ((r = ord_next(&o, &w)) != NULL) {
    assert_true(n < 7);
    assert_int_equal(r->start.ts, want[n] * 1000);
    assert_int_equal(w.key, want[n] * 1000);
    assert_int_equal(w.file, files[n]);
    n++;
  }
  assert_int_equal(n, 7);
  assert_false(o.failed);
  assert_int_equal(o.invalid, 1);
  ord_close(&o);

  assert_true(ord_open(&o, &in, ORD_END, memory, "test"));
  static const int stops[] = {15, 20, 30, 35, 40, 45, 50};
  n = 0;
  while ((r = ord_next(&o, &w)) != NULL) {
    assert_int_equal(r->stop.ts, stops[n] * 1000);
    n++;
  }
  assert_int_equal(n, 7);
  ord_close(&o);

  /* lock step: by write (stop) time too, one line per file at a time */
  assert_true(ord_open(&o, &in, ORD_LOCKSTEP, 0, "test"));
  n = 0;
  while ((r = ord_next(&o, &w)) != NULL) {
    assert_int_equal(r->stop.ts, stops[n] * 1000);
    n++;
  }
  assert_int_equal(n, 7);
  ord_close(&o);
  tr_inputs_free(&in);
}

static void ordered_in_memory(void **state) {
  (void)state;
  write_two_files();
  check_orders(256u << 20);
}

static void ordered_through_temp_files(void **state) {
  (void)state;
  write_two_files();
  check_orders(700); /* about two lines per chunk */
}

/* Inputs without a single record: every mode opens them, yields nothing,
 * counts the blank and invalid lines of a trace as invalid and fails
 * nothing (UBSan: no qsort of a NULL array); an empty file and one of
 * blank lines only are no traces (TR_ERR_EMPTY): unreadable, not read as
 * a trace of zero records. ord_inputs_empty says so before reading, and
 * stops saying it once one file holds a record. */
static void ordered_without_records(void **state) {
  (void)state;
  char sub[512];
  snprintf(sub, sizeof sub, "%s/no_records", dir);
  assert_int_equal(mkdir(sub, 0700), 0);
  write_file("no_records/trace_a_empty.jsonl", "");
  write_file("no_records/trace_b_blank.jsonl", "\n\n\n");
  write_file("no_records/trace_c_pad.jsonl", "{\"recordType\":\"pad\"}\n");
  write_file("no_records/trace_d_invalid.jsonl", "{\"recordType\":\"ev\n\n\n");
  tr_inputs in;
  char *args[] = {sub};
  assert_true(tr_inputs_collect(&in, 1, args));
  assert_int_equal(in.n, 4);
  uint64_t invalid = 99;
  assert_true(ord_inputs_empty(&in, &invalid));
  assert_int_equal(invalid, 3);
  tr_file tf;
  assert_int_equal(tr_open(&tf, in.paths[0], 4096), TR_ERR_EMPTY);
  assert_int_equal(tr_open(&tf, in.paths[1], 4096), TR_ERR_EMPTY);
  static const ord_mode modes[] = {ORD_START, ORD_END, ORD_LOCKSTEP};
  static const size_t budgets[] = {256u << 20, 700};
  for (size_t m = 0; m < 3; m++)
    for (size_t b = 0; b < 2; b++) {
      ord_reader o;
      ord_where w;
      assert_true(ord_open(&o, &in, modes[m], budgets[b], "test"));
      assert_null(ord_next(&o, &w));
      assert_null(ord_next(&o, &w));
      assert_false(o.failed);
      assert_int_equal(o.records, 0);
      assert_int_equal(o.invalid, 3);
      assert_int_equal(o.unreadable_files, 2); /* the empty, the blank */
      ord_close(&o);
    }
  tr_inputs_free(&in);

  char line[512];
  event_line(line, sizeof line, 1, 10, 20);
  write_file("no_records/trace_e_one.jsonl", line);
  assert_true(tr_inputs_collect(&in, 1, args));
  assert_false(ord_inputs_empty(&in, &invalid));
  tr_inputs_free(&in);
}

/* ---- read ahead (read/read_ahead.h) ---- */

/* A file of `n` event lines with a few invalid and blank ones, one line
 * longer than a whole chunk, and (`unterminated`) no newline at the end. */
static void write_mixed_file(const char *name, int n, bool unterminated) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  char line[512];
  for (int i = 1; i <= n; i++) {
    if (i % 97 == 0) {
      fputs("{\"recordType\":\"event\",\"id\":\n", f); /* invalid */
      continue;
    }
    if (i % 101 == 0) {
      fputs("\n", f);
      continue;
    }
    if (i == n / 2) { /* longer than RA_CHUNK_MAX: a chunk of its own */
      fputs("{\"recordType\":\"mark\",\"ts\":7.5,\"name\":\"", f);
      for (int k = 0; k < (RA_CHUNK_MAX + 1000) / 10; k++)
        fputs("0123456789", f);
      fputs("\"}\n", f);
      continue;
    }
    event_line(line, sizeof line, i, i, 2 * i);
    fputs(line, f);
  }
  if (unterminated)
    fputs("{\"recordType\":\"mark\",\"ts\":1.0}", f);
  fclose(f);
}

/* ---- records kept through the sort (ordered_reader.c) ---- */

/* Every field of two decoded records but the line's and fields' places. */
static void same_fields(const rec *a, const rec *b) {
  assert_int_equal(a->rt, b->rt);
  assert_int_equal(a->len, b->len);
  assert_int_equal(a->et, b->et);
  assert_int_equal(a->has_id, b->has_id);
  assert_int_equal(a->id, b->id);
  assert_int_equal(a->parent, b->parent);
  assert_int_equal(a->parent_id, b->parent_id);
  assert_int_equal(a->parent_raw, b->parent_raw);
  assert_int_equal(a->has_ctx, b->has_ctx);
  assert_int_equal(a->ctx, b->ctx);
  assert_int_equal(a->has_comm, b->has_comm);
  assert_int_equal(a->comm_id, b->comm_id);
  assert_int_equal(a->rank, b->rank);
  const rec_point *pa[] = {&a->start, &a->stop}, *pb[] = {&b->start, &b->stop};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(pa[i]->ts, pb[i]->ts);
    assert_int_equal(pa[i]->pid, pb[i]->pid);
    assert_int_equal(pa[i]->tid, pb[i]->tid);
    assert_int_equal(pa[i]->present, pb[i]->present);
  }
  assert_int_equal(a->end, b->end);
  assert_int_equal(a->has_end_ts, b->has_end_ts);
  assert_int_equal(a->end_ts, b->end_ts);
  assert_int_equal(a->has_ts, b->has_ts);
  assert_int_equal(a->ts, b->ts);
}

/* A file of every kind of record, escaped strings and keys, a foreign and
 * a dropped parent, records without a time, invalid and pad lines. */
static void write_varied_file(const char *name, int n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("{\"recordType\":\"process\",\"hostname\":\"h\\\"1\",\"pid\":7,"
        "\"handleTag\":\"0x2a\",\"ts\":1.5}\n",
        f);
  for (int i = 1; i <= n; i++) {
    int start = (i * 37) % 1000 + 10, stop = start + i % 13;
    switch (i % 7) {
    case 0:
      fprintf(f,
              "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyStep\","
              "\"id\":\"0x%x\",\"parentId\":\"0x1\",\"ctx\":1,"
              "\"commId\":\"0x4000\",\"rank\":%d,\"start\":{\"ts\":%d.250,"
              "\"pid\":7,\"tid\":8},\"stop\":{\"ts\":%d.5,\"pid\":7,"
              "\"tid\":8},\"end\":\"stopped\",\"details\":{\"isSend\":true,"
              "\"step\":%d},\"states\":[{\"id\":9,\"name\":\"SendWait\","
              "\"ts\":%d.3,\"transSize\":512}]}\n",
              i, i % 4, start, stop, i, start);
      break;
    case 1:
      fprintf(f,
              "{\"recordType\":\"event\",\"type\":\"ncclProfileColl\","
              "\"id\":\"0x%x\",\"parentId\":null,\"parentRaw\":"
              "\"0x%x\",\"parentStatus\":\"foreign\",\"originPid\":9,"
              "\"rank\":0,\"func\":\"All\\u0052educe\\t\",\"start\":"
              "{\"ts\":%d,\"pid\":7,\"tid\":8},\"endTs\":%d,\"end\":"
              "\"inflight\"}\n",
              i, 0x1000 + i, start, stop);
      break;
    case 2:
      fprintf(f,
              "{\"recordType\":\"timing\",\"ctx\":2,\"rank\":1,"
              "\"startNs\":%d000,\"stopNs\":%d000,\"durationNs\":5,"
              "\"source\":\"gpu\",\"gpu\":{\"startNs\":1,\"stopNs\":2}}\n",
              start, stop);
      break;
    case 3:
      fputs("{\"recordType\":\"mark\",\"name\":\"step \\\"3\\\"\"}\n", f);
      break;
    case 4:
      fputs(i % 2 ? "{\"recordType\":\"pad\"}\n" : "{\"recordType\":\n", f);
      break;
    case 5:
      fprintf(f,
              "{\"recordType\":\"event\",\"type\":\"ncclProfileKernelCh\","
              "\"id\":\"0x%x\",\"parentId\":null,\"parentStatus\":"
              "\"dropped\",\"ctx\":1,\"rank\":2,\"start\":{\"ts\":%d.001,"
              "\"pid\":7,\"tid\":9},\"stop\":{\"ts\":%d.999,\"pid\":7,"
              "\"tid\":9},\"end\":\"reclaimed\",\"f\\u006fo\":[1,{\"a\":2}],"
              "\"unknownKey\":\"x\"}\n",
              i, start, stop);
      break;
    default:
      event_line(path, sizeof path, i, start, stop);
      fputs(path, f);
    }
  }
  fclose(f);
}

/* The records of the sort (start and end order, in memory and spilled
 * every few records, read on 1, 2 and 4 threads) are exactly what decoding
 * their line again gives: every field and every top-level member at the
 * same place in the line, so ord_next need not decode them twice; and
 * ord_open_lines gives the same lines in the same order. */
static void ordered_records_as_decoded(void **state) {
  (void)state;
  char sub[512];
  snprintf(sub, sizeof sub, "%s/kept", dir);
  assert_int_equal(mkdir(sub, 0700), 0);
  write_varied_file("kept/trace_a.jsonl", 700);
  write_varied_file("kept/trace_b.jsonl", 300);
  write_mixed_file("kept/trace_c.jsonl", 500, true);
  tr_inputs in;
  char *args[] = {sub};
  assert_true(tr_inputs_collect(&in, 1, args));
  rec_scratch *ws = malloc(sizeof *ws);
  assert_non_null(ws);
  rec_scratch_init(ws);
  unsigned saved_jobs = tr_jobs;
  static const unsigned jobs[] = {1, 2, 4};
  static const size_t budgets[] = {256u << 20, 8192};
  static const ord_mode modes[] = {ORD_START, ORD_END};
  for (size_t j = 0; j < 3; j++)
    for (size_t b = 0; b < 2; b++)
      for (size_t m = 0; m < 2; m++) {
        tr_jobs = jobs[j];
        ord_reader o, lines;
        assert_true(ord_open(&o, &in, modes[m], budgets[b], "test"));
        assert_true(ord_open_lines(&lines, &in, modes[m], budgets[b], "test"));
        if (b == 1)
          assert_true(o.nruns > 10); /* it really spilled */
        ord_where w, lw;
        const rec *r, *l;
        uint64_t n = 0;
        while ((r = ord_next(&o, &w)) != NULL) {
          l = ord_next(&lines, &lw);
          assert_non_null(l);
          assert_int_equal(l->len, r->len);
          assert_memory_equal(l->line, r->line, r->len);
          assert_int_equal(lw.file, w.file);
          assert_int_equal(lw.line_no, w.line_no);
          rec want;
          assert_true(rec_decode(&want, ws, r->line, r->len));
          same_fields(r, &want);
          assert_ptr_equal(r->f, &o.out_scratch->top);
          for (int k = 1; k < K_KEY_COUNT; k++) {
            const js_value *a = js_get(&ws->top, (js_key)k);
            const js_value *c = js_get(r->f, (js_key)k);
            assert_int_equal(a == NULL, c == NULL);
            if (!a)
              continue;
            assert_ptr_equal(a->ptr, c->ptr); /* the same line */
            assert_int_equal(a->len, c->len);
            assert_int_equal(a->type, c->type);
            assert_int_equal(a->escaped, c->escaped);
          }
          n++;
        }
        assert_null(ord_next(&lines, &lw));
        assert_false(o.failed);
        assert_int_equal(n, o.records);
        assert_true(n > 1000);
        ord_close(&o);
        ord_close(&lines);
      }
  tr_jobs = saved_jobs;
  free(ws);
  for (size_t i = 0; i < in.n; i++)
    unlink(in.paths[i]);
  tr_inputs_free(&in);
  rmdir(sub); /* the tests after this one list the whole folder */
}

/* What tr_next + rec_decode give for one line, against ra_next. */
static void same_line(const tr_file *tf, const rec *want, bool want_parsed,
                      const rec_scratch *ws, const ra_line_info *got,
                      const rec *r, bool parsed, const rec_scratch *s) {
  assert_int_equal(got->line_len, tf->line_len);
  assert_memory_equal(got->line, tf->line, tf->line_len);
  assert_int_equal(got->line_no, tf->line_no);
  assert_int_equal(got->line_unterminated, tf->line_unterminated);
  assert_int_equal(parsed, want_parsed);
  assert_ptr_equal(r->line, got->line);
  assert_int_equal(r->len, want->len);
  if (!parsed) {
    assert_ptr_equal(s->top.error, ws->top.error);
    assert_int_equal(s->top.error_at, ws->top.error_at);
    return;
  }
  assert_int_equal(r->rt, want->rt);
  assert_int_equal(r->id, want->id);
  assert_int_equal(r->start.ts, want->start.ts);
  assert_int_equal(r->stop.ts, want->stop.ts);
  assert_int_equal(r->has_ts, want->has_ts);
  assert_int_equal(r->ts, want->ts);
  assert_ptr_equal(r->f, &s->top);
  /* every top-level member, at the same place in the line */
  for (int k = 1; k < K_KEY_COUNT; k++) {
    const js_value *a = js_get(&ws->top, (js_key)k);
    const js_value *b = js_get(&s->top, (js_key)k);
    assert_int_equal(a == NULL, b == NULL);
    if (!a)
      continue;
    assert_int_equal(a->ptr - tf->line, b->ptr - got->line);
    assert_int_equal(a->len, b->len);
    assert_int_equal(a->type, b->type);
  }
}

/* Files read ahead on 1, 2, 4 and 8 threads, in chunks of the default size
 * and of 4 KiB (dozens of chunks per file, several of one file decoded at
 * once by different threads, the consumer decoding some of them itself),
 * consumed in lock step (one line of each in turn, as summary does) or one
 * after the other (as check does), give exactly what reading each file
 * alone gives: lines, numbers, records, members, invalid lines, the
 * unterminated last line, the end, and a file that cannot be opened (one
 * missing, one empty: no trace) where it is first read. */
static void read_ahead_same_as_reading(void **state) {
  (void)state;
  write_mixed_file("ra_a.jsonl", 3000, false);
  write_mixed_file("ra_b.jsonl", 1200, true);
  write_file("ra_c.jsonl", "");
  char paths[4][512];
  char *list[4];
  snprintf(paths[0], sizeof paths[0], "%s/ra_a.jsonl", dir);
  snprintf(paths[1], sizeof paths[1], "%s/ra_missing.jsonl", dir);
  snprintf(paths[2], sizeof paths[2], "%s/ra_b.jsonl", dir);
  snprintf(paths[3], sizeof paths[3], "%s/ra_c.jsonl", dir);
  for (int i = 0; i < 4; i++)
    list[i] = paths[i];
  rec_scratch *ws = malloc(sizeof *ws), *s = malloc(sizeof *s);
  assert_non_null(ws);
  assert_non_null(s);
  static const struct {
    unsigned jobs;
    size_t chunk_bytes; /* 0: the default */
  } runs[] = {{1, 0}, {2, 0}, {4, 0}, {2, 4096}, {8, 4096}};
  for (int lockstep = 0; lockstep < 2; lockstep++)
    for (size_t j = 0; j < sizeof runs / sizeof runs[0]; j++) {
      ra_reader *ra = ra_open_sized(list, 4, runs[j].jobs, runs[j].chunk_bytes);
      assert_non_null(ra);
      tr_file tf[4];
      bool open[4], done[4] = {false, false, false, false};
      rec_scratch_init(ws);
      rec_scratch_init(s);
      int open_err[4];
      for (int i = 0; i < 4; i++)
        open[i] = (open_err[i] = tr_open(&tf[i], list[i], 4096)) == 0;
      assert_int_equal(open_err[1], 2 /* ENOENT */);
      assert_int_equal(open_err[3], TR_ERR_EMPTY); /* no trace */
      uint64_t lines = 0;
      size_t left = 4;
      for (size_t turn = 0; left > 0; turn++) {
        size_t i = lockstep ? turn % 4 : 4 - left;
        if (done[i])
          continue;
        rec want, r;
        bool parsed;
        ra_line_info got;
        int rc = ra_next(ra, i, s, &r, &parsed, &got);
        if (!open[i]) {
          assert_int_equal(rc, RA_OPEN_ERROR);
          assert_int_equal(got.error, open_err[i]); /* where tr_open said */
        } else if (tr_next(&tf[i]) == 1) {
          assert_int_equal(rc, RA_LINE);
          bool want_parsed = rec_decode(&want, ws, tf[i].line, tf[i].line_len);
          same_line(&tf[i], &want, want_parsed, ws, &got, &r, parsed, s);
          lines++;
          continue;
        } else {
          assert_int_equal(rc, RA_END);
          assert_int_equal(got.bytes_read, tf[i].bytes_read);
          assert_int_equal(got.line_no, tf[i].line_no);
          /* the end stays the end */
          assert_int_equal(ra_next(ra, i, s, &r, &parsed, &got), RA_END);
          tr_close(&tf[i]);
        }
        done[i] = true;
        left--;
      }
      assert_int_equal(lines, 3000 + 1201);
      ra_close(ra);
    }
  /* left unread: closing stops the threads */
  ra_reader *ra = ra_open(list, 4, 2);
  assert_non_null(ra);
  rec r;
  bool parsed;
  ra_line_info got;
  assert_int_equal(ra_next(ra, 0, s, &r, &parsed, &got), RA_LINE);
  ra_close(ra);
  free(ws);
  free(s);
  for (int i = 0; i < 4; i++)
    unlink(paths[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(read_ahead_same_as_reading),
      cmocka_unit_test(ordered_records_as_decoded),
      cmocka_unit_test(lines_and_buffers),
      cmocka_unit_test(folder_listing),
      cmocka_unit_test(folder_walk),
      cmocka_unit_test(ordered_in_memory),
      cmocka_unit_test(ordered_through_temp_files),
      cmocka_unit_test(ordered_without_records),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
