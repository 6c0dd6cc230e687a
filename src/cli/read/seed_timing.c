/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/seed_timing.c — see seed_timing.h.
 */
#include "read/seed_timing.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "read/ptimer_fit.h"
#include "read/trace_record.h"
#include "summary/nccl_model.h"
#include "util/pair_map.h"

/* The plugin's consistency bounds (src/plugin/writer/completion.c, §9):
 * a GPU span ending later than the host saw its end, or starting long
 * before the operation was enqueued, belongs to other work. */
#define STAMP_LATE_NS INT64_C(1000000)
#define STAMP_EARLY_NS INT64_C(50000000)

/* One operation and the evidence gathered for it. */
typedef struct {
  st_op_info info;
  bool has_info; /* its own record came (children may come first) */
  /* KernelCh stamps (GPU clock) */
  uint64_t gpu;
  uint32_t channels;      /* with both stamps */
  uint32_t channels_open; /* without a stop stamp, or with stop < start */
  uint64_t pt_start, pt_stop;
  int64_t first_seen; /* host time of the earliest start callback */
  int64_t last_seen;  /* host time of the latest stop callback */
  /* ProxyOps (host clock) */
  uint32_t proxy_ops, proxy_open;
  int64_t proxy_start, proxy_stop;
  /* at st_finish */
  int64_t kernel; /* index in kernels, -1 none */
} st_entry;

struct seed_timing {
  st_entry *ops;
  size_t nops, cap_ops;
  pair_map op_index; /* ordinal -> index + 1 (until st_finish sorts) */
  st_kernel_info *kernels;
  uint32_t *kernel_ops; /* operations tied to each kernel */
  size_t nkernels, cap_kernels;
  pair_map kernel_index; /* extCorrId -> index + 1 */
  ptimer_fit fit;
  size_t next; /* st_next's position */
  bool finished;
  bool oom;
};

seed_timing *st_new(void) {
  seed_timing *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  pair_map_init(&t->op_index);
  pair_map_init(&t->kernel_index);
  ptf_init(&t->fit);
  return t;
}

void st_free(seed_timing *t) {
  if (!t)
    return;
  free(t->ops);
  free(t->kernels);
  free(t->kernel_ops);
  pair_map_free(&t->op_index);
  pair_map_free(&t->kernel_index);
  ptf_free(&t->fit);
  free(t);
}

/* The entry of operation `ordinal`, made when new; NULL when out of
 * memory or after st_finish. */
static st_entry *entry_for(seed_timing *t, uint32_t ordinal) {
  if (t->finished || t->oom)
    return NULL;
  bool inserted;
  uint64_t *idx = pair_map_put(&t->op_index, ordinal, 0, 0, &inserted);
  if (!idx) {
    t->oom = true;
    return NULL;
  }
  if (!inserted)
    return &t->ops[*idx - 1];
  if (t->nops == t->cap_ops) {
    size_t ncap = t->cap_ops ? t->cap_ops * 2 : 64;
    st_entry *no = realloc(t->ops, ncap * sizeof *no);
    if (!no) {
      pair_map_remove(&t->op_index, ordinal, 0);
      t->oom = true;
      return NULL;
    }
    t->ops = no;
    t->cap_ops = ncap;
  }
  st_entry *e = &t->ops[t->nops++];
  memset(e, 0, sizeof *e);
  e->info.ordinal = ordinal;
  e->kernel = -1;
  *idx = t->nops;
  return e;
}

bool st_op(seed_timing *t, const st_op_info *op) {
  st_entry *e = entry_for(t, op->ordinal);
  if (!e)
    return false;
  e->info = *op;
  e->has_info = true;
  return true;
}

void st_channel(seed_timing *t, uint32_t op, uint64_t gpu, int64_t start_seen,
                uint64_t pt_start, bool has_stop, int64_t stop_seen,
                uint64_t pt_stop) {
  st_entry *e = entry_for(t, op);
  if (!e)
    return;
  ptf_seen(&t->fit, gpu, start_seen, pt_start);
  if (has_stop)
    ptf_seen(&t->fit, gpu, stop_seen, pt_stop);
  if (!has_stop || pt_stop < pt_start) {
    e->channels_open++;
    return;
  }
  if (e->channels == 0 || pt_start < e->pt_start)
    e->pt_start = pt_start;
  if (e->channels == 0 || pt_stop > e->pt_stop)
    e->pt_stop = pt_stop;
  if (e->channels == 0 || start_seen < e->first_seen)
    e->first_seen = start_seen;
  if (e->channels == 0 || stop_seen > e->last_seen)
    e->last_seen = stop_seen;
  e->gpu = gpu;
  e->channels++;
}

