/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_trace_compact.c — a binary trace's compact records read
 * back as exactly the lines the JSONL writer writes: the same crafted
 * events and timing records (every event type, every end kind, every
 * parent kind, PXN, states with repeats, RCCL's ProxyDiag states, ABI 7's
 * KernelPhaseStop, strings that need escapes, extreme numbers, contexts
 * with and without communicator info, one that does not exist) go to a
 * JSONL sink and to a binary sink (stored and zstd frames, frames cut
 * between the records), and the CLI's reader (src/cli/read/trace_codec.c)
 * must give the JSONL file's event and timing lines byte for byte. A
 * stored binary file cut at every byte must read as a prefix of them, and
 * each of its frames must decode on its own (its lines a piece of them); a
 * string that makes the buffer grow inside a record must not lose the
 * record's first fields. Crafted files: an overlong context name is
 * refused, a long reclaim reason formatted whole, version 1 still read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "cst_format.h"
#include "host_info.h"
#include "out_dir.h"
#include "read/trace_codec.h"
#include "read/trace_reader.h"
#include "read/trace_record.h"
#include "trace_accounting.h"
#include "trace_compact_codec.h"
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

static uint32_t add_context(bool comm_info, int abi, int device,
                            const char *name, uint64_t comm_id) {
  uint32_t serial = cs_ctx_reserve();
  assert_true(serial != 0);
  cs_context *c = &cs_contexts[serial & (CS_MAX_CONTEXTS - 1)];
  c->abi = abi;
  c->has_comm_info = comm_info;
  c->comm_id = comm_id;
  c->nranks = 8;
  c->nnodes = 1;
  c->rank = 3;
  c->device = device;
  snprintf(c->comm_name, sizeof c->comm_name, "%s", name);
  cs_ctx_publish(serial);
  return serial;
}

static const char weird[] = "we\"ird\\name\n\t\x01\x1f end";

static void base(cs_event *e, uint8_t etype, uint64_t id, uint32_t ctx) {
  memset(e, 0, sizeof *e);
  e->etype = etype;
  e->id = id;
  e->parent_kind = CS_PARENT_LOCAL;
  e->parent = id - 7;
  e->start_raw = 6000000000u + id * 1000u;
  e->stop_raw = e->start_raw + 123457u;
  e->ctx = ctx;
  e->rank = 3;
  e->start_tid = 4000 + (int32_t)(id % 3);
  e->stop_tid = 4001;
  e->end = CS_END_STOPPED;
  e->states = e->inline_states;
  e->cap_states = CS_INLINE_STATES;
}

static void fill_payload(cs_event *e, int variant) {
  cs_payload *p = &e->p;
  switch (e->etype) {
  case CS_EV_GROUP_API:
    p->group_api.group_depth = variant ? INT32_MIN : 2;
    p->group_api.graph_captured = (uint8_t)variant;
    break;
  case CS_EV_COLL_API:
  case CS_EV_P2P_API:
    p->coll_api.func = variant ? weird : "AllReduce";
    p->coll_api.datatype = "ncclFloat32";
    p->coll_api.count = variant ? UINT64_MAX : 1024;
    p->coll_api.stream = 0x7f00dead0000ull;
    p->coll_api.root = variant ? -1 : 0;
    p->coll_api.graph_captured = (uint8_t)variant;
    p->coll_api.has_user_tag = (uint8_t)variant;
    p->coll_api.user_tag = UINT64_MAX;
    break;
  case CS_EV_KERNEL_LAUNCH:
    p->kernel_launch.stream = variant ? UINT64_MAX : 0;
    break;
  case CS_EV_COLL:
    p->coll.seq = variant ? UINT64_MAX : 12;
    p->coll.func = "AllReduce";
    p->coll.datatype = variant ? NULL : "ncclBfloat16";
    p->coll.algo = "RING";
    p->coll.proto = variant ? weird : "SIMPLE";
    p->coll.kernel_variant = "sym_ll";
    p->coll.has_kernel_variant = (uint8_t)variant;
    p->coll.is_sym_coll = (uint8_t)variant;
    p->coll.send_buff = 0x7f0000001000;
    p->coll.recv_buff = 0x7f0000002000;
    p->coll.count = 8388608;
    p->coll.parent_group = variant ? 0x55 : 0;
    p->coll.has_user_tag = (uint8_t)variant;
    p->coll.user_tag = 42;
    p->coll.comm_hash = variant ? 0xabcdef : 0;
    p->coll.traffic_bytes = variant ? 1u << 30 : 0;
    p->coll.root = variant ? INT32_MAX : 0;
    p->coll.op = variant ? 3 : 0;
    p->coll.n_channels = 255;
    p->coll.n_warps = 16;
    p->coll.is_nvls = (uint8_t)variant;
    break;
  case CS_EV_P2P:
    p->p2p.func = variant ? "Recv" : "Send";
    p->p2p.datatype = "ncclInt8";
    p->p2p.buff = 0x7f0000003000;
    p->p2p.count = 77;
    p->p2p.parent_group = variant ? 0x99 : 0;
    p->p2p.user_tag = 5;
    p->p2p.has_user_tag = (uint8_t)variant;
    p->p2p.comm_hash = variant ? 1 : 0;
    p->p2p.peer = variant ? -5 : 4;
    p->p2p.n_channels = 4;
    break;
  case CS_EV_PROXY_OP:
    p->proxy_op.pid = 31337;
    p->proxy_op.peer = 2;
    p->proxy_op.n_steps = variant ? INT32_MIN : 8;
    p->proxy_op.chunk_size = 524288;
    p->proxy_op.is_send = variant ? 7 : 0;
    p->proxy_op.channel_id = 3;
    p->proxy_op.has_rccl = (uint8_t)variant;
    p->proxy_op.rccl = (cs_p_rccl_proxy_op){.comm_hash = UINT64_MAX,
                                            .op_count = INT64_MIN,
                                            .trace_func_idx = -1,
                                            .trace_protocol = 2,
                                            .trace_pattern = 3,
                                            .trace_total_bytes = UINT32_MAX,
                                            .proxy_nbytes = 4096,
                                            .raw_proxy_nsteps = -9};
    break;
  case CS_EV_PROXY_STEP:
    p->proxy_step.step = variant ? -1 : 5;
    e->has_link = variant != 0;
    e->link.peer = 3;
    e->link.channel_id = 200;
    e->link.is_send = 1;
    break;
  case CS_EV_KERNEL_CH:
    p->kernel_ch.channel_id = 7;
    p->kernel_ch.has_ptimer = (uint8_t)variant;
    p->kernel_ch.ptimer = UINT64_MAX - 1;
    break;
  case CS_EV_NET_PLUGIN:
    p->net_plugin.plugin_id = variant ? -1 : 0x10003;
    p->net_plugin.net_kind = (uint8_t)(variant % 3);
    p->net_plugin.has_descr = 1;
    if (variant % 3 == CS_NET_SOCK) {
      p->net_plugin.u.sock.fd = 9;
      p->net_plugin.u.sock.op = -2;
      p->net_plugin.u.sock.length = 65536;
    } else {
      p->net_plugin.u.ib.wr_id = 0xabc;
      p->net_plugin.u.ib.length = 524288;
      p->net_plugin.u.ib.device = 1;
      p->net_plugin.u.ib.opcode = 2;
      p->net_plugin.u.ib.qp_num = 77;
    }
    break;
  case CS_EV_CE_COLL:
    p->ce_coll.seq = 4;
    p->ce_coll.func = "AllGather";
    p->ce_coll.datatype = "ncclUint8";
    p->ce_coll.sync_strategy = variant ? NULL : "barrier";
    p->ce_coll.send_buff = 1;
    p->ce_coll.recv_buff = 2;
    p->ce_coll.count = 3;
    p->ce_coll.stream = 4;
    p->ce_coll.user_tag = 5;
    p->ce_coll.root = -3;
    p->ce_coll.batch_size = UINT32_MAX;
    p->ce_coll.num_batches = 2;
    p->ce_coll.ce_seq_num = 9;
    p->ce_coll.intra_batch_sync = (uint8_t)variant;
    p->ce_coll.has_user_tag = (uint8_t)variant;
    break;
  case CS_EV_CE_SYNC:
    p->ce_sync.is_complete = (uint8_t)variant;
    p->ce_sync.n_ranks = 8;
    break;
  case CS_EV_CE_BATCH:
    p->ce_batch.total_bytes = UINT64_MAX;
    p->ce_batch.num_ops = -1;
    p->ce_batch.use_intra_sync = (uint8_t)variant;
    break;
  case CS_EV_KERNEL_PHASE:
    p->kernel_phase.channel_id = 2;
    p->kernel_phase.phase_id = (uint8_t)variant;
    p->kernel_phase.phase_name = variant ? weird : "compute";
    p->kernel_phase.ptimer = 123456789;
    break;
  case CS_EV_PROXY_DIAG:
  case CS_EV_UNKNOWN:
    p->unknown.raw_type = variant ? UINT64_MAX : 1u << 15;
    break;
  default:
    break;
  }
}

