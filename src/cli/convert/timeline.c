/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/timeline.c — see timeline.h.
 */
#include "convert/timeline.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t tl_gpu_tid(const rec *r) {
  int64_t device = -1;
  uint64_t stream = 0;
  const js_value *sv = js_get(r->f, K_stream);
  if (!js_to_hex_u64(sv, &stream) && !js_to_u64(sv, &stream))
    stream = 0;
  if (!js_to_i64(js_get(r->f, K_device), &device) || device < 0 ||
      device >= 0xffff)
    device = 0xffff;
  return TL_GPU_TID_FLAG | ((int64_t)device << 32) |
         (int64_t)(stream & 0xffffffffu);
}

bool tl_tid_is_gpu(int64_t os_tid) {
  return os_tid != TL_COMPLETION_TID && (os_tid & TL_GPU_TID_FLAG) != 0;
}

void tl_gpu_lane_name(int64_t os_tid, char *buf, size_t cap) {
  unsigned device = (unsigned)((os_tid >> 32) & 0xffff);
  unsigned stream = (unsigned)(os_tid & 0xffffffff);
  if (device == 0xffff)
    snprintf(buf, cap, "GPU ? · stream 0x%x", stream);
  else
    snprintf(buf, cap, "GPU %u · stream 0x%x", device, stream);
}

void tl_activity_name(const rec *r, char *buf, size_t cap) {
  char kind[32] = "", name[256] = "";
  js_str_copy(js_get(r->f, K_kind), kind, sizeof kind);
  js_str_copy(js_get(r->f, K_name), name, sizeof name);
  /* "_Z39ncclDevKernel_…24ncclDevKernelArgs…": the 39 characters after
   * the length are the function's own name */
  const char *shown = name;
  char plain[256];
  if (name[0] == '_' && name[1] == 'Z' && isdigit((unsigned char)name[2])) {
    char *end;
    unsigned long n = strtoul(name + 2, &end, 10);
    if (n > 0 && n < sizeof plain && strlen(end) >= n) {
      memcpy(plain, end, n);
      plain[n] = '\0';
      shown = plain;
    }
  }
  bool kernel = !kind[0] || strcmp(kind, "KERNEL") == 0 ||
                strcmp(kind, "CONCURRENT_KERNEL") == 0;
  if (kernel)
    snprintf(buf, cap, "%s", shown[0] ? shown : "kernel");
  else
    snprintf(buf, cap, "%s%s%s", kind, shown[0] ? " " : "", shown);
}

bool tl_init(timeline *t, size_t nfiles) {
  memset(t, 0, sizeof *t);
  pair_map_init(&t->group_index);
  pair_map_init(&t->thread_names);
  pair_map_init(&t->ctx_index);
  intern_init(&t->names);
  t->nfiles = nfiles;
  t->next_local = calloc(nfiles ? nfiles : 1, sizeof *t->next_local);
  return t->next_local != NULL;
}

void tl_free(timeline *t) {
  for (size_t i = 0; i < t->ngroups; i++)
    lane_group_free(&t->groups[i].lanes);
  free(t->groups);
  free(t->tracks);
  free(t->next_local);
  free(t->ctxs);
  pair_map_free(&t->group_index);
  pair_map_free(&t->thread_names);
  pair_map_free(&t->ctx_index);
  intern_free(&t->names);
  memset(t, 0, sizeof *t);
}

static uint32_t name_id(timeline *t, const js_value *v) {
  char buf[256];
  if (!v || v->type != JS_STRING || !js_str_copy(v, buf, sizeof buf) || !buf[0])
    return 0;
  return intern_id(&t->names, buf, strlen(buf));
}

