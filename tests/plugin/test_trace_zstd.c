/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_trace_zstd.c — compressed traces (CCLSCOPE_COMPRESS=zstd,
 * src/plugin/trace/trace_zstd.c): a chunk of lines becomes one frame whose
 * blocks end on line boundaries, so that the frame cut at any byte
 * decompresses to whole lines only (a prefix of the input); the I/O thread
 * writes each frame with exactly one write, one after the other, and a
 * failed write cuts the file back to its last whole frame; the trace file
 * is named .jsonl.zst and holds every line once, in order, with no padding.
 * Raw frames (stored, made without libzstd) decompress to their input at
 * every size; a compressed file begins with two of them, its first line and
 * its accounting record, which counts a failed write's lines in place.
 * With the I/O thread behind, the queueing thread compresses chunks itself
 * rather than wait for room, and the file is the same.
 *
 * The frames are decompressed with libzstd.so.1 (dlopen, as the CLI does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cst_format.h"
#include "cst_prefix.h"
#include "trace_binary.h"
#include "trace_file.h"
#include "trace_io.h"
#include "trace_read.h"
#include "trace_zstd.h"
#include "zstd_abi.h"

/* ---- decompressing, for the checks ---- */

typedef struct {
  cs_zstd_create_dctx_fn create;
  cs_zstd_free_dctx_fn free_dctx;
  cs_zstd_decompress_stream_fn decompress;
  cs_zstd_is_error_fn is_error;
  cs_zstd_dctx_ref_prefix_fn ref_prefix;
} dfns;

static dfns load_decompressor(void) {
  void *lib = dlopen(CS_ZSTD_SONAME, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(lib);
  dfns d;
  *(void **)&d.create = dlsym(lib, "ZSTD_createDCtx");
  *(void **)&d.free_dctx = dlsym(lib, "ZSTD_freeDCtx");
  *(void **)&d.decompress = dlsym(lib, "ZSTD_decompressStream");
  *(void **)&d.is_error = dlsym(lib, "ZSTD_isError");
  *(void **)&d.ref_prefix = dlsym(lib, "ZSTD_DCtx_refPrefix");
  assert_true(d.create && d.free_dctx && d.decompress && d.is_error &&
              d.ref_prefix);
  return d;
}

/* Decompress src[0, n) as a stream of frames into *out (malloc'd, *out_len
 * bytes), the first against prefix[0, prefix_len) when prefix is not
 * NULL; true when it ends exactly at the end of a frame. */
static bool decompress_against(const char *prefix, size_t prefix_len,
                               const char *src, size_t n, char **out,
                               size_t *out_len) {
  dfns d = load_decompressor();
  cs_zstd_dctx *dctx = d.create();
  if (prefix)
    assert_false(d.is_error(d.ref_prefix(dctx, prefix, prefix_len)));
  size_t cap = 1 << 20;
  *out = malloc(cap);
  *out_len = 0;
  cs_zstd_in in = {src, n, 0};
  size_t last = 0;
  bool error = false;
  while (in.pos < in.size || last != 0) {
    if (cap - *out_len < (64 << 10)) {
      cap *= 2;
      *out = realloc(*out, cap);
    }
    cs_zstd_out o = {*out + *out_len, cap - *out_len, 0};
    size_t before = in.pos;
    last = d.decompress(dctx, &o, &in);
    *out_len += o.pos;
    if (d.is_error(last)) {
      error = true;
      break;
    }
    if (in.pos == before && o.pos == 0)
      break; /* needs input that is not there: a cut frame */
  }
  d.free_dctx(dctx);
  return !error && last == 0;
}

static bool decompress(const char *src, size_t n, char **out, size_t *out_len) {
  return decompress_against(NULL, 0, src, n, out, out_len);
}

/* ~`bytes` of JSON lines of irregular length, numbered by "seq", with one
 * line longer than a block when `long_line`. */
static char *make_lines(size_t bytes, bool long_line, size_t *len,
                        unsigned *lines) {
  char *p = malloc(bytes + (300 << 10));
  size_t n = 0;
  unsigned seq = 0;
  srand(5);
  while (n < bytes) {
    size_t pad = (size_t)(rand() % 900);
    if (long_line && seq == 200)
      pad = 200 << 10; /* longer than CS_ZSTD_BLOCK_MAX */
    n += (size_t)sprintf(p + n, "{\"seq\":%u,\"x\":\"", seq++);
    for (size_t i = 0; i < pad; i++)
      p[n++] = (char)('a' + (i * 7 + seq) % 26);
    n += (size_t)sprintf(p + n, "\"}\n");
  }
  *len = n;
  *lines = seq;
  return p;
}

static void setup_library(void) {
  char why[600];
  if (!cs_tz_load(why, sizeof why))
    fail_msg("libzstd: %s", why);
}

/* ---- the tests ---- */

static void test_piece_end(void **state) {
  (void)state;
  const char *s = "ab\ncd\nef\n";
  assert_int_equal(cs_tz_piece_end(s, 9, 100), 9); /* all of it fits */
  assert_int_equal(cs_tz_piece_end(s, 9, 7), 6);   /* last '\n' in 7 */
  assert_int_equal(cs_tz_piece_end(s, 9, 6), 6);
  assert_int_equal(cs_tz_piece_end(s, 9, 5), 3);
  assert_int_equal(cs_tz_piece_end(s, 9, 1), 3); /* a longer line */
  assert_int_equal(cs_tz_piece_end("abcdef", 6, 2), 6);
}

/* The frame cut after any byte decompresses to a prefix of the input that
 * ends with a whole line; whole, it is the input. */
static void test_frame_cut_anywhere_gives_whole_lines(void **state) {
  (void)state;
  setup_library();
  size_t len;
  unsigned lines;
  char *text = make_lines((size_t)900 << 10, true, &len, &lines);
  cs_trace_zstd *z = cs_tz_new(3);
  assert_non_null(z);
  const char *frame;
  size_t frame_len;
  assert_true(cs_tz_frame(z, text, len, &frame, &frame_len));
  assert_true(frame_len * 3 < len); /* it did compress */
  char *out;
  size_t out_len;
  assert_true(decompress(frame, frame_len, &out, &out_len));
  assert_int_equal(out_len, len);
  assert_memory_equal(out, text, len);
  free(out);
  unsigned partial = 0; /* cuts that gave some lines but not all */
  size_t step = frame_len / 211 + 1;
  for (size_t cut = 1; cut < frame_len; cut += step) {
    bool whole = decompress(frame, cut, &out, &out_len);
    assert_false(whole);
    assert_true(out_len <= len);
    assert_memory_equal(out, text, out_len);
    if (out_len > 0) {
      assert_int_equal(out[out_len - 1], '\n');
      partial++;
    }
    free(out);
  }
  assert_true(partial >= 20); /* several blocks, several cut points */
  cs_tz_free(z);
  free(text);
}

/* ~1 MiB of binary-trace-like records: bytes with no line structure, some
 * repeating, and not one '\n' for cs_tz_frame to cut at. */
static char *make_records(size_t len) {
  char *p = malloc(len);
  srand(9);
  for (size_t i = 0; i < len; i++)
    p[i] =
        (char)(i % 16 < 9 ? (int)(0x80 | (i / 16 % 64)) : 0x20 + rand() % 96);
  return p;
}

/* A frame of data given whole (the binary container's, at level 1 and at
 * a fast level): it is the data, carries the checksum that `zstd -t`
 * checks, and cut after a block decompresses to a prefix of the data. */
static void whole_frame_case(int level) {
  setup_library();
  size_t len = (size_t)1 << 20;
  char *data = make_records(len);
  cs_trace_zstd *z = cs_tz_new(level);
  assert_non_null(z);
  const char *frame;
  size_t frame_len;
  assert_true(cs_tz_frame_whole(z, NULL, 0, data, len, &frame, &frame_len));
  assert_true(frame_len * 3 / 2 < len); /* it did compress */
  assert_int_equal((unsigned char)frame[0], CS_ZSTD_MAGIC0);
  assert_true(frame[4] & 4); /* Content_Checksum_flag */
  char *out;
  size_t out_len;
  assert_true(decompress(frame, frame_len, &out, &out_len));
  assert_int_equal(out_len, len);
  assert_memory_equal(out, data, len);
  free(out);
  unsigned partial = 0; /* cuts that gave some data but not all */
  size_t step = frame_len / 97 + 1;
  for (size_t cut = 1; cut < frame_len; cut += step) {
    assert_false(decompress(frame, cut, &out, &out_len));
    assert_true(out_len < len);
    assert_memory_equal(out, data, out_len);
    partial += out_len > 0;
    free(out);
  }
  assert_true(partial >= 10); /* 8 blocks of 128 KiB: cut points after each */
  /* the context makes the next frame as well */
  assert_true(cs_tz_frame_whole(z, NULL, 0, data, len / 3, &frame, &frame_len));
  assert_true(decompress(frame, frame_len, &out, &out_len));
  assert_int_equal(out_len, len / 3);
  assert_memory_equal(out, data, len / 3);
  free(out);
  cs_tz_free(z);
  free(data);
}

/* A small frame made against a prefix text (a binary trace's, version 3:
 * cst_prefix.h) reads back only against the same text, and is a fraction
 * of the frame made without it: the words it shares with the prefix cost
 * a match, not their bytes. The prefix applies to one frame only: the
 * context's next frame, made without one, reads without one. */
static void test_whole_frame_against_prefix(void **state) {
  (void)state;
  setup_library();
  static const char line[] =
      "{\"recordType\":\"process\",\"plugin\":\"cclscope\",\"pluginVersion\":"
      "\"0.1.0\",\"formatVersion\":2,\"hostname\":\"gpu17\",\"pid\":4242,"
      "\"eventMaskNames\":\"group,coll,p2p,proxyop,proxystep,proxyctrl,"
      "kernelch,netplugin,groupapi,collapi,p2papi,kernellaunch,cecoll,"
      "cesync,cebatch,kernelphase,proxydiag\",\"ts\":1.000}\n";
  size_t len = sizeof line - 1;
  cs_trace_zstd *z = cs_tz_new(1);
  assert_non_null(z);
  const char *frame;
  size_t plain_len, against_len;
  assert_true(cs_tz_frame_whole(z, NULL, 0, line, len, &frame, &plain_len));
  assert_true(cs_tz_frame_whole(z, cst_prefix, cst_prefix_len, line, len,
                                &frame, &against_len));
  assert_true(against_len * 2 < plain_len);
  char *copy = malloc(against_len);
  memcpy(copy, frame, against_len);
  char *out;
  size_t out_len;
  assert_true(decompress_against(cst_prefix, cst_prefix_len, copy, against_len,
                                 &out, &out_len));
  assert_int_equal(out_len, len);
  assert_memory_equal(out, line, len);
  free(out);
  bool read_without = decompress(copy, against_len, &out, &out_len);
  assert_false(read_without && out_len == len && !memcmp(out, line, len));
  free(out);
  free(copy);
  assert_true(cs_tz_frame_whole(z, NULL, 0, line, len, &frame, &plain_len));
  assert_true(decompress(frame, plain_len, &out, &out_len));
  assert_int_equal(out_len, len);
  free(out);
  cs_tz_free(z);
}

static void test_whole_frame_level_1(void **state) {
  (void)state;
  whole_frame_case(1);
}

static void test_whole_frame_fast_level(void **state) {
  (void)state;
  whole_frame_case(-3);
}

/* The I/O thread's writes, counted. */
static atomic_int writes_seen;
static atomic_int fail_write_no; /* this write (1-based) fails halfway */

static ssize_t counting_pwrite(int fd, const void *data, size_t len,
                               off_t offset) {
  int no = atomic_fetch_add(&writes_seen, 1) + 1;
  if (no == atomic_load(&fail_write_no)) {
    ssize_t half = pwrite(fd, data, len / 2, offset);
    if (half < 0)
      return half;
    errno = ENOSPC;
    return -1; /* the rest does not fit */
  }
  return pwrite(fd, data, len, offset);
}

/* A chunk of `n` lines {"chunk":c,"line":i} in malloc'd memory. */
static char *chunk(int c, int n, size_t *len) {
  char *p = malloc((size_t)n * 64);
  size_t at = 0;
  for (int i = 0; i < n; i++)
    at += (size_t)sprintf(p + at, "{\"chunk\":%d,\"line\":%d}\n", c, i);
  *len = at;
  return p;
}

static int open_file(const char *dir, const char *name, char *path,
                     size_t path_len) {
  snprintf(path, path_len, "%s/%s", dir, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(fd >= 0);
  return fd;
}

static void read_file(const char *path, char **data, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  *data = malloc(*len + 1);
  assert_int_equal(fread(*data, 1, *len, f), *len);
  fclose(f);
}

/* Each chunk is one frame written with one write, in order. With a write
 * that fails halfway (the 3rd), the file is cut back to the two whole
 * frames before it, the failure is reported with that size, and writing
 * goes on after it: the file then holds chunks 0, 1 and 3, nothing torn. */
static void io_case(bool fail_third) {
  setup_library();
  char dir[4096], path[4200];
  test_make_tmpdir(dir, sizeof dir);
  int fd = open_file(dir, "t.jsonl.zst", path, sizeof path);
  cs_trace_zstd *z = cs_tz_new(3);
  cs_trace_io *io = calloc(1, sizeof *io); /* heap: see test_trace_file.c */
  cs_io_start(io, fd, -1, z);
  io->write = counting_pwrite;
  atomic_store(&writes_seen, 0);
  atomic_store(&fail_write_no, fail_third ? 3 : 0);
  cs_io_failure failure;
  size_t expect_len = 0;
  char *expect = malloc(1 << 20);
  for (int c = 0; c < 4; c++) {
    size_t len;
    char *data = chunk(c, 500 + 100 * c, &len);
    if (!(fail_third && c == 2)) {
      memcpy(expect + expect_len, data, len);
      expect_len += len;
    }
    bool queued = cs_io_queue(io, data, len, len, 0, 500 + 100 * (uint64_t)c,
                              false, &failure);
    if (fail_third && c == 2) {
      assert_true(queued);
      assert_false(cs_io_sync(io, &failure)); /* the write of chunk 2 */
      assert_int_equal(failure.error, ENOSPC);
      struct stat st;
      assert_int_equal(fstat(fd, &st), 0);
      assert_int_equal((uint64_t)st.st_size, failure.end); /* cut back */
    } else {
      assert_true(queued);
    }
  }
  assert_true(cs_io_sync(io, &failure));
  cs_io_counters counters;
  cs_io_get_counters(io, &counters);
  assert_int_equal(counters.lines_lost, fail_third ? 700 : 0);
  assert_int_equal(atomic_load(&writes_seen), 4); /* one per frame */
  cs_io_stop(io);
  free(io);
  cs_tz_free(z);
  close(fd);

  char *file, *out;
  size_t file_len, out_len;
  read_file(path, &file, &file_len);
  assert_true(decompress(file, file_len, &out, &out_len)); /* whole frames */
  assert_int_equal(out_len, expect_len);
  assert_memory_equal(out, expect, expect_len);
  free(file);
  free(out);
  free(expect);
  test_remove_tree(dir);
}

static void test_one_write_per_frame(void **state) {
  (void)state;
  io_case(false);
}

static void test_failed_write_cuts_back_to_whole_frames(void **state) {
  (void)state;
  io_case(true);
}

/* ---- the writer compresses when the I/O thread is behind ---- */

/* A disk that takes nothing until the test opens the gate. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_open;

static ssize_t gated_pwrite(int fd, const void *data, size_t len,
                            off_t offset) {
  pthread_mutex_lock(&gate_lock);
  while (!gate_open)
    pthread_cond_wait(&gate_cond, &gate_lock);
  pthread_mutex_unlock(&gate_lock);
  return pwrite(fd, data, len, offset);
}

static void open_gate(void) {
  pthread_mutex_lock(&gate_lock);
  gate_open = true;
  pthread_cond_broadcast(&gate_cond);
  pthread_mutex_unlock(&gate_lock);
}

enum { BEHIND_CHUNKS = 48, BEHIND_LINES = 40000 }; /* ~1 MB each */

typedef struct {
  cs_trace_io *io;
  char *expect; /* every chunk's text, in order */
  size_t expect_len;
  atomic_int queued; /* read by the test while this thread may wait */
  bool binary;       /* queue the lines as records of the binary container */
} behind_run;

static void *queue_all(void *arg) {
  behind_run *r = arg;
  for (int c = 0; c < BEHIND_CHUNKS; c++) {
    size_t len;
    char *data = chunk(c, BEHIND_LINES, &len);
    memcpy(r->expect + r->expect_len, data, len);
    r->expect_len += len;
    size_t cap = (size_t)BEHIND_LINES * 64;
    if (r->binary) { /* the same lines as line records */
      uint32_t lines;
      size_t records = cst_lines_payload_size(data, len, &lines);
      char *rec = malloc(records);
      cst_lines_payload(data, len, (unsigned char *)rec);
      free(data);
      data = rec;
      cap = len = records;
    }
    cs_io_failure failure;
    if (!cs_io_queue(r->io, data, cap, len, 0, BEHIND_LINES, false, &failure))
      return NULL;
    atomic_fetch_add(&r->queued, 1);
  }
  return NULL;
}

/* With the I/O thread stuck (its disk takes nothing), queueing well past
 * CS_IO_MAX_QUEUED of text never waits: the queueing thread compresses
 * the chunks itself. Once the disk moves, the file holds every chunk, in
 * order, as whole frames. Before, the queueing thread waited for room
 * (and the writer's rings filled): the join below then times out, a
 * generous guard, not a measurement. */
/* The lines of a binary container's frames (no file header: what the I/O
 * side writes) of zstd-compressed line records; false if one is not. */
static bool binary_frames_text(const char *file, size_t n, char **out,
                               size_t *out_len) {
  size_t cap = 1 << 20;
  *out = malloc(cap);
  *out_len = 0;
  for (size_t at = 0; at < n;) {
    cst_frame_info info;
    if (n - at < CST_FRAME_HEADER ||
        !cst_frame_parse((const unsigned char *)file + at, &info) ||
        (info.codec != CST_CODEC_ZSTD && info.codec != CST_CODEC_ZSTD_PREFIX) ||
        n - at - CST_FRAME_HEADER < info.bytes)
      return false;
    char *records;
    size_t len;
    bool against = info.codec == CST_CODEC_ZSTD_PREFIX;
    if (!decompress_against(against ? cst_prefix : NULL, cst_prefix_len,
                            file + at + CST_FRAME_HEADER, info.bytes, &records,
                            &len))
      return false;
    /* The prefix is for small frames only (CS_TB_PREFIX_MAX). */
    if (against != (len <= CS_TB_PREFIX_MAX))
      return false;
    for (size_t r = 0; r < len;) {
      unsigned kind;
      size_t body, next;
      uint32_t body_len;
      if (cst_rec_parse((const unsigned char *)records + r, len - r, &kind,
                        &body, &body_len, &next) != 1 ||
          kind != CST_REC_LINE)
        return false;
      while (cap - *out_len < body_len)
        *out = realloc(*out, cap *= 2);
      memcpy(*out + *out_len, records + r + body, body_len);
      *out_len += body_len;
      r += next;
    }
    free(records);
    at += CST_FRAME_HEADER + info.bytes;
  }
  return true;
}

static void writer_compresses_when_io_is_behind(bool binary) {
  setup_library();
  char dir[4096], path[4200];
  test_make_tmpdir(dir, sizeof dir);
  int fd = open_file(dir, binary ? "t.cst" : "t.jsonl.zst", path, sizeof path);
  cs_trace_zstd *z = cs_tz_new(1), *mine = cs_tz_new(1);
  cs_trace_bin *bin = binary ? cs_tb_new(z) : NULL;
  cs_trace_bin *bin_mine = binary ? cs_tb_new(mine) : NULL;
  cs_trace_io *io = calloc(1, sizeof *io); /* heap: see test_trace_file.c */
  cs_io_start(io, fd, -1, z);
  if (binary)
    cs_io_set_binary(io, bin);
  cs_io_set_helper(io, mine, bin_mine);
  gate_open = false;
  io->write = gated_pwrite;
  behind_run r = {.io = io,
                  .expect = malloc((size_t)BEHIND_CHUNKS * BEHIND_LINES * 64),
                  .binary = binary};
  assert_true((size_t)BEHIND_CHUNKS * BEHIND_LINES * 25 > CS_IO_MAX_QUEUED);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, queue_all, &r), 0);
  struct timespec guard;
  clock_gettime(CLOCK_REALTIME, &guard);
  guard.tv_sec += 240;
  int joined = pthread_timedjoin_np(t, NULL, &guard);
  int queued = atomic_load(&r.queued);
  open_gate();
  if (joined != 0) {
    pthread_join(t, NULL);
    fail_msg("queueing waited for the stuck I/O thread (%d of %d chunks "
             "queued before it had to)",
             queued, BEHIND_CHUNKS);
  }
  assert_int_equal(queued, BEHIND_CHUNKS);
  cs_io_failure failure;
  assert_true(cs_io_sync(io, &failure));
  assert_true(io->helped > 0);
  cs_io_counters counters;
  cs_io_get_counters(io, &counters);
  assert_int_equal(counters.lines_lost, 0);
  cs_io_stop(io);
  free(io);
  cs_tb_free(bin);
  cs_tb_free(bin_mine);
  cs_tz_free(z);
  cs_tz_free(mine);
  close(fd);

  char *file, *out;
  size_t file_len, out_len;
  read_file(path, &file, &file_len);
  if (binary) /* whole container frames of line records */
    assert_true(binary_frames_text(file, file_len, &out, &out_len));
  else /* whole frames */
    assert_true(decompress(file, file_len, &out, &out_len));
  assert_int_equal(out_len, r.expect_len);
  assert_memory_equal(out, r.expect, r.expect_len);
  free(file);
  free(out);
  free(r.expect);
  test_remove_tree(dir);
}

static void test_writer_compresses_when_io_is_behind(void **state) {
  (void)state;
  writer_compresses_when_io_is_behind(false);
}

/* The same for a binary trace (CCLSCOPE_FORMAT=binary with zstd): the
 * queueing thread makes whole container frames. */
static void test_writer_makes_binary_frames_when_io_is_behind(void **state) {
  (void)state;
  writer_compresses_when_io_is_behind(true);
}

/* Through the trace file: named .jsonl.zst, no O_DIRECT, every line once
 * and in order, no padding records (the page rule is for plain files). */
static void test_trace_file_compressed(void **state) {
  (void)state;
  char dir[4096];
  test_make_tmpdir(dir, sizeof dir);
  cs_out_dir folder;
  cs_out_dir_init(&folder, dir, "the test folder");
  cs_trace_file *f = calloc(1, sizeof *f);
  assert_true(cs_tf_open(f, &folder, "trace_z", CS_TF_DIRECT_AUTO, 3));
  cs_out_dir_close(&folder);
  assert_true(cs_tf_compressed(f));
  assert_false(cs_tf_direct(f));
  assert_int_equal(f->bulk_bytes, CS_TF_BULK_COMPRESSED); /* frames */
  assert_non_null(strstr(f->path, "/trace_z.jsonl.zst"));
  unsigned n = 30000;
  for (unsigned i = 0; i < n; i++) {
    size_t start = cs_tf_line_begin(f);
    char line[200];
    int len = snprintf(line, sizeof line, "{\"seq\":%u,\"pad\":\"%.*s\"}", i,
                       (int)(i % 150),
                       "................................"
                       "................................"
                       "................................"
                       "................................"
                       "......................");
    cs_jbuf_put(&f->buf, line, (size_t)len);
    cs_tf_line_end(f, start, 0);
    if (cs_tf_bulk_due(f))
      cs_tf_write_bulk(f, 0);
    if (i % 4001 == 0)
      cs_tf_flush(f, 0); /* the periodic flush: a small frame */
  }
  cs_tf_close(f, 0);
  assert_int_equal(f->lines_lost, 0);
  assert_int_equal(f->pad_bytes, 0);
  char *file, *out;
  size_t file_len, out_len;
  read_file(f->path, &file, &file_len);
  assert_true(decompress(file, file_len, &out, &out_len));
  assert_true(file_len * 5 < out_len);
  unsigned seq = 0;
  for (char *p = out; p < out + out_len; seq++) {
    char *nl = memchr(p, '\n', (size_t)(out + out_len - p));
    assert_non_null(nl);
    assert_int_equal((unsigned)strtoul(p + 7, NULL, 10), seq);
    p = nl + 1;
  }
  assert_int_equal(seq, n);
  free(file);
  free(out);
  free(f);
  test_remove_tree(dir);
}

/* Raw frames decompress to their input at every size: one block, several,
 * and the sizes where the frame header's content size changes form. */
static void test_raw_frames(void **state) {
  (void)state;
  const size_t sizes[] = {0,     1,      255,    256,       600,    65791,
                          65792, 131072, 131073, 300 << 10, 1 << 20};
  char *text = malloc((size_t)1 << 20);
  for (size_t i = 0; i < ((size_t)1 << 20); i++)
    text[i] = (char)('a' + (i * 7) % 26);
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k], room = cs_tz_raw_frame_size(n);
    char *frame = malloc(room);
    assert_int_equal(cs_tz_raw_frame(text, n, frame), room);
    char *out;
    size_t out_len;
    assert_true(decompress(frame, room, &out, &out_len));
    assert_int_equal(out_len, n);
    assert_memory_equal(out, text, n);
    if (n <= CS_ZSTD_BLOCK_MAX) /* one block: the data is the frame's end */
      assert_memory_equal(frame + room - n, text, n);
    free(out);
    free(frame);
  }
  free(text);
}