static cs_state_rec st(uint32_t id, uint64_t raw, uint32_t repeat,
                       uint64_t arg) {
  return (cs_state_rec){.state = id,
                        .repeat = repeat,
                        .raw_ts = raw,
                        .last_raw_ts = raw + 3000u * repeat,
                        .arg = arg};
}

/* Every event and timing record of the test, into sink t; with `huge`, a
 * 4 MiB string first (the file's buffer grows in the middle of a record). */
static void write_all(cs_trace_sink *t, const uint32_t *ctx, size_t nctx,
                      const char *huge) {
  cs_event *e = calloc(1, sizeof *e);
  cs_state_rec many[40];
  assert_non_null(e);
  uint64_t id = 0x1000;
  if (huge) {
    base(e, CS_EV_COLL_API, id++, ctx[0]);
    fill_payload(e, 0);
    e->p.coll_api.datatype = huge;
    cs_trace_event(t, e);
  }
  for (int etype = 0; etype < CS_EV_COUNT; etype++) {
    for (int variant = 0; variant < 3; variant++) {
      base(e, (uint8_t)etype, id++, ctx[(size_t)(etype + variant) % nctx]);
      fill_payload(e, variant);
      e->parent_kind = (uint8_t)((etype + variant) % 5);
      e->parent_hint = variant == 2;
      e->end = (uint8_t)(variant % 3);
      e->reclaim = (uint8_t)(etype % CS_RECLAIM_COUNT);
      e->end_raw = e->start_raw + 999u;
      if (variant == 1) { /* PXN: another process owns it */
        e->foreign_owner = true;
        e->origin_pid = -77;
        e->rank = -1;
      }
      if (variant == 2) { /* states, one of each kind the writer spells */
        uint64_t at = e->start_raw + 30;
        many[0] = st(7, at, 1, 0);
        many[1] = st(9, at + 300, 1, 1048576);
        many[2] = st(11, at + 600, 5, UINT64_MAX);
        many[3] = st(18, at + 900, 1, 0xffffffffu); /* -1 appended */
        many[4] = st(22, at + 1200, 1, 99);
        many[5] = st(31, at + 1500, 1, 77); /* pTimer under ABI 7 */
        many[6] = st(31, at + 1800, 2, 0x00ff0003);
        many[6].has_diag = true; /* RCCL's ProxyDiagUpdate */
        many[6].arg2 = (uint64_t)INT64_MIN;
        many[6].arg3 = 5;
        many[7] = st(32, at + 2100, 1, 0x00010001);
        many[7].has_diag = true;
        many[7].arg2 = 1;
        many[7].arg3 = (uint64_t)-1;
        many[8] = st(40, at + 2400, 1, 1);
        many[9] = st(3, at - 60, 1, 0); /* before the start */
        for (int i = 10; i < 40; i++)
          many[i] = st(8, at + 3000u * (unsigned)i, (unsigned)i, 0);
        e->states = many;
        e->nstates = 40;
        e->cap_states = 40;
      }
      cs_trace_event(t, e);
      if (id % 5 == 0)
        cs_trace_write_bulk(t); /* the next records start a frame */
    }
  }
  /* Timing records. */
  static const uint8_t types[] = {CS_EV_COLL, CS_EV_P2P, CS_EV_CE_COLL};
  for (int i = 0; i < 12; i++) {
    cs_timing r;
    memset(&r, 0, sizeof r);
    r.event_id = 0x5000 + (uint64_t)i * 3;
    r.etype = types[i % 3];
    r.ctx = ctx[(size_t)i % nctx];
    r.rank = i % 2 ? -1 : 3;
    r.nranks = 8;
    r.func = i % 4 == 3 ? weird : "AllReduce";
    r.datatype = "ncclFloat32";
    r.algo = i % 2 ? NULL : "TREE";
    r.proto = "LL128";
    r.count = i == 5 ? UINT64_MAX : 4096;
    r.seq = (uint64_t)i;
    r.has_seq = i % 3 != 2;
    r.peer = -2;
    r.bytes = 16384;
    r.start_ns = INT64_C(1700000002000000000) + i * 1000;
    r.stop_ns = r.start_ns + 50000;
    r.api_ns = i % 2 ? 0 : r.start_ns - 777;
    r.enq_start_ns = r.start_ns - 500;
    r.enq_stop_ns = i % 3 ? 0 : r.start_ns - 100;
    r.source = (cs_timing_source)(i % 3);
    r.has_gpu = i % 2 == 0;
    r.gpu_start_ns = r.start_ns + 10;
    r.gpu_stop_ns = r.stop_ns - 10;
    r.gpu_channels = 65535;
    r.gpu_rejected = (uint16_t)(i % 2 ? 0 : 3);
    r.phase_valid = (uint8_t)(i % 8);
    for (int ph = 0; ph < CS_TIMING_PHASES; ph++) {
      r.phase_start_ns[ph] = r.start_ns + ph * 100;
      r.phase_stop_ns[ph] = r.start_ns + ph * 100 + 50;
    }
    r.batched = i % 5 == 0;
    r.incomplete = i % 4 == 1;
    r.has_proxy = i % 3 == 1;
    r.proxy_start_ns = r.start_ns + 1;
    r.proxy_stop_ns = r.start_ns + 2;
    r.proxy_ops = 12;
    r.alg_bw = i % 4 == 0 ? -1.0 : i % 4 == 1 ? NAN : 1.234567e10 * i;
    r.bus_bw = i == 7 ? 1e15 : 2.5e9;
    cs_trace_timing(t, &r);
    if (i == 6)
      cs_trace_write_bulk(t);
  }
  free(e);
}

