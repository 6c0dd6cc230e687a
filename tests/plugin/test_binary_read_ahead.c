/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_binary_read_ahead.c — reading binary traces.
 *
 * A frame's records are made text a piece at a time
 * (src/cli/read/cst_records.c: cst_records_more), never the whole frame
 * at once: the pieces hold what the frame made text in one go holds, each
 * at most the size asked for and one line; a corrupt record ends the frame
 * after the pieces before it; a file of one large frame reads as that
 * frame's text.
 *
 * Binary traces read ahead (src/cli/read/read_ahead.c) give exactly what
 * reading the file line by line gives (tr_next + rec_decode): lines,
 * line numbers, records, members, the end, its error, the bytes read and
 * the text. The plugin's writer makes the files (stored and zstd frames,
 * dozens of them, each with its writer and context records, one context
 * without communicator info and one that does not exist); copies are cut
 * inside their last frame (torn), inside a frame's header, given a frame
 * whose records are corrupt in the middle, and a frame header that is
 * not one. Each is read on 1, 2 and 4 threads, in chunks of the default
 * size and of a few bytes (one frame a chunk: many of one file decoded at
 * once), one file after the other and in lock step, beside a JSONL file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "cst_format.h"
#include "host_info.h"
#include "out_dir.h"
#include "read/cst_records.h"
#include "read/read_ahead.h"
#include "read/trace_codec.h"
#include "read/trace_reader.h"
#include "read/trace_record.h"
#include "trace_jsonl.h"
#include "trace_read.h"

/* 3 ticks per ns; the epoch offset fixed. */
static cs_clock_cal *fixed_cal(void) {
  cs_clock_cal *cal = calloc(1, sizeof *cal);
  assert_non_null(cal);
  cs_clock_cal_start(cal, CS_CLOCK_COUNTER);
  cal->epoch_offset = INT64_C(1700000000000000000);
  cal->count = 1;
  cal->newest = 0;
  cal->seg[0] = (cs_clock_segment){
      .raw = 3000000000u, .mono = 1000000000, .mult_q32 = 1431655765u};
  return cal;
}

static uint32_t add_context(bool comm_info, const char *name,
                            uint64_t comm_id) {
  uint32_t serial = cs_ctx_reserve();
  assert_true(serial != 0);
  cs_context *c = &cs_contexts[serial & (CS_MAX_CONTEXTS - 1)];
  c->abi = 6;
  c->has_comm_info = comm_info;
  c->comm_id = comm_id;
  c->nranks = 8;
  c->nnodes = 1;
  c->rank = 3;
  c->device = 1;
  snprintf(c->comm_name, sizeof c->comm_name, "%s", name);
  cs_ctx_publish(serial);
  return serial;
}

enum { EVENTS = 3000, PER_FRAME = 97 };

/* Three contexts: one with communicator info, one without, and one that
 * does not exist. */
static void make_contexts(uint32_t ctx[3]) {
  ctx[0] = add_context(true, "train", 0x1234567890abcdefull);
  ctx[1] = add_context(false, "", 0);
  ctx[2] = 0x7777;
}

/* What every test writes its traces with: a folder, the fixed clock, the
 * host, the contexts. */
typedef struct {
  char dir[4096];
  cs_out_dir folder;
  cs_clock_cal *cal;
  cs_host_info host;
  uint32_t ctx[3];
} test_setup;

static void setup(test_setup *t) {
  test_make_tmpdir(t->dir, sizeof t->dir);
  cs_out_dir_init(&t->folder, t->dir, "the test folder");
  t->cal = fixed_cal();
  t->host = (cs_host_info){.kind = CS_HOST_NCCL, .version = "2.27.0"};
  cs_ctx_clear_all();
  make_contexts(t->ctx);
}

static void teardown(test_setup *t) {
  free(t->cal);
  cs_out_dir_close(&t->folder);
  test_remove_tree(t->dir);
}

/* Events of a few types (with states every seventh) in ts->ctx[0, 3),
 * a timing record every tenth, a new frame every `per_frame` events
 * (PER_FRAME: about 30 frames). */