void tl_note(timeline *t, size_t file, const rec *r) {
  if (r->rt == RT_THREAD) {
    int64_t tid;
    uint32_t id = name_id(t, js_get(r->f, K_name));
    if (id && js_to_i64(js_get(r->f, K_tid), &tid))
      pair_map_put(&t->thread_names, file, (uint64_t)tid, id, NULL);
    return;
  }
  if (r->rt != RT_EVENT || r->et != ET_LIFECYCLE || !r->has_ctx ||
      !js_str_eq(js_get(r->f, K_func), "ProfilerInit"))
    return;
  bool inserted;
  uint64_t *idx =
      pair_map_put(&t->ctx_index, file, (uint64_t)r->ctx, 0, &inserted);
  if (!idx || !inserted)
    return;
  if (t->nctxs == t->cap_ctxs) {
    size_t ncap = t->cap_ctxs ? t->cap_ctxs * 2 : 16;
    tl_ctx *nc = realloc(t->ctxs, ncap * sizeof *nc);
    if (!nc) {
      pair_map_remove(&t->ctx_index, file, (uint64_t)r->ctx);
      return;
    }
    t->ctxs = nc;
    t->cap_ctxs = ncap;
  }
  tl_ctx *c = &t->ctxs[t->nctxs++];
  memset(c, 0, sizeof *c);
  c->has_comm = r->has_comm;
  c->comm_id = r->comm_id;
  c->rank = r->rank;
  if (!js_to_i64(js_get(r->f, K_nranks), &c->nranks))
    c->nranks = -1;
  c->name = name_id(t, js_get(r->f, K_commName));
  *idx = t->nctxs;
}

const tl_ctx *tl_ctx_of(const timeline *t, size_t file, int64_t ctx) {
  if (ctx < 0)
    return NULL;
  const uint64_t *idx = pair_map_get(&t->ctx_index, file, (uint64_t)ctx);
  return idx ? &t->ctxs[*idx - 1] : NULL;
}

static tl_group *group_for(timeline *t, size_t file, int64_t ctx,
                           int64_t os_tid) {
  uint64_t a = ((uint64_t)file << 32) | (uint32_t)(ctx + 1);
  bool inserted;
  uint64_t *idx =
      pair_map_put(&t->group_index, a, (uint64_t)os_tid, 0, &inserted);
  if (!idx)
    return NULL;
  if (!inserted)
    return &t->groups[*idx - 1];
  if (t->ngroups == t->cap_groups) {
    size_t ncap = t->cap_groups ? t->cap_groups * 2 : 16;
    tl_group *ng = realloc(t->groups, ncap * sizeof *ng);
    if (!ng) {
      pair_map_remove(&t->group_index, a, (uint64_t)os_tid);
      return NULL;
    }
    t->groups = ng;
    t->cap_groups = ncap;
  }
  tl_group *g = &t->groups[t->ngroups++];
  lane_group_init(&g->lanes);
  g->file = file;
  g->ctx = ctx;
  g->os_tid = os_tid;
  *idx = t->ngroups;
  return g;
}

long tl_place(timeline *t, size_t file, int64_t ctx, int64_t os_tid,
              int64_t start, int64_t end, uint64_t user, lane_leave_fn on_leave,
              void *arg) {
  tl_group *g = group_for(t, file, ctx, os_tid);
  if (!g) {
    t->unplaced++;
    return -1;
  }
  if (end < start)
    end = start;
  bool created;
  int lane_no =
      lanes_place(&g->lanes, start, end, user, on_leave, arg, &created);
  if (lane_no < 0) {
    t->unplaced++;
    return -1;
  }
  lane *l = &g->lanes.lanes[lane_no];
  if (created) {
    if (t->ntracks == t->cap_tracks) {
      size_t ncap = t->cap_tracks ? t->cap_tracks * 2 : 64;
      tl_track *nt = realloc(t->tracks, ncap * sizeof *nt);
      if (!nt) {
        t->unplaced++; /* the lane keeps user 0: never used for output */
        return -1;
      }
      t->tracks = nt;
      t->cap_tracks = ncap;
    }
    tl_track *k = &t->tracks[t->ntracks++];
    k->file = file;
    k->ctx = ctx;
    k->os_tid = os_tid;
    k->lane = lane_no;
    k->local_id = ++t->next_local[file];
    k->events = 0;
    l->user = t->ntracks;
  }
  if (l->user == 0) {
    t->unplaced++;
    return -1;
  }
  long track = (long)l->user - 1;
  t->tracks[track].events++;
  return track;
}