/* The event and timing lines of text[0, n), joined (each with its '\n'),
 * without padding. */
static char *event_lines(const char *text, size_t n, size_t *out_len) {
  char *out = malloc(n + 1);
  assert_non_null(out);
  size_t w = 0;
  for (size_t at = 0; at < n;) {
    const char *nl = memchr(text + at, '\n', n - at);
    size_t len = nl ? (size_t)(nl - (text + at)) + 1 : n - at;
    if (nl && (strncmp(text + at, "{\"recordType\":\"event\"", 21) == 0 ||
               strncmp(text + at, "{\"recordType\":\"timing\"", 22) == 0)) {
      /* Less the spaces plain JSONL pads a line with before its last '}'
       * to keep lines within pages (never in a formatted line). */
      size_t keep = len - 2;
      while (keep > 0 && text[at + keep - 1] == ' ')
        keep--;
      memcpy(out + w, text + at, keep);
      memcpy(out + w + keep, "}\n", 2);
      w += keep + 2;
    }
    at += len;
  }
  *out_len = w;
  return out;
}

static char *read_file_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t k;
  while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap)
      buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  *len = n;
  return buf;
}

/* A binary file's text through the CLI's reader; *err its error. */
static char *read_cst(const char *path, size_t *len, int *err) {
  int fd = open(path, O_RDONLY);
  assert_true(fd >= 0);
  tc_stream *s;
  assert_int_equal(tc_open(&s, TC_CST, fd), 0);
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  ssize_t k;
  *err = 0;
  while ((k = tc_read(s, buf + n, cap - n, err)) > 0) {
    n += (size_t)k;
    if (n == cap)
      buf = realloc(buf, cap *= 2);
  }
  tc_close(s);
  close(fd);
  *len = n;
  return buf;
}

typedef struct {
  char dir[4096];
  cs_out_dir folder;
  cs_clock_cal *cal;
  cs_host_info host;
} fixture;

/* Write everything with one sink; the file's path into path. */
static void write_trace(fixture *fx, const uint32_t *ctx, size_t nctx,
                        const char *huge, bool binary, int zstd_level,
                        const char *run, char *path, size_t path_cap) {
  cs_trace_env env = {.pid = 4242,
                      .hostname = "node\"1",
                      .run_id = run,
                      .run_id_source = "test",
                      .file_rank = -1,
                      .dir = fx->dir,
                      .out_dir = &fx->folder,
                      .host = &fx->host,
                      .global_rank = 17,
                      .local_rank = -1,
                      .world_size = -1,
                      .cal = fx->cal,
                      .mode_trace = true,
                      .direct_io = CS_TF_DIRECT_OFF,
                      .zstd_level = zstd_level,
                      .binary = binary};
  cs_trace_sink *t = calloc(1, sizeof *t);
  assert_true(cs_trace_open(t, &env));
  write_all(t, ctx, nctx, huge);
  snprintf(path, path_cap, "%s", cs_trace_path(t));
  cs_trace_close(t);
  free(t);
}

/* The event and timing lines of the binary file made of `file`'s header
 * and those of its frames (by their offsets) that `keep` says. */
static char *lines_of_frames(const char *dir, const char *file,
                             const size_t *frame_at, size_t nframes,
                             size_t file_len, bool (*keep)(size_t, size_t),
                             size_t k, size_t *len) {
  char path[4300];
  snprintf(path, sizeof path, "%s/frames.cst", dir);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(file, 1, CST_FILE_HEADER, f), CST_FILE_HEADER);
  for (size_t i = 0; i < nframes; i++) {
    size_t end = i + 1 < nframes ? frame_at[i + 1] : file_len;
    if (keep(i, k))
      assert_int_equal(fwrite(file + frame_at[i], 1, end - frame_at[i], f),
                       end - frame_at[i]);
  }
  fclose(f);
  int err;
  size_t n;
  char *text = read_cst(path, &n, &err);
  assert_int_equal(err, 0);
  char *lines = event_lines(text, n, len);
  free(text);
  return lines;
}

static bool all_but(size_t i, size_t k) {
  return i != k;
}

static bool head_and(size_t i, size_t k) {
  return i < 2 || i == k; /* the process and accounting frames, and k */
}

/* Each frame after the file's head decodes on its own: with only the
 * head before it, its lines are a piece of the run's lines; without it,
 * the other frames give the rest. */