static void write_trace(test_setup *ts, int zstd_level, uint64_t per_frame,
                        char *path, size_t path_cap) {
  cs_trace_env env = {.pid = 4242,
                      .hostname = "node1",
                      .run_id = "ra",
                      .run_id_source = "test",
                      .file_rank = -1,
                      .dir = ts->dir,
                      .out_dir = &ts->folder,
                      .host = &ts->host,
                      .global_rank = 3,
                      .local_rank = -1,
                      .world_size = -1,
                      .cal = ts->cal,
                      .mode_trace = true,
                      .direct_io = CS_TF_DIRECT_OFF,
                      .zstd_level = zstd_level,
                      .binary = true};
  cs_trace_sink *t = calloc(1, sizeof *t);
  cs_event *e = calloc(1, sizeof *e);
  assert_non_null(t);
  assert_non_null(e);
  assert_true(cs_trace_open(t, &env));
  cs_state_rec states[3];
  for (uint64_t i = 0; i < EVENTS; i++) {
    memset(e, 0, sizeof *e);
    static const uint8_t types[] = {CS_EV_COLL, CS_EV_PROXY_OP, CS_EV_KERNEL_CH,
                                    CS_EV_P2P};
    e->etype = types[i % 4];
    e->id = 0x1000 + i;
    e->parent_kind = CS_PARENT_LOCAL;
    e->parent = e->id - 3;
    e->start_raw = 6000000000u + i * 1000u;
    e->stop_raw = e->start_raw + 12345u;
    e->ctx = ts->ctx[i % 3];
    e->rank = 3;
    e->start_tid = 4000 + (int32_t)(i % 5);
    e->stop_tid = 4001;
    e->end = CS_END_STOPPED;
    e->states = e->inline_states;
    e->cap_states = CS_INLINE_STATES;
    if (e->etype == CS_EV_COLL) {
      e->p.coll.seq = i;
      e->p.coll.func = i % 8 ? "AllReduce" : "AllGather";
      e->p.coll.datatype = "ncclFloat32";
      e->p.coll.algo = "RING";
      e->p.coll.proto = "SIMPLE";
      e->p.coll.count = 1024 * i;
      e->p.coll.n_channels = 4;
    } else if (e->etype == CS_EV_P2P) {
      e->p.p2p.func = "Send";
      e->p.p2p.datatype = "ncclInt8";
      e->p.p2p.count = i;
      e->p.p2p.peer = 2;
    } else if (e->etype == CS_EV_PROXY_OP) {
      e->p.proxy_op.pid = 31337;
      e->p.proxy_op.n_steps = 8;
      e->p.proxy_op.chunk_size = 524288;
    }
    if (i % 7 == 0) {
      for (uint32_t k = 0; k < 3; k++)
        states[k] = (cs_state_rec){.state = 7 + k,
                                   .repeat = 1,
                                   .raw_ts = e->start_raw + 30 + k,
                                   .last_raw_ts = e->start_raw + 30 + k};
      e->states = states;
      e->nstates = 3;
      e->cap_states = 3;
    }
    cs_trace_event(t, e);
    if (i % 10 == 0) {
      cs_timing r;
      memset(&r, 0, sizeof r);
      r.event_id = e->id;
      r.etype = CS_EV_COLL;
      r.ctx = ts->ctx[i % 3];
      r.rank = 3;
      r.nranks = 8;
      r.func = "AllReduce";
      r.datatype = "ncclFloat32";
      r.count = 4096;
      r.bytes = 16384;
      r.start_ns = INT64_C(1700000002000000000) + (int64_t)i * 1000;
      r.stop_ns = r.start_ns + 50000;
      r.alg_bw = 2.5e9;
      r.bus_bw = 2.5e9;
      cs_trace_timing(t, &r);
    }
    if (i % per_frame == per_frame - 1)
      cs_trace_write_bulk(t);
  }
  snprintf(path, path_cap, "%s", cs_trace_path(t));
  cs_trace_close(t);
  free(e);
  free(t);
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static void spill(const char *path, const unsigned char *p, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, n, f), n);
  fclose(f);
}

/* Where each frame of file[0, n) starts; how many. */
static size_t frame_starts(const unsigned char *file, size_t n, size_t *at,
                           size_t cap) {
  size_t count = 0;
  for (size_t pos = CST_FILE_HEADER; pos + CST_FRAME_HEADER <= n;) {
    cst_frame_info info;
    assert_true(cst_frame_parse(file + pos, &info));
    assert_true(count < cap);
    at[count++] = pos;
    pos += CST_FRAME_HEADER + info.bytes;
  }
  return count;
}