void tl_close_all(timeline *t, lane_leave_fn on_leave, void *arg) {
  for (size_t i = 0; i < t->ngroups; i++)
    lanes_close_all(&t->groups[i].lanes, on_leave, arg);
}

void tl_track_name(const timeline *t, const tl_track *k, char *buf,
                   size_t cap) {
  char who[160] = "no communicator";
  const tl_ctx *c = tl_ctx_of(t, k->file, k->ctx);
  if (c) {
    char comm[96];
    if (c->name)
      snprintf(comm, sizeof comm, "%s", intern_str(&t->names, c->name));
    else if (c->has_comm)
      snprintf(comm, sizeof comm, "0x%" PRIx64, c->comm_id);
    else
      snprintf(comm, sizeof comm, "ctx %" PRId64, k->ctx);
    snprintf(who, sizeof who, "%s r%" PRId64, comm, c->rank);
  } else if (k->ctx >= 0) {
    snprintf(who, sizeof who, "ctx %" PRId64, k->ctx);
  }
  char thread[160];
  if (k->os_tid == TL_COMPLETION_TID) {
    snprintf(thread, sizeof thread, "completion (timing records)");
  } else if (tl_tid_is_gpu(k->os_tid)) {
    char gpu[64];
    tl_gpu_lane_name(k->os_tid, gpu, sizeof gpu);
    snprintf(thread, sizeof thread, "%s (GPU activity)", gpu);
  } else {
    const uint64_t *nm =
        pair_map_get(&t->thread_names, k->file, (uint64_t)k->os_tid);
    if (nm)
      snprintf(thread, sizeof thread, "%s (%" PRId64 ")",
               intern_str(&t->names, (uint32_t)*nm), k->os_tid);
    else
      snprintf(thread, sizeof thread, "tid %" PRId64, k->os_tid);
  }
  if (k->lane > 0)
    snprintf(buf, cap, "%s · %s · lane %d", who, thread, k->lane + 1);
  else
    snprintf(buf, cap, "%s · %s", who, thread);
}

/* Write the strings of `parts` one after another into buf (cap > 0), cut
 * at cap - 1 bytes and NUL-terminated: what snprintf(buf, cap, "%s%s...")
 * writes, without parsing a format for every event. */
static void join(char *buf, size_t cap, const char *const *parts, size_t n) {
  size_t used = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(parts[i]);
    if (len > cap - 1 - used)
      len = cap - 1 - used;
    memcpy(buf + used, parts[i], len);
    used += len;
  }
  buf[used] = '\0';
}

void tl_event_name(const rec *r, js_fields *scratch, bool end_suffix, char *buf,
                   size_t cap) {
  char func[64] = "";
  js_str_copy(js_get(r->f, K_func), func, sizeof func);
  const char *type = ev_type_short_name(r->et);
  const char *suffix = !end_suffix               ? ""
                       : r->end == END_RECLAIMED ? " (reclaimed)"
                       : r->end == END_INFLIGHT  ? " (in flight)"
                                                 : "";
  if (cap == 0)
    return;
  if (r->et == ET_PROXY_OP || r->et == ET_PROXY_STEP) {
    const js_value *d = js_get(r->f, K_details);
    bool is_send;
    if (d && d->type == JS_OBJECT &&
        js_fields_decode(scratch, d->ptr, d->ptr + d->len, r->line, false) &&
        js_to_bool(js_get(scratch, K_isSend), &is_send)) {
      const char *parts[] = {type, " ", is_send ? "send" : "recv", suffix};
      join(buf, cap, parts, 4);
      return;
    }
  }
  if (func[0] && r->et != ET_COLL && r->et != ET_P2P && r->et != ET_CE_COLL) {
    const char *parts[] = {type, " ", func, suffix};
    join(buf, cap, parts, 4);
  } else {
    const char *parts[] = {func[0] ? func : type, suffix};
    join(buf, cap, parts, 2);
  }
}