static void frames_decode_alone(const char *dir, const char *file,
                                size_t file_len, const char *want,
                                size_t want_len) {
  size_t frame_at[256], nframes = 0;
  for (size_t at = CST_FILE_HEADER; at + CST_FRAME_HEADER <= file_len;) {
    cst_frame_info info;
    assert_true(cst_frame_parse((const unsigned char *)file + at, &info));
    assert_true(nframes < 256);
    frame_at[nframes++] = at;
    at += CST_FRAME_HEADER + info.bytes;
  }
  assert_true(nframes > 4); /* the head's two and several of records */
  for (size_t k = 2; k < nframes; k++) {
    size_t alone_len, rest_len;
    char *alone = lines_of_frames(dir, file, frame_at, nframes, file_len,
                                  head_and, k, &alone_len);
    char *rest = lines_of_frames(dir, file, frame_at, nframes, file_len,
                                 all_but, k, &rest_len);
    assert_true(alone_len > 0);
    assert_non_null(memmem(want, want_len, alone, alone_len));
    assert_int_equal(alone_len + rest_len, want_len);
    free(alone);
    free(rest);
  }
}

static void points_equal(const rec_point *a, const rec_point *b) {
  assert_int_equal(a->present, b->present);
  assert_int_equal(a->ts, b->ts);
  assert_int_equal(a->pid, b->pid);
  assert_int_equal(a->tid, b->tid);
}

/* A reader's scratch, ready (the caller frees it). */
static rec_scratch *new_scratch(void) {
  rec_scratch *s = malloc(sizeof *s);
  assert_non_null(s);
  rec_scratch_init(s);
  return s;
}

/* Marks that do not fit line[0, len) give no members: each mutation of
 * `marks` (the line's own) that makes them wrong is refused. */
static void wrong_marks_refused(const char *line, size_t len,
                                const line_marks *marks) {
  js_member_at out[LINE_MARKS_MAX];
  uint32_t n = marks->n;
  assert_int_equal(line_members_of_event(line, len, marks, out, n), (int)n);
  assert_int_equal(line_members_of_event(line, len, marks, out, n - 1), -1);
  line_marks m = *marks;
  m.n = 0;
  assert_int_equal(line_members_of_event(line, len, &m, out, n), -1);
  m = *marks;
  m.at[0] = 2;
  assert_int_equal(line_members_of_event(line, len, &m, out, n), -1);
  for (uint32_t i = 0; i < n; i++) {
    m = *marks; /* a key named twice: "end" marked as "ctx", as long */
    if (m.key[i] == CS_FK_END) {
      m.key[i] = CS_FK_CTX;
      assert_int_equal(line_members_of_event(line, len, &m, out, n), -1);
    }
    m = *marks; /* a number marked as escaped */
    if (m.key[i] == CS_FK_RANK) {
      m.escaped |= 1u << i;
      assert_int_equal(line_members_of_event(line, len, &m, out, n), -1);
    }
    m = *marks;
    m.key[i] = CS_FK_COUNT;
    assert_int_equal(line_members_of_event(line, len, &m, out, n), -1);
    m = *marks; /* a key of another length: its value would not start */
    m.key[i] = m.key[i] == CS_FK_ID ? CS_FK_DETAILS : CS_FK_ID;
    assert_int_equal(line_members_of_event(line, len, &m, out, n), -1);
    if (i == 0)
      continue;
    for (int shift = -1; shift <= 1; shift += 2) {
      m = *marks;
      m.at[i] += (uint32_t)shift;
      assert_int_equal(line_members_of_event(line, len, &m, out, n), -1);
    }
  }
}

/* Each formatter key is the scanner's key of the same name. */
static void test_formatter_keys_named_as_scanned(void **state_) {
  (void)state_;
  for (int k = 0; k < CS_FK_COUNT; k++) {
    js_key key = line_members_key((unsigned)k);
    assert_int_not_equal(key, K_UNKNOWN);
    assert_string_equal(js_key_name(key), cs_fmt_key_name((cs_fmt_key)k));
  }
  assert_int_equal(line_members_key(CS_FK_COUNT), K_UNKNOWN);
  assert_null(cs_fmt_key_name(CS_FK_COUNT));
}

/* Every event line of binary file `path`, read with a read buffer of
 * `bufsize` bytes, comes decoded (tr_file's decoded and marks): the
 * members found from its marks are those parsing the line finds, in
 * their order, and its record is the one parsing makes. The other lines
 * come undecoded. Returns how many lines came decoded; *keys_seen gains
 * a bit for each formatter key (cs_fmt_key) their marks named. */
static size_t members_as_parsed(const char *path, size_t bufsize,
                                uint32_t *keys_seen) {
  tr_file f;
  assert_int_equal(tr_open(&f, path, bufsize), 0);
  rec_scratch *parsed = new_scratch(), *given = new_scratch();
  size_t with = 0;
  while (tr_next(&f) == 1) {
    rec want, got;
    assert_true(rec_decode(&want, parsed, f.line, f.line_len));
    bool event_line = want.rt == RT_EVENT && want.et != ET_LIFECYCLE;
    if ((f.decoded != NULL) != event_line)
      fail_msg("line %llu %s decoded: %.*s", (unsigned long long)f.line_no,
               f.decoded ? "comes" : "does not come", (int)f.line_len, f.line);
    if (!f.decoded)
      continue;
    with++;
    for (uint32_t i = 0; i < f.marks->n; i++)
      *keys_seen |= 1u << f.marks->key[i];
    if (with % 7 == 1) /* some of every kind, as the file mixes them */
      wrong_marks_refused(f.line, f.line_len, f.marks);
    assert_true(
        rec_take_decoded(&got, given, f.decoded, f.marks, f.line, f.line_len));
    assert_int_equal(given->top.nfound, parsed->top.nfound);
    for (uint32_t i = 0; i < given->top.nfound; i++) {
      js_member_at m = js_member_at_of(&parsed->top, i, f.line);
      js_member_at g = js_member_at_of(&given->top, i, f.line);
      if (g.key != m.key || g.off != m.off || g.len != m.len ||
          g.type != m.type || g.escaped != m.escaped)
        fail_msg("member %u of %.*s: key %s at %u+%u type %u escaped %d, "
                 "parsing finds %s at %u+%u type %u escaped %d",
                 i, (int)f.line_len, f.line, js_key_name((js_key)g.key), g.off,
                 g.len, g.type, g.escaped, js_key_name((js_key)m.key), m.off,
                 m.len, m.type, m.escaped);
    }
    assert_ptr_equal(got.line, f.line);
    assert_int_equal(got.len, want.len);
    assert_ptr_equal(got.f, &given->top);
    assert_int_equal(given->top.nfound, parsed->top.nfound);
    assert_int_equal(got.rt, want.rt);
    assert_int_equal(got.et, want.et);
    assert_int_equal(got.has_id, want.has_id);
    assert_int_equal(got.id, want.id);
    assert_int_equal(got.parent, want.parent);
    assert_int_equal(got.parent_id, want.parent_id);
    assert_int_equal(got.parent_raw, want.parent_raw);
    assert_int_equal(got.has_ctx, want.has_ctx);
    assert_int_equal(got.ctx, want.ctx);
    assert_int_equal(got.has_comm, want.has_comm);
    assert_int_equal(got.comm_id, want.comm_id);
    assert_int_equal(got.rank, want.rank);
    points_equal(&got.start, &want.start);
    points_equal(&got.stop, &want.stop);
    assert_int_equal(got.end, want.end);
    assert_int_equal(got.has_end_ts, want.has_end_ts);
    assert_int_equal(got.end_ts, want.end_ts);
    assert_int_equal(got.has_ts, want.has_ts);
    assert_int_equal(got.ts, want.ts);
  }
  assert_int_equal(f.error, 0);
  tr_close(&f);
  free(parsed);
  free(given);
  return with;
}