/* A compressed trace file begun with a first line: that line and the
 * accounting record are raw frames at its start; a failed write of a
 * later frame is counted in the record, in place, and closing fills in
 * its closing fields. What decompresses is the first line, the record,
 * and the frames written. */
static void test_compressed_accounting(void **state) {
  (void)state;
  char dir[4096];
  test_make_tmpdir(dir, sizeof dir);
  cs_out_dir folder;
  cs_out_dir_init(&folder, dir, "the test folder");
  cs_trace_file *f = calloc(1, sizeof *f);
  assert_true(cs_tf_open(f, &folder, "trace_a", CS_TF_DIRECT_AUTO, 3));
  cs_out_dir_close(&folder);
  f->io.write = counting_pwrite; /* before the first write */
  atomic_store(&writes_seen, 0);
  atomic_store(&fail_write_no, 3); /* the head, frame 1, then frame 2 */
  const char *first = "{\"recordType\":\"process\"}";
  size_t start = cs_tf_line_begin(f);
  cs_jbuf_put(&f->buf, first, strlen(first));
  cs_tf_line_end(f, start, 0);
  assert_true(cs_tf_begin(f, 0));
  for (unsigned frame = 1; frame <= 2; frame++) {
    for (unsigned i = 0; i < 100 * frame; i++) {
      start = cs_tf_line_begin(f);
      char line[64];
      int len =
          snprintf(line, sizeof line, "{\"frame\":%u,\"line\":%u}", frame, i);
      cs_jbuf_put(&f->buf, line, (size_t)len);
      cs_tf_line_end(f, start, 0);
    }
    cs_tf_sync(f, 0);
  }
  assert_int_equal(f->lines_lost, 200);
  cs_acct_closing closing = {.reason = "exit", .events_written = 7};
  cs_tf_set_closing(f, &closing);
  cs_tf_close(f, 0);
  assert_int_equal(atomic_load(&writes_seen), 3);

  char *file, *out;
  size_t file_len, out_len;
  read_file(f->path, &file, &file_len);
  assert_true(decompress(file, file_len, &out, &out_len));
  out[out_len] = '\0';
  char *second = strchr(out, '\n') + 1;
  char *third = strchr(second, '\n') + 1;
  assert_int_equal(second - out, strlen(first) + 1);
  assert_int_equal(third - second, CS_ACCT_LINE);
  assert_non_null(strstr(second, "{\"recordType\":\"accounting\","
                                 "\"linesLost\":200,\"bytesLost\":"));
  char errno_field[32];
  snprintf(errno_field, sizeof errno_field, "\"writeErrno\":%d,", ENOSPC);
  assert_true(strstr(second, errno_field) < third);
  assert_true(strstr(second, "\"reason\":\"exit\",\"eventsWritten\":7,") <
              third);
  unsigned frame1_lines = 0;
  for (char *p = third; *p; p = strchr(p, '\n') + 1, frame1_lines++)
    assert_int_equal(strncmp(p, "{\"frame\":1,", 11), 0);
  assert_int_equal(frame1_lines, 100);
  /* The record's text sits in the file itself, after two raw frame heads. */
  size_t at = cs_tz_raw_frame_size(strlen(first) + 1) +
              cs_tz_raw_frame_size(CS_ACCT_LINE) - CS_ACCT_LINE;
  assert_memory_equal(file + at, second, CS_ACCT_LINE);
  free(file);
  free(out);
  free(f);
  test_remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_piece_end),
      cmocka_unit_test(test_frame_cut_anywhere_gives_whole_lines),
      cmocka_unit_test(test_whole_frame_level_1),
      cmocka_unit_test(test_whole_frame_fast_level),
      cmocka_unit_test(test_one_write_per_frame),
      cmocka_unit_test(test_failed_write_cuts_back_to_whole_frames),
      cmocka_unit_test(test_writer_compresses_when_io_is_behind),
      cmocka_unit_test(test_writer_makes_binary_frames_when_io_is_behind),
      cmocka_unit_test(test_trace_file_compressed),
      cmocka_unit_test(test_raw_frames),
      cmocka_unit_test(test_compressed_accounting),
      cmocka_unit_test(test_whole_frame_against_prefix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