void st_proxy_op(seed_timing *t, uint32_t op, int64_t start, int64_t stop) {
  st_entry *e = entry_for(t, op);
  if (!e)
    return;
  if (stop == INT64_MIN || stop < start) {
    e->proxy_open++;
    return;
  }
  if (e->proxy_ops == 0 || start < e->proxy_start)
    e->proxy_start = start;
  if (e->proxy_ops == 0 || stop > e->proxy_stop)
    e->proxy_stop = stop;
  e->proxy_ops++;
}

void st_kernel(seed_timing *t, const st_kernel_info *k) {
  if (t->finished || t->oom)
    return;
  bool inserted;
  uint64_t *idx =
      pair_map_put(&t->kernel_index, (uint64_t)k->ext_corr, 0, 0, &inserted);
  if (!idx) {
    t->oom = true;
    return;
  }
  if (!inserted)
    return; /* the first record of an extCorrId names its kernel */
  if (t->nkernels == t->cap_kernels) {
    size_t ncap = t->cap_kernels ? t->cap_kernels * 2 : 64;
    st_kernel_info *nk = realloc(t->kernels, ncap * sizeof *nk);
    uint32_t *nc = realloc(t->kernel_ops, ncap * sizeof *nc);
    if (nk)
      t->kernels = nk;
    if (nc)
      t->kernel_ops = nc;
    if (!nk || !nc) {
      pair_map_remove(&t->kernel_index, (uint64_t)k->ext_corr, 0);
      t->oom = true;
      return;
    }
    t->cap_kernels = ncap;
  }
  t->kernels[t->nkernels] = *k;
  t->kernel_ops[t->nkernels] = 0;
  *idx = ++t->nkernels;
}

static int cmp_entry(const void *x, const void *y) {
  const st_entry *a = x, *b = y;
  return a->info.ordinal < b->info.ordinal   ? -1
         : a->info.ordinal > b->info.ordinal ? 1
                                             : 0;
}

bool st_finish(seed_timing *t) {
  if (t->finished)
    return !t->oom;
  t->finished = true;
  pair_map_free(&t->op_index);
  pair_map_init(&t->op_index);
  if (t->nops > 1)
    qsort(t->ops, t->nops, sizeof *t->ops, cmp_entry);
  /* each operation's CUPTI kernel; its first stamp cannot precede the
   * kernel's start: a lower bound of its GPU's clock offset */
  for (size_t i = 0; i < t->nops; i++) {
    st_entry *e = &t->ops[i];
    if (!e->has_info || !e->info.has_launch)
      continue;
    const uint64_t *k =
        pair_map_get(&t->kernel_index, (uint64_t)e->info.launch_ext, 0);
    if (!k)
      continue;
    e->kernel = (int64_t)*k - 1;
    t->kernel_ops[e->kernel]++;
    if (e->channels)
      ptf_not_before(&t->fit, e->gpu, t->kernels[e->kernel].start, e->pt_start);
  }
  if (!ptf_finish(&t->fit))
    t->oom = true;
  return !t->oom;
}

/* ---- the record ---- */

static void put_str_or_null(seed_text *o, const char *key, const char *s) {
  seed_text_fmt(o, ",\"%s\":", key);
  if (s[0])
    seed_text_json_str(o, s);
  else
    seed_text_str(o, "null");
}

static void put_span(seed_text *o, int64_t start, int64_t stop) {
  seed_text_str(o, "\"start\":");
  seed_text_ts(o, start);
  seed_text_str(o, ",\"stop\":");
  seed_text_ts(o, stop);
}

static void put_gbps(seed_text *o, double v) {
  if (v > 0)
    seed_text_fmt(o, "%.3f", v);
  else
    seed_text_str(o, "null");
}

/* The GPU span of `e` on the host clock; false when it has none or its
 * stamps cannot be this operation's. */
static bool gpu_span(const seed_timing *t, const st_entry *e, int64_t *start,
                     int64_t *stop, bool *anchored) {
  if (!e->channels || !ptf_to_host(&t->fit, e->gpu, e->pt_start, e->first_seen,
                                   start, anchored))
    return false;
  *stop = *start + (int64_t)(e->pt_stop - e->pt_start);
  return *stop <= e->last_seen + STAMP_LATE_NS &&
         *start >= e->info.enq_start - STAMP_EARLY_NS;
}

static void put_identity(seed_text *o, const st_op_info *op) {
  seed_text_fmt(o,
                "{\"recordType\":\"timing\",\"eventId\":\"0x%" PRIx32
                "\",\"type\":\"%s\",\"ctx\":%" PRIu32 ",\"commId\":\"0x%" PRIx64
                "\",\"rank\":%" PRId64 ",\"nranks\":%" PRId32,
                op->ordinal + 1, ev_type_json_name((ev_type)op->type), op->ctx,
                op->comm_id, op->rank, op->nranks);
  put_str_or_null(o, "func", op->func);
  if (op->has_seq)
    seed_text_fmt(o, ",\"seqNumber\":%" PRIu64, op->seq);
  if (op->has_peer)
    seed_text_fmt(o, ",\"peer\":%" PRId64, op->peer);
  if (op->type == ET_COLL) {
    put_str_or_null(o, "algo", op->algo);
    put_str_or_null(o, "proto", op->proto);
  }
}