static void round_trip(cs_host_kind host, const char *huge) {
  fixture fx;
  memset(&fx, 0, sizeof fx);
  test_make_tmpdir(fx.dir, sizeof fx.dir);
  cs_out_dir_init(&fx.folder, fx.dir, "the test folder");
  fx.cal = fixed_cal();
  fx.host = (cs_host_info){.kind = host, .version = "2.27.0"};
  cs_ctx_clear_all();
  uint32_t ctx[4];
  ctx[0] = add_context(true, 7, 0, "train\"dp", 0x1234567890abcdefull);
  ctx[1] = add_context(false, 4, -1, "", 0);
  ctx[2] = add_context(true, 6, 3, weird, UINT64_MAX);
  ctx[3] = 0x7777; /* no such context */

  char jsonl[4200], plain[4200], packed[4200];
  write_trace(&fx, ctx, 4, huge, false, 0, "run", jsonl, sizeof jsonl);
  write_trace(&fx, ctx, 4, huge, true, 0, "run", plain, sizeof plain);
  write_trace(&fx, ctx, 4, huge, true, 1, "run", packed, sizeof packed);
  assert_non_null(strstr(plain, ".cst"));

  size_t n, want_len;
  char *text = read_file_text(jsonl, &n);
  char *want = event_lines(text, n, &want_len);
  free(text);
  assert_true(want_len > 10000);

  const char *cst[2] = {plain, packed};
  for (int i = 0; i < 2; i++) {
    int err;
    size_t got_len;
    text = read_cst(cst[i], &n, &err);
    assert_int_equal(err, 0);
    char *got = event_lines(text, n, &got_len);
    free(text);
    /* its event lines come decoded: read with a small buffer (many
     * refills between a piece's lines) and a large one */
    size_t events = 0;
    for (size_t at = 0; at < got_len; at++)
      events += (at == 0 || got[at - 1] == '\n') &&
                strncmp(got + at, "{\"recordType\":\"event\"", 21) == 0;
    uint32_t keys_seen = 0;
    size_t with = members_as_parsed(cst[i], 4096, &keys_seen);
    assert_true(events > 20);
    assert_int_equal(with, events);
    assert_int_equal(members_as_parsed(cst[i], 1 << 20, &keys_seen), with);
    /* every key the formatter writes was among them */
    for (int k = 0; k < CS_FK_COUNT; k++)
      if (!(keys_seen & (1u << k)))
        fail_msg("no decoded line has \"%s\"", cs_fmt_key_name(k));
    if (got_len != want_len || memcmp(got, want, want_len) != 0) {
      size_t at = 0;
      while (at < got_len && at < want_len && got[at] == want[at])
        at++;
      size_t from = at > 200 ? at - 200 : 0;
      fail_msg("%s differs at byte %zu:\n  got      %.400s\n  expected %.400s",
               cst[i], at, got + from, want + from);
    }
    free(got);
  }

  /* The stored file cut at every byte: a prefix of the lines, or nothing
   * past the whole records (never an error, never a wrong line). */
  size_t whole_len;
  char *whole = read_file_text(plain, &whole_len);
  char cut[4300];
  snprintf(cut, sizeof cut, "%s/cut.cst", fx.dir);
  for (size_t len = 16; !huge && len < whole_len; len += 7) {
    FILE *f = fopen(cut, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(whole, 1, len, f), len);
    fclose(f);
    int err;
    size_t got_len;
    text = read_cst(cut, &n, &err);
    assert_int_equal(err, 0);
    char *got = event_lines(text, n, &got_len);
    free(text);
    assert_true(got_len <= want_len);
    assert_memory_equal(got, want, got_len);
    free(got);
  }
  if (!huge)
    frames_decode_alone(fx.dir, whole, whole_len, want, want_len);
  free(whole);
  free(want);
  free(fx.cal);
  cs_out_dir_close(&fx.folder);
  test_remove_tree(fx.dir);
}

static void test_nccl_binary_reads_as_jsonl(void **state_) {
  (void)state_;
  round_trip(CS_HOST_NCCL, NULL);
}

static void test_rccl_binary_reads_as_jsonl(void **state_) {
  (void)state_;
  round_trip(CS_HOST_RCCL, NULL);
}

/* A string that makes the buffer grow while a record is being made: the
 * record's first fields must move with it. */
static void test_buffer_grows_inside_a_record(void **state_) {
  (void)state_;
  size_t n = 4u << 20;
  char *huge = malloc(n + 1);
  assert_non_null(huge);
  memset(huge, 'x', n);
  huge[n] = '\0';
  round_trip(CS_HOST_NCCL, huge);
  free(huge);
}

/* ---- crafted files: what a reader must survive ---- */

/* The crafted records' strings: every one new. */
static void new_str(cs_cx *c, const char **s) {
  const char *v = *s;
  if (!v) {
    *c->out++ = 0;
    return;
  }
  size_t n = strlen(v);
  c->out = cst_put_varint(c->out, (uint64_t)n << 1 | 1);
  memcpy(c->out, v, n);
  c->out += n;
}

typedef struct {
  unsigned char *payload; /* the frame's records */
  size_t len;
  uint32_t records;
  cs_cx_prev prev;
  unsigned char *body; /* the record being made */
} crafted;

enum { CRAFTED_MAX = 2 << 20 };

static crafted *crafted_new(void) {
  crafted *k = calloc(1, sizeof *k);
  assert_non_null(k);
  k->payload = malloc(CRAFTED_MAX);
  k->body = malloc(CRAFTED_MAX);
  assert_non_null(k->payload);
  assert_non_null(k->body);
  return k;
}