/* Frames of the stored file[0, n) (frame starts at[0, count)) that hold
 * a context record. */
static size_t frames_with_contexts(const unsigned char *file, size_t n,
                                   const size_t *at, size_t count) {
  size_t with = 0;
  for (size_t i = 0; i < count; i++) {
    cst_frame_info info;
    assert_true(cst_frame_parse(file + at[i], &info));
    assert_int_equal(info.codec, CST_CODEC_STORED);
    const unsigned char *p = file + at[i] + CST_FRAME_HEADER;
    size_t len = info.bytes, pos = 0;
    assert_true(at[i] + CST_FRAME_HEADER + len <= n);
    bool found = false;
    while (pos < len) {
      unsigned kind;
      size_t body, next;
      uint32_t body_len;
      assert_int_equal(
          cst_rec_parse(p + pos, len - pos, &kind, &body, &body_len, &next), 1);
      found = found || kind == CST_REC_CONTEXT;
      pos += next;
    }
    with += found;
  }
  return with;
}

/* One line from ra_next against tr_next + rec_decode. */
static void same_line(const tr_file *tf, const rec *want, bool want_parsed,
                      const rec_scratch *ws, const ra_line_info *got,
                      const rec *r, bool parsed, const rec_scratch *s) {
  assert_int_equal(got->line_len, tf->line_len);
  assert_memory_equal(got->line, tf->line, tf->line_len);
  assert_int_equal(got->line_no, tf->line_no);
  assert_int_equal(got->line_unterminated, tf->line_unterminated);
  assert_int_equal(parsed, want_parsed);
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
  assert_int_equal(r->ts, want->ts);
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

enum { FILES = 8 };

/* Read list[0, FILES) with `jobs` threads in chunks of `chunk_bytes`
 * against each file read alone; *lines: the lines of all. */
static void read_all(char **list, unsigned jobs, size_t chunk_bytes,
                     bool lockstep, const int *want_end, uint64_t *lines) {
  rec_scratch *ws = malloc(sizeof *ws), *s = malloc(sizeof *s);
  assert_non_null(ws);
  assert_non_null(s);
  rec_scratch_init(ws);
  rec_scratch_init(s);
  ra_reader *ra = ra_open_sized(list, FILES, jobs, chunk_bytes);
  assert_non_null(ra);
  tr_file tf[FILES];
  bool done[FILES] = {false};
  for (int i = 0; i < FILES; i++)
    assert_int_equal(tr_open(&tf[i], list[i], 4096), 0);
  *lines = 0;
  size_t left = FILES;
  for (size_t turn = 0; left > 0; turn++) {
    size_t i = lockstep ? turn % FILES : FILES - left;
    if (done[i])
      continue;
    rec want, r;
    bool parsed;
    ra_line_info got;
    int rc = ra_next(ra, i, s, &r, &parsed, &got);
    int want_rc = tr_next(&tf[i]);
    if (want_rc == 1) {
      assert_int_equal(rc, RA_LINE);
      bool want_parsed = rec_decode(&want, ws, tf[i].line, tf[i].line_len);
      same_line(&tf[i], &want, want_parsed, ws, &got, &r, parsed, s);
      (*lines)++;
      continue;
    }
    assert_int_equal(rc, want_rc == 0 ? RA_END : RA_READ_ERROR);
    assert_int_equal(rc, want_end[i]);
    assert_int_equal(got.error, want_rc == 0 ? 0 : tf[i].error);
    assert_int_equal(got.line_no, tf[i].line_no);
    assert_int_equal(got.bytes_read, tf[i].bytes_read);
    assert_int_equal(got.text_bytes, tf[i].text_bytes);
    /* the end stays the end */
    assert_int_equal(ra_next(ra, i, s, &r, &parsed, &got), rc);
    tr_close(&tf[i]);
    done[i] = true;
    left--;
  }
  ra_close(ra);
  free(ws);
  free(s);
}

static void test_frames_read_ahead_as_lines(void **state) {
  (void)state;
  test_setup ts;
  setup(&ts);
  char stored[4200], packed[4200];
  write_trace(&ts, 0, PER_FRAME, stored, sizeof stored);
  write_trace(&ts, 1, PER_FRAME, packed, sizeof packed);

  size_t slen, plen, at[256];
  unsigned char *s = slurp(stored, &slen), *p = slurp(packed, &plen);
  size_t sframes = frame_starts(s, slen, at, 256);
  assert_true(sframes > 25);
  /* each frame tells the contexts its records name (and the reader
   * forgets them at the next frame's writer record) */
  assert_true(frames_with_contexts(s, slen, at, sframes) > 25);
  char paths[FILES][4300];
  char *list[FILES];
  int want_end[FILES];
  for (int i = 0; i < FILES; i++) {
    list[i] = paths[i];
    want_end[i] = RA_END;
  }
  snprintf(paths[0], sizeof paths[0], "%s", stored);
  snprintf(paths[1], sizeof paths[1], "%s", packed);
  /* cut in the middle of the last frame's records (torn) */
  snprintf(paths[2], sizeof paths[2], "%s/torn.cst", ts.dir);
  size_t last = at[sframes - 1];
  spill(paths[2], s, last + (slen - last) / 2);
  /* a zstd file cut in its last frame */
  size_t pat[256];
  size_t pframes = frame_starts(p, plen, pat, 256);
  assert_true(pframes > 25);
  snprintf(paths[3], sizeof paths[3], "%s/torn_zstd.cst", ts.dir);
  spill(paths[3], p, plen - (plen - pat[pframes - 1]) / 3);
  /* cut inside the header of a frame */
  snprintf(paths[4], sizeof paths[4], "%s/torn_header.cst", ts.dir);
  spill(paths[4], s, at[sframes / 2] + CST_FRAME_HEADER / 2);
  /* a frame in the middle whose first record is of no kind: the file
   * reads up to it, then says it is corrupt */
  unsigned char *bad = malloc(slen);
  assert_non_null(bad);
  memcpy(bad, s, slen);
  bad[at[sframes / 2] + CST_FRAME_HEADER] = 0x7f;
  snprintf(paths[5], sizeof paths[5], "%s/corrupt_records.cst", ts.dir);
  spill(paths[5], bad, slen);
  want_end[5] = RA_READ_ERROR;
  /* a frame header that is not one */
  memcpy(bad, s, slen);
  bad[at[sframes / 3]] ^= 0xff;
  snprintf(paths[6], sizeof paths[6], "%s/corrupt_header.cst", ts.dir);
  spill(paths[6], bad, slen);
  want_end[6] = RA_READ_ERROR;
  free(bad);
  /* and a JSONL file, whose chunks share the pool */
  snprintf(paths[7], sizeof paths[7], "%s/lines.jsonl", ts.dir);
  {
    tr_file tf;
    assert_int_equal(tr_open(&tf, stored, 4096), 0);
    FILE *f = fopen(paths[7], "w");
    assert_non_null(f);
    while (tr_next(&tf) == 1)
      fprintf(f, "%.*s\n", (int)tf.line_len, tf.line);
    fclose(f);
    tr_close(&tf);
  }

  static const struct {
    unsigned jobs;
    size_t chunk_bytes; /* 0: the default */
  } runs[] = {{1, 0}, {2, 0}, {4, 0}, {2, 64}, {4, 64}};
  uint64_t want_lines = 0;
  for (int lockstep = 0; lockstep < 2; lockstep++)
    for (size_t j = 0; j < sizeof runs / sizeof runs[0]; j++) {
      uint64_t lines;
      read_all(list, runs[j].jobs, runs[j].chunk_bytes, lockstep != 0, want_end,
               &lines);
      if (!want_lines)
        want_lines = lines;
      assert_int_equal(lines, want_lines);
    }
  assert_true(want_lines > 5 * EVENTS);
  free(s);
  free(p);
  teardown(&ts);
}

/* The text of every frame of the stored file[0, n) (frame starts at[0,
 * count)), each made in one go, one after the other; *len its length and
 * *longest its longest line (with its newline). */
static char *frames_text(const unsigned char *file, size_t n, const size_t *at,
                         size_t count, size_t *len, size_t *longest) {
  cst_records *r = cst_records_new(cst_file_version(file, n));
  assert_non_null(r);
  char *all = NULL;
  *len = *longest = 0;
  for (size_t i = 0; i < count; i++) {
    cst_frame_info info;
    assert_true(cst_frame_parse(file + at[i], &info));
    assert_int_equal(info.codec, CST_CODEC_STORED);
    cst_records_begin(r, file + at[i] + CST_FRAME_HEADER, info.bytes, true,
                      info.records);
    const char *t;
    size_t tl;
    assert_int_equal(cst_records_more(r, SIZE_MAX, &t, &tl), 0);
    all = realloc(all, *len + tl + 1);
    assert_non_null(all);
    memcpy(all + *len, t, tl);
    *len += tl;
    /* all of it came at once: the frame is done */
    assert_int_equal(cst_records_more(r, SIZE_MAX, &t, &tl), 0);
    assert_int_equal(tl, 0);
  }
  for (size_t from = 0; from < *len;) {
    const char *nl = memchr(all + from, '\n', *len - from);
    assert_non_null(nl);
    size_t line = (size_t)(nl - (all + from)) + 1;
    if (line > *longest)
      *longest = line;
    from += line;
  }
  cst_records_free(r);
  return all;
}

/* Frame `i` of the stored file made text in pieces of `want` bytes into
 * *got (appended at *got_len); the error that ended it (0: none). */
static int frame_in_pieces(cst_records *r, const unsigned char *file, size_t at,
                           uint32_t records, size_t want, size_t longest,
                           char **got, size_t *got_len, size_t *pieces) {
  cst_frame_info info;
  assert_true(cst_frame_parse(file + at, &info));
  cst_records_begin(r, file + at + CST_FRAME_HEADER, info.bytes, true, records);
  for (;;) {
    const char *t;
    size_t tl;
    int e = cst_records_more(r, want, &t, &tl);
    if (e)
      return e;
    if (tl == 0)
      return 0;
    /* whole lines, no more than asked for and one line */
    assert_int_equal(t[tl - 1], '\n');
    assert_true(tl <= want + longest);
    *got = realloc(*got, *got_len + tl);
    assert_non_null(*got);
    memcpy(*got + *got_len, t, tl);
    *got_len += tl;
    (*pieces)++;
  }
}

/* The length of the text of the stored file's frame at file[at], made in
 * one go. */
static size_t frame_text_len(const unsigned char *file, size_t n, size_t at) {
  cst_frame_info info;
  assert_true(cst_frame_parse(file + at, &info));
  cst_records *r = cst_records_new(cst_file_version(file, n));
  assert_non_null(r);
  cst_records_begin(r, file + at + CST_FRAME_HEADER, info.bytes, true,
                    info.records);
  const char *t;
  size_t len;
  assert_int_equal(cst_records_more(r, SIZE_MAX, &t, &len), 0);
  cst_records_free(r);
  return len;
}

static void test_frame_text_in_pieces(void **state) {
  (void)state;
  test_setup ts;
  setup(&ts);
  char stored[4200];
  write_trace(&ts, 0, PER_FRAME, stored, sizeof stored);
  size_t slen, at[256];
  unsigned char *s = slurp(stored, &slen);
  size_t frames = frame_starts(s, slen, at, 256);
  assert_true(frames > 25);
  size_t want_len, longest;
  char *want = frames_text(s, slen, at, frames, &want_len, &longest);
  assert_true(want_len > 64 * 1024);

  /* pieces of 1 KiB (and of 1 byte: a line each) hold the same text */
  static const size_t sizes[] = {1024, 1};
  for (size_t k = 0; k < 2; k++) {
    cst_records *r = cst_records_new(cst_file_version(s, slen));
    assert_non_null(r);
    char *got = NULL;
    size_t got_len = 0, pieces = 0;
    for (size_t i = 0; i < frames; i++) {
      cst_frame_info info;
      assert_true(cst_frame_parse(s + at[i], &info));
      assert_int_equal(frame_in_pieces(r, s, at[i], info.records, sizes[k],
                                       longest, &got, &got_len, &pieces),
                       0);
    }
    assert_int_equal(got_len, want_len);
    assert_memory_equal(got, want, want_len);
    assert_true(pieces > want_len / (sizes[k] + longest));
    assert_true(pieces > 4 * frames);
    free(got);
    cst_records_free(r);
  }

  /* a corrupt record in the middle of a frame: the pieces before it are
   * given, then the error, and the frame is done */
  size_t mid = frames / 2;
  cst_frame_info info;
  assert_true(cst_frame_parse(s + at[mid], &info));
  const unsigned char *p = s + at[mid] + CST_FRAME_HEADER;
  size_t pos = 0, before = 0;
  for (uint32_t k = 0; k < info.records / 2; k++) {
    unsigned kind;
    size_t body, next;
    uint32_t body_len;
    assert_int_equal(cst_rec_parse(p + pos, info.bytes - pos, &kind, &body,
                                   &body_len, &next),
                     1);
    pos += next;
  }
  for (size_t i = 0; i < mid; i++) /* the text of the frames before */
    before += frame_text_len(s, slen, at[i]);
  unsigned char *bad = malloc(slen);
  assert_non_null(bad);
  memcpy(bad, s, slen);
  bad[at[mid] + CST_FRAME_HEADER + pos] = 0x7f; /* a record of no kind */
  {
    cst_records *r = cst_records_new(cst_file_version(s, slen));
    char *got = NULL;
    size_t got_len = 0, pieces = 0;
    assert_int_equal(frame_in_pieces(r, bad, at[mid], info.records, 512,
                                     longest, &got, &got_len, &pieces),
                     TC_ERR_CORRUPT);
    assert_true(pieces > 0);
    assert_memory_equal(got, want + before, got_len);
    const char *t;
    size_t tl;
    assert_int_equal(cst_records_more(r, 512, &t, &tl), 0);
    assert_int_equal(tl, 0);
    free(got);
    cst_records_free(r);
  }
  /* a frame whose header says one record more than it holds: its text is
   * given up to its end, which says it is corrupt */
  {
    cst_records *r = cst_records_new(cst_file_version(s, slen));
    char *got = NULL;
    size_t got_len = 0, pieces = 0;
    assert_int_equal(frame_in_pieces(r, s, at[mid], info.records + 1, 512,
                                     longest, &got, &got_len, &pieces),
                     TC_ERR_CORRUPT);
    assert_true(pieces > 0);
    assert_memory_equal(got, want + before, got_len);
    free(got);
    cst_records_free(r);
  }
  free(bad);
  free(want);
  free(s);
  teardown(&ts);
}

/* All the lines tr_next reads of `path`, each with its newline. */
static char *read_lines(const char *path, size_t *len) {
  tr_file tf;
  assert_int_equal(tr_open(&tf, path, 4096), 0);
  char *all = NULL;
  *len = 0;
  while (tr_next(&tf) == 1) {
    all = realloc(all, *len + tf.line_len + 1);
    assert_non_null(all);
    memcpy(all + *len, tf.line, tf.line_len);
    *len += tf.line_len;
    all[(*len)++] = '\n';
  }
  assert_int_equal(tf.error, 0);
  tr_close(&tf);
  return all;
}

/* A file whose frame is several of the codec's pieces of text (256 KiB,
 * trace_codec.c) reads as its frames' text, stored or compressed. */
static void test_large_frame_read_in_pieces(void **state) {
  (void)state;
  test_setup ts;
  setup(&ts);
  char stored[4200], packed[4200];
  write_trace(&ts, 0, EVENTS, stored, sizeof stored);
  write_trace(&ts, 1, EVENTS, packed, sizeof packed);
  size_t slen, at[256];
  unsigned char *s = slurp(stored, &slen);
  size_t frames = frame_starts(s, slen, at, 256);
  size_t want_len, longest;
  char *want = frames_text(s, slen, at, frames, &want_len, &longest);
  /* one frame of the events: four pieces and more */
  size_t largest = 0;
  for (size_t i = 0; i < frames; i++) {
    size_t len = frame_text_len(s, slen, at[i]);
    if (len > largest)
      largest = len;
  }
  assert_true(largest > 4 * (256 << 10));
  /* the compressed file's process record says its compression and is
   * made at another time: the lines after it */
  const char *paths[] = {stored, packed};
  for (int k = 0; k < 2; k++) {
    size_t got_len;
    char *got = read_lines(paths[k], &got_len);
    size_t got_from = 0, want_from = 0;
    if (k == 1) {
      got_from = (size_t)((char *)memchr(got, '\n', got_len) - got) + 1;
      want_from = (size_t)((char *)memchr(want, '\n', want_len) - want) + 1;
    }
    assert_int_equal(got_len - got_from, want_len - want_from);
    assert_memory_equal(got + got_from, want + want_from, want_len - want_from);
    free(got);
  }
  free(want);
  free(s);
  teardown(&ts);
}

int main(void) {
  tr_format_notices = false; /* the torn files' notes: not this test's */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frame_text_in_pieces),
      cmocka_unit_test(test_large_frame_read_in_pieces),
      cmocka_unit_test(test_frames_read_ahead_as_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