bool st_next(seed_timing *t, seed_text *o, uint64_t *line_no) {
  while (t->next < t->nops && !t->ops[t->next].has_info)
    t->next++;
  if (t->next >= t->nops)
    return false;
  const st_entry *e = &t->ops[t->next++];
  const st_op_info *op = &e->info;
  *line_no = op->line_no;
  put_identity(o, op);
  uint64_t bytes = 0;
  if (op->has_count) {
    bytes =
        nccl_collective_bytes(op->func, op->count, op->datatype, op->nranks);
    seed_text_fmt(o, ",\"count\":%" PRIu64, op->count);
    put_str_or_null(o, "datatype", op->datatype);
    seed_text_fmt(o, ",\"bytes\":%" PRIu64, bytes);
  } else {
    seed_text_str(o, ",\"count\":null,\"datatype\":null,\"bytes\":null");
  }
  seed_text_str(o, ",\"apiTs\":");
  if (op->api_ts != INT64_MIN)
    seed_text_ts(o, op->api_ts);
  else
    seed_text_str(o, "null");
  seed_text_str(o, ",\"enqueue\":{\"start\":");
  seed_text_ts(o, op->enq_start);
  seed_text_str(o, ",\"stop\":");
  if (op->enq_stop != INT64_MIN)
    seed_text_ts(o, op->enq_stop);
  else
    seed_text_str(o, "null");
  seed_text_str(o, "}");
  /* the best evidence there is */
  int64_t gs = 0, ge = 0;
  bool anchored = false;
  bool gpu = gpu_span(t, e, &gs, &ge, &anchored);
  const st_kernel_info *k = e->kernel >= 0 ? &t->kernels[e->kernel] : NULL;
  const char *source;
  int64_t start, stop;
  if (gpu) {
    source = "gpu";
    start = gs;
    stop = ge;
  } else if (k && k->stop >= k->start) {
    source = "cupti";
    start = k->start;
    stop = k->stop;
  } else if (e->proxy_ops) {
    source = "proxy";
    start = e->proxy_start;
    stop = e->proxy_stop;
  } else {
    source = "host";
    start = op->enq_start;
    stop = op->enq_stop != INT64_MIN ? op->enq_stop : op->enq_start;
  }
  seed_text_fmt(o, ",\"source\":\"%s\",", source);
  put_span(o, start, stop);
  seed_text_str(o, ",\"duration\":");
  seed_text_ts(o, stop - start);
  if (gpu) {
    seed_text_str(o, ",\"gpu\":{");
    put_span(o, gs, ge);
    seed_text_fmt(
        o, ",\"channels\":%" PRIu32 ",\"batched\":false,\"clock\":\"%s\"}",
        e->channels, anchored ? "cupti" : "callbacks");
  }
  if (k) {
    seed_text_str(o, ",\"cupti\":{");
    put_span(o, k->start, k->stop);
    seed_text_fmt(o, ",\"device\":%" PRId64, k->device);
    put_str_or_null(o, "stream", k->stream);
    seed_text_fmt(
        o, ",\"corrId\":%" PRId64 ",\"extCorrId\":%" PRId64 ",\"batched\":%s}",
        k->corr, k->ext_corr, t->kernel_ops[e->kernel] > 1 ? "true" : "false");
  }
  if (e->proxy_ops) {
    seed_text_str(o, ",\"proxy\":{");
    put_span(o, e->proxy_start, e->proxy_stop);
    seed_text_fmt(o, ",\"ops\":%" PRIu32 "}", e->proxy_ops);
  }
  if ((gpu && e->channels_open) || (!gpu && e->proxy_ops && e->proxy_open))
    seed_text_str(o, ",\"incomplete\":true");
  /* no bandwidth from a host-only span */
  double secs = (double)(stop - start) / 1e9;
  double alg = strcmp(source, "host") != 0 && secs > 0 && bytes > 0
                   ? (double)bytes / secs / 1e9
                   : 0;
  seed_text_str(o, ",\"algBw\":");
  put_gbps(o, alg);
  seed_text_str(o, ",\"busBw\":");
  put_gbps(o, alg * nccl_bus_factor(op->func, op->nranks));
  seed_text_str(o, ",\"convertedFrom\":\"minimal_profiler\"}");
  return true;
}