static void crafted_free(crafted *k) {
  free(k->payload);
  free(k->body);
  free(k);
}

/* A record's body in the layout of the files crafted_write makes (the
 * container's version, CST_VERSION). */
static cs_cx crafted_body(crafted *k) {
  return (cs_cx){.reading = false,
                 .out = k->body,
                 .prev = &k->prev,
                 .gpu_deltas = true,
                 .str = new_str};
}

static void crafted_add(crafted *k, unsigned kind, const cs_cx *c) {
  size_t body = (size_t)(c->out - k->body);
  unsigned char head[CST_REC_HEAD_MAX];
  size_t h = cst_rec_head(head, kind, (uint32_t)body);
  memcpy(k->payload + k->len, head, h);
  memcpy(k->payload + k->len + h, k->body, body);
  k->len += h + body;
  k->records++;
}

/* k's records as the one stored frame of a binary file at path. */
static void crafted_write(const crafted *k, const char *path) {
  unsigned char head[CST_FILE_HEADER + CST_FRAME_HEADER];
  cst_file_header(head, 0);
  cst_frame_info info = {CST_CODEC_STORED, (uint32_t)k->len, k->records};
  cst_frame_header(head + CST_FILE_HEADER, &info);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(head, 1, sizeof head, f), sizeof head);
  assert_int_equal(fwrite(k->payload, 1, k->len, f), k->len);
  fclose(f);
}

static void crafted_writer(crafted *k) {
  cs_fmt who = {.pid = 7, .global_rank = -1, .run_id = "r", .hostname = "h"};
  cs_cx c = crafted_body(k);
  cs_cx_writer(&c, &who);
  crafted_add(k, CST_REC_WRITER, &c);
}

/* A crafted file named `name` in a new folder (dir, path), begun with
 * its frame's writer record. */
static crafted *crafted_begin(char *dir, size_t dir_cap, char *path,
                              size_t path_cap, const char *name) {
  test_make_tmpdir(dir, dir_cap);
  snprintf(path, path_cap, "%s/%s", dir, name);
  crafted *k = crafted_new();
  crafted_writer(k);
  return k;
}

/* A context whose name is longer than any the plugin has: the file is
 * refused as corrupt, not formatted past the line's room. */
static void test_overlong_context_name_refused(void **state_) {
  (void)state_;
  char dir[4096], path[4200];
  crafted *k =
      crafted_begin(dir, sizeof dir, path, sizeof path, "long_name.cst");
  char name[5000];
  memset(name, '"', sizeof name - 1); /* each one escaped: 2 bytes */
  name[sizeof name - 1] = '\0';
  cs_fmt_comm m = {
      .has_comm_info = true, .abi = 6, .device = 0, .comm_name = name};
  uint32_t serial = 3;
  cs_cx c = crafted_body(k);
  cs_cx_context(&c, &serial, &m);
  crafted_add(k, CST_REC_CONTEXT, &c);
  cs_timing r;
  memset(&r, 0, sizeof r);
  r.etype = CS_EV_COLL;
  r.ctx = 3;
  r.func = "AllReduce";
  bool missing = false;
  c = crafted_body(k);
  cs_cx_timing(&c, &r, &missing);
  crafted_add(k, CST_REC_TIMING, &c);
  crafted_write(k, path);
  int err;
  size_t n;
  free(read_cst(path, &n, &err));
  assert_int_equal(err, TC_ERR_CORRUPT);
  crafted_free(k);
  test_remove_tree(dir);
}

/* A context described twice in one frame with other communicator info
 * (a file the plugin does not write): the formatter keeps the text of the
 * first for the context's later lines, so those lines must not come
 * decoded from the record, which has the second; every line that does
 * come decoded is what parsing it gives. */
static void add_context_record(crafted *k, uint32_t serial, uint64_t comm_id) {
  cs_fmt_comm m = {.has_comm_info = true,
                   .comm_id = comm_id,
                   .abi = 6,
                   .device = 0,
                   .comm_name = "c"};
  cs_cx c = crafted_body(k);
  cs_cx_context(&c, &serial, &m);
  crafted_add(k, CST_REC_CONTEXT, &c);
}

static void add_event_record(crafted *k, cs_event *e, uint64_t id,
                             uint32_t ctx) {
  base(e, CS_EV_COLL, id, ctx);
  cs_fmt_times t = {.start_ns = INT64_C(1700000000000000000) + (int64_t)id,
                    .end_ns = INT64_C(1700000000000001000)};
  cs_cx_event_extra x = {.times = &t, .abi = 6};
  cs_cx c = crafted_body(k);
  cs_cx_event(&c, e, &x);
  crafted_add(k, CST_REC_EVENT, &c);
}

static void test_context_described_again(void **state_) {
  (void)state_;
  char dir[4096], path[4200];
  crafted *k = crafted_begin(dir, sizeof dir, path, sizeof path, "again.cst");
  cs_event *e = calloc(1, sizeof *e);
  assert_non_null(e);
  add_context_record(k, 3, 0xa);
  add_event_record(k, e, 0x101, 3);
  add_context_record(k, 3, 0xb); /* the same context, other info */
  add_event_record(k, e, 0x102, 3);
  add_context_record(k, 4, 0xc);
  add_event_record(k, e, 0x103, 4);
  crafted_write(k, path);
  tr_file f;
  assert_int_equal(tr_open(&f, path, 4096), 0);
  rec_scratch *parsed = new_scratch(), *given = new_scratch();
  bool decoded[3] = {false, false, false};
  uint64_t comm[3] = {0, 0, 0};
  int lines = 0;
  while (tr_next(&f) == 1) {
    rec want, got;
    assert_true(rec_decode(&want, parsed, f.line, f.line_len));
    assert_true(lines < 3);
    decoded[lines] = f.decoded != NULL;
    comm[lines++] = want.comm_id;
    if (!f.decoded)
      continue;
    assert_true(
        rec_take_decoded(&got, given, f.decoded, f.marks, f.line, f.line_len));
    assert_int_equal(got.has_comm, want.has_comm);
    assert_int_equal(got.comm_id, want.comm_id);
    assert_int_equal(got.id, want.id);
  }
  assert_int_equal(lines, 3);
  assert_int_equal(comm[1], 0xa); /* the text keeps the first description */
  assert_true(decoded[0]);
  assert_false(decoded[1]);
  assert_true(decoded[2]);
  assert_int_equal(comm[2], 0xc);
  tr_close(&f);
  free(parsed);
  free(given);
  free(e);
  crafted_free(k);
  test_remove_tree(dir);
}

/* A reclaim reason far longer than the plugin's (escaped, more than the
 * reader's first 1 MiB of text): formatted whole, its room counted. */
static void test_long_reclaim_reason_formatted(void **state_) {
  (void)state_;
  char dir[4096], path[4200];
  crafted *k =
      crafted_begin(dir, sizeof dir, path, sizeof path, "long_reason.cst");
  size_t reason_len = 600000;
  char *reason = malloc(reason_len + 1);
  assert_non_null(reason);
  memset(reason, '\\', reason_len);
  reason[reason_len] = '\0';
  cs_event *e = calloc(1, sizeof *e);
  assert_non_null(e);
  base(e, CS_EV_PROXY_STEP, 0x42, 0);
  e->end = CS_END_RECLAIMED;
  cs_fmt_times t = {.start_ns = INT64_C(1700000000000000000),
                    .end_ns = INT64_C(1700000000000001000),
                    .reclaim = reason};
  cs_cx_event_extra x = {.times = &t, .ctx_missing = true, .abi = 6};
  cs_cx c = crafted_body(k);
  cs_cx_event(&c, e, &x);
  crafted_add(k, CST_REC_EVENT, &c);
  crafted_write(k, path);
  int err;
  size_t n;
  char *text = read_cst(path, &n, &err);
  assert_int_equal(err, 0);
  char *at = memchr(text, '\\', n);
  assert_non_null(at);
  assert_true(n - (size_t)(at - text) > 2 * reason_len);
  free(text);
  free(reason);
  free(e);
  crafted_free(k);
  test_remove_tree(dir);
}

/* Version 3 writes a kernel's GPU timer values as differences (its start
 * from the frame's previous one, its stop state's from its start): after
 * the frame's first, a KernelPhase event's record is at least 12 bytes
 * shorter than in version 2's layout, and both read back as their lines
 * with every timer exact. (Version 2 files still read in their own
 * layout: cli.cst_v2.*.) */
static void test_gpu_timers_as_differences(void **state_) {
  (void)state_;
  char dir[4096], path[4200];
  crafted *k = crafted_begin(dir, sizeof dir, path, sizeof path, "ptimers.cst");
  cs_event *e = calloc(1, sizeof *e);
  assert_non_null(e);
  base(e, CS_EV_KERNEL_PHASE, 0x42, 0);
  e->p.kernel_phase.channel_id = 1;
  e->p.kernel_phase.phase_id = 2;
  e->p.kernel_phase.phase_name = "compute";
  e->p.kernel_phase.ptimer = UINT64_C(1795875911816150000);
  e->nstates = 1;
  e->states[0] = (cs_state_rec){
      .state = 31, .repeat = 1, .arg = UINT64_C(1795875911816152000)};
  int64_t state_ns[2] = {INT64_C(1700000000000000500), 0};
  cs_fmt_times t = {.start_ns = INT64_C(1700000000000000000),
                    .end_ns = INT64_C(1700000000000001000),
                    .state_ns = state_ns};
  cs_cx_event_extra x = {.times = &t, .ctx_missing = true, .abi = 7};
  cs_cx c = crafted_body(k); /* the frame's first */
  cs_cx_event(&c, e, &x);
  crafted_add(k, CST_REC_EVENT, &c);
  e->id = 0x43; /* the next kernel phase, 40 us later */
  e->p.kernel_phase.ptimer += 40000;
  e->states[0].arg += 40000;
  t.start_ns += 40000;
  t.end_ns += 40000;
  state_ns[0] += 40000;
  cs_cx_prev before = k->prev;
  cs_cx old_layout = crafted_body(k);
  old_layout.gpu_deltas = false;
  cs_cx_event(&old_layout, e, &x);
  size_t old_len = (size_t)(old_layout.out - k->body);
  k->prev = before; /* that body is not kept */
  c = crafted_body(k);
  cs_cx_event(&c, e, &x);
  size_t new_len = (size_t)(c.out - k->body);
  assert_true(new_len + 12 <= old_len);
  crafted_add(k, CST_REC_EVENT, &c);
  crafted_write(k, path);
  int err;
  size_t n;
  char *text = read_cst(path, &n, &err);
  assert_int_equal(err, 0);
  text = realloc(text, n + 1);
  text[n] = '\0';
  static const char *const timers[] = {
      "\"pTimer\":1795875911816150000}", "\"pTimer\":1795875911816152000}",
      "\"pTimer\":1795875911816190000}", "\"pTimer\":1795875911816192000}"};
  const char *at = text;
  for (int i = 0; i < 4; i++) { /* in order: details, state; twice */
    at = strstr(at, timers[i]);
    assert_non_null(at);
  }
  free(text);
  free(e);
  crafted_free(k);
  test_remove_tree(dir);
}

/* The writes of the file under test: the `fail_write_no`-th reports a
 * full disk after writing half of its bytes. */
static int writes_seen, fail_write_no;

static ssize_t failing_pwrite(int fd, const void *data, size_t len,
                              off_t offset) {
  if (++writes_seen == fail_write_no) {
    ssize_t half = pwrite(fd, data, len / 2, offset);
    if (half < 0)
      return half;
    errno = ENOSPC;
    return -1;
  }
  return pwrite(fd, data, len, offset);
}

/* A compressed binary trace's head (version 3): the process line in a
 * zstd frame made against the container's prefix, then a stored frame of
 * the compact accounting record alone, whose fixed-size body is the
 * head's last bytes. A failed write of a later frame is counted there, in
 * place, and closing fills in the closing fields; the reader turns the
 * body into the very accounting line a JSONL file holds, 512 bytes. */
static void test_binary_accounting_in_place(void **state_) {
  (void)state_;
  char dir[4096];
  test_make_tmpdir(dir, sizeof dir);
  cs_out_dir folder;
  cs_out_dir_init(&folder, dir, "the test folder");
  cs_trace_file *f = calloc(1, sizeof *f);
  assert_true(cs_tf_open_as(f, &folder, "trace_a", CS_TF_DIRECT_AUTO, 1, true));
  cs_out_dir_close(&folder);
  f->io.write = failing_pwrite; /* before the first write */
  writes_seen = 0;
  fail_write_no = 3; /* the head, frame 1, then frame 2 */
  const char *first = "{\"recordType\":\"process\",\"plugin\":\"cclscope\"}";
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
  assert_int_equal(writes_seen, 3);

  /* The layout. */
  size_t file_len;
  char *file = read_file_text(f->path, &file_len);
  const unsigned char *u = (const unsigned char *)file;
  assert_int_equal(cst_file_version(u, file_len), 3);
  cst_frame_info process, acct;
  assert_true(cst_frame_parse(u + CST_FILE_HEADER, &process));
  assert_int_equal(process.codec, CST_CODEC_ZSTD_PREFIX);
  assert_int_equal(process.records, 1);
  size_t acct_at = CST_FILE_HEADER + CST_FRAME_HEADER + process.bytes;
  assert_true(cst_frame_parse(u + acct_at, &acct));
  assert_int_equal(acct.codec, CST_CODEC_STORED);
  assert_int_equal(acct.records, 1);
  assert_int_equal(acct.bytes, 2 + CS_ACCT_BODY);
  const unsigned char *body = u + acct_at + CST_FRAME_HEADER;
  assert_int_equal(body[0], CST_REC_ACCOUNTING);
  assert_int_equal(body[1], CS_ACCT_BODY);
  cs_acct a;
  assert_true(cs_acct_unpack(body + 2, CS_ACCT_BODY, &a));
  assert_int_equal(a.lines_lost, 200);
  assert_int_equal(a.write_errors, 1);
  assert_int_equal(a.write_errno, ENOSPC);
  assert_string_equal(a.closing.reason, "exit");
  assert_int_equal(a.closing.events_written, 7);

  /* The text. */
  size_t n;
  int err;
  char *text = read_cst(f->path, &n, &err);
  assert_int_equal(err, 0);
  text = realloc(text, n + 1);
  text[n] = '\0';
  char *second = strchr(text, '\n') + 1;
  char *third = strchr(second, '\n') + 1;
  assert_int_equal(second - text, strlen(first) + 1);
  assert_int_equal(third - second, CS_ACCT_LINE);
  char want[CS_ACCT_LINE];
  cs_acct_format(&a, want);
  assert_memory_equal(second, want, CS_ACCT_LINE);
  assert_non_null(strstr(second, "{\"recordType\":\"accounting\","
                                 "\"linesLost\":200,\"bytesLost\":"));
  assert_true(strstr(second, "\"reason\":\"exit\",\"eventsWritten\":7,") <
              third);
  unsigned frame1_lines = 0;
  for (char *p = third; *p; p = strchr(p, '\n') + 1, frame1_lines++)
    assert_int_equal(strncmp(p, "{\"frame\":1,", 11), 0);
  assert_int_equal(frame1_lines, 100);
  free(text);
  free(file);
  free(f);
  test_remove_tree(dir);
}

/* A compact accounting body that is not one (a size, a reason without its
 * NUL, or one the line could not hold as it is) makes the file corrupt,
 * never a line the plugin did not write. */
static void test_binary_accounting_body_checked(void **state_) {
  (void)state_;
  cs_acct a = {.lines_lost = 3, .write_errno = 28};
  snprintf(a.closing.reason, sizeof a.closing.reason, "finalize");
  unsigned char body[CS_ACCT_BODY];
  cs_acct_pack(&a, body);
  cs_acct back;
  assert_true(cs_acct_unpack(body, sizeof body, &back));
  assert_int_equal(back.lines_lost, 3);
  assert_int_equal(back.write_errno, 28);
  assert_string_equal(back.closing.reason, "finalize");
  assert_false(cs_acct_unpack(body, sizeof body - 1, &back));
  unsigned char bad[CS_ACCT_BODY];
  memcpy(bad, body, sizeof bad);
  memset(bad + CS_ACCT_BODY - 16, 'x', 16); /* no NUL */
  assert_false(cs_acct_unpack(bad, sizeof bad, &back));
  memcpy(bad, body, sizeof bad);
  bad[CS_ACCT_BODY - 16] = '"'; /* would end the JSON string */
  assert_false(cs_acct_unpack(bad, sizeof bad, &back));
  memcpy(bad, body, sizeof bad);
  bad[CS_ACCT_BODY - 1] = 'x'; /* after the NUL */
  assert_false(cs_acct_unpack(bad, sizeof bad, &back));
}

/* Version 1 and 2 files (line records only here) still read; a version
 * newer than the reader knows is refused. */
static void test_version_1_still_read(void **state_) {
  (void)state_;
  char dir[4096], path[4200];
  test_make_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/v1.cst", dir);
  static const char text[] = "{\"recordType\":\"mark\",\"a\":1}\n"
                             "{\"recordType\":\"mark\",\"a\":2}\n";
  uint32_t lines;
  size_t payload = cst_lines_payload_size(text, sizeof text - 1, &lines);
  unsigned char *file = malloc(CST_FILE_HEADER + CST_FRAME_HEADER + payload);
  assert_non_null(file);
  static const unsigned versions[] = {1, 2, CST_VERSION + 1};
  for (size_t v = 0; v < sizeof versions / sizeof *versions; v++) {
    unsigned version = versions[v];
    cst_file_header(file, 0);
    file[8] = (unsigned char)version; /* the version, a little-endian u16 */
    file[9] = 0;
    cst_frame_info info = {CST_CODEC_STORED, (uint32_t)payload, lines};
    cst_frame_header(file + CST_FILE_HEADER, &info);
    cst_lines_payload(text, sizeof text - 1,
                      file + CST_FILE_HEADER + CST_FRAME_HEADER);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    size_t len = CST_FILE_HEADER + CST_FRAME_HEADER + payload;
    assert_int_equal(fwrite(file, 1, len, f), len);
    fclose(f);
    int err;
    size_t n;
    char *got = read_cst(path, &n, &err);
    if (version <= CST_VERSION) {
      assert_int_equal(err, 0);
      assert_int_equal(n, sizeof text - 1);
      assert_memory_equal(got, text, n);
    } else {
      assert_int_equal(err, TC_ERR_CORRUPT);
    }
    free(got);
  }
  free(file);
  test_remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_formatter_keys_named_as_scanned),
      cmocka_unit_test(test_nccl_binary_reads_as_jsonl),
      cmocka_unit_test(test_rccl_binary_reads_as_jsonl),
      cmocka_unit_test(test_buffer_grows_inside_a_record),
      cmocka_unit_test(test_overlong_context_name_refused),
      cmocka_unit_test(test_long_reclaim_reason_formatted),
      cmocka_unit_test(test_context_described_again),
      cmocka_unit_test(test_version_1_still_read),
      cmocka_unit_test(test_gpu_timers_as_differences),
      cmocka_unit_test(test_binary_accounting_in_place),
      cmocka_unit_test(test_binary_accounting_body_checked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
