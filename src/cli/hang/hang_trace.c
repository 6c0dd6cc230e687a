/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_trace.c — what the trace of a process without a snapshot
 * says about its ranks: the communicators it joined (ProfilerInit), per
 * function the last collective it enqueued (Coll events, written when NCCL
 * stops them, i.e. enqueued) and the last it finished (complete `timing`
 * records), its last training-step mark, its newest record and whether it
 * ended properly (processEnd). A trace whose process has a snapshot is
 * left after its first line: the snapshot is newer and says more. A
 * collective whose ProxyOps or KernelChs were reclaimed at finalize is not
 * counted as finished, although the plugin writes a timing record for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hang/hang.h"
#include "read/trace_record.h"
#include "util/pair_map.h"

static bool snapshot_of(const hang_db *db, const char *host, int64_t pid) {
  for (size_t i = 0; i < db->nsources; i++) {
    const hang_source *s = &db->sources[i];
    if (!s->is_trace && s->pid == pid && strcmp(s->hostname, host) == 0)
      return true;
  }
  return false;
}

/* A top-level `"key":true` (keys the scanner's table does not know). */
static bool has_true(const rec *r, const char *key) {
  js_iter it;
  js_value k, v;
  bool b = false;
  if (!js_object_begin(&it, r->line, r->line + r->len, r->line))
    return false;
  while (js_object_next(&it, &k, &v))
    if (js_str_eq(&k, key))
      return js_to_bool(&v, &b) && b;
  return false;
}

/* Event and timing records both carry commId, rank and func at the top
 * (trace_record.h decodes them for events only). */
static hang_progress *progress_of(hang_db *db, size_t si, const js_fields *f) {
  uint64_t comm;
  int64_t rank;
  char func[HANG_FUNC] = "";
  if (!js_to_hex_u64(js_get(f, K_commId), &comm) ||
      !js_to_i64(js_get(f, K_rank), &rank) || rank < 0 ||
      !js_str_copy(js_get(f, K_func), func, sizeof func) || !func[0])
    return NULL;
  hang_member *m = hang_db_member(db, si, comm, rank);
  return m ? hang_member_progress(m, func) : NULL;
}

static void on_lifecycle(hang_db *db, size_t si, const rec *r) {
  const js_fields *f = r->f;
  if (!js_str_eq(js_get(f, K_func), "ProfilerInit") || !r->has_comm ||
      r->rank < 0)
    return;
  hang_member *m = hang_db_member(db, si, r->comm_id, r->rank);
  if (!m)
    return;
  js_to_i64(js_get(f, K_nranks), &m->nranks);
  js_str_copy(js_get(f, K_commName), m->comm_name, sizeof m->comm_name);
}

static void on_coll(hang_db *db, size_t si, const rec *r, rec_scratch *sc) {
  const js_value *d = js_get(r->f, K_details);
  uint64_t seq;
  if (!d || d->type != JS_OBJECT ||
      !js_fields_decode(&sc->sub, d->ptr, d->ptr + d->len, r->line, false) ||
      !js_to_u64(js_get(&sc->sub, K_seqNumber), &seq))
    return;
  hang_progress *p = progress_of(db, si, r->f);
  if (!p)
    return;
  p->started++;
  if (!p->has_started_seq || seq > p->last_started)
    p->last_started = seq;
  p->has_started_seq = true;
}

static void on_timing(hang_db *db, size_t si, const rec *r) {
  uint64_t seq;
  if (ev_type_from_json(js_get(r->f, K_type)) != ET_COLL ||
      !js_to_u64(js_get(r->f, K_seqNumber), &seq) || has_true(r, "incomplete"))
    return;
  hang_progress *p = progress_of(db, si, r->f);
  if (!p)
    return;
  p->finished++;
  if (!p->has_finished_seq || seq > p->last_finished)
    p->last_finished = seq;
  p->has_finished_seq = true;
}

/* A ProxyOp or KernelCh reclaimed when its communicator was finalized:
 * its collective never completed (the process aborted or finalized while
 * it hung), whatever the timing record that follows says. */
static void on_reclaimed(const rec *r, pair_map *aborted) {
  if ((r->et != ET_PROXY_OP && r->et != ET_KERNEL_CH) ||
      r->end != END_RECLAIMED || r->parent != PAR_LOCAL ||
      !js_str_eq(js_get(r->f, K_reclaimReason), "finalize"))
    return;
  bool inserted;
  pair_map_put(aborted, r->parent_id, 0, 1, &inserted);
}

static void on_record(hang_db *db, size_t si, const rec *r, rec_scratch *sc,
                      pair_map *aborted) {
  hang_source *s = &db->sources[si];
  int64_t t = rec_write_time(r);
  if (t != INT64_MIN && t > s->last_ts_ns)
    s->last_ts_ns = t;
  s->records++;
  switch (r->rt) {
  case RT_EVENT:
    if (r->et == ET_LIFECYCLE)
      on_lifecycle(db, si, r);
    else if (r->et == ET_COLL)
      on_coll(db, si, r, sc);
    else
      on_reclaimed(r, aborted);
    break;
  case RT_TIMING: {
    uint64_t id;
    if (!js_to_hex_u64(js_get(r->f, K_eventId), &id) ||
        !pair_map_get(aborted, id, 0))
      on_timing(db, si, r);
    break;
  }
  case RT_MARK: {
    uint64_t step;
    if (js_to_u64(js_get(r->f, K_step), &step)) {
      s->last_step = step;
      s->has_step = true;
    }
    break;
  }
  case RT_PROCESS_END:
    s->has_end = true;
    break;
  default:
    break;
  }
}

/* Lines this reader need not decode, recognised by the fixed key order
 * the plugin writes (docs/trace-format.md): events other than Coll, except
 * ProxyOps and KernelChs that were reclaimed (they tell an aborted
 * collective). Most of a trace is ProxySteps and other children. A line in
 * any other order is decoded. */
static bool skippable(const char *line, size_t len) {
  static const char prefix[] =
      "{\"recordType\":\"event\",\"type\":\"ncclProfile";
  static const char reclaimed[] = "\"end\":\"reclaimed\"";
  size_t n = sizeof prefix - 1;
  if (len < n + 9 || memcmp(line, prefix, n) != 0)
    return false;
  const char *type = line + n;
  if (memcmp(type, "Coll\"", 5) == 0)
    return false;
  if (memcmp(type, "ProxyOp\"", 8) == 0 || memcmp(type, "KernelCh\"", 9) == 0)
    return !memmem(line, len, reclaimed, sizeof reclaimed - 1);
  return true;
}

/* The newest time among the last 64 KiB of lines (skipped lines carry the
 * latest times; the file is written roughly in time order). */
static int64_t tail_time(const char *path, rec_scratch *sc) {
  int64_t newest = INT64_MIN;
  FILE *f = fopen(path, "rb");
  if (!f)
    return newest;
  static char buf[65536 + 1];
  size_t got = 0;
  if (fseek(f, 0, SEEK_END) == 0) {
    long size = ftell(f);
    long from = size > 65536 ? size - 65536 : 0;
    if (size >= 0 && fseek(f, from, SEEK_SET) == 0)
      got = fread(buf, 1, 65536, f);
    buf[got] = '\0';
    char *p = from > 0 ? strchr(buf, '\n') : buf; /* a partial first line */
    while (p && *p) {
      if (*p == '\n')
        p++;
      char *nl = strchr(p, '\n');
      if (!nl)
        break;
      rec r;
      if (rec_decode(&r, sc, p, (size_t)(nl - p))) {
        int64_t t = rec_write_time(&r);
        if (t > newest)
          newest = t;
      }
      p = nl;
    }
  }
  fclose(f);
  return newest;
}

bool hang_read_trace(hang_db *db, const char *path) {
  tr_file f;
  int err = tr_open(&f, path, 1 << 20);
  if (err) {
    fprintf(stderr, "cclscope hang: cannot open '%s': %s\n", path,
            tr_strerror(err));
    return false;
  }
  rec_scratch *sc = malloc(sizeof *sc);
  if (!sc) {
    tr_close(&f);
    fprintf(stderr, "cclscope hang: out of memory\n");
    return false;
  }
  rec_scratch_init(sc);
  rec r;
  size_t si = SIZE_MAX;
  bool ok = true, skipped = false;
  pair_map aborted; /* Coll ids whose children were reclaimed at finalize */
  pair_map_init(&aborted);
  int got;
  while ((got = tr_next(&f)) == 1) {
    /* (a compressed file is decoded whole: tail_time reads the file's
     * last bytes, which are not text there) */
    if (si != SIZE_MAX && !f.codec && skippable(f.line, f.line_len)) {
      db->sources[si].records++;
      skipped = true;
      continue;
    }
    if (!rec_decode(&r, sc, f.line, f.line_len) || r.rt == RT_PAD)
      continue;
    if (si == SIZE_MAX) {
      if (r.rt != RT_PROCESS)
        break; /* not a cclscope trace: nothing to learn */
      char host[HANG_NAME] = "";
      int64_t pid = -1;
      js_str_copy(js_get(r.f, K_hostname), host, sizeof host);
      js_to_i64(js_get(r.f, K_pid), &pid);
      if (snapshot_of(db, host, pid))
        break;
      hang_source *s = hang_db_add_source(db, path);
      if (!s) {
        ok = false;
        break;
      }
      s->is_trace = true;
      memcpy(s->hostname, host, sizeof host);
      s->pid = pid;
      si = db->nsources - 1;
      db->traces++;
    }
    on_record(db, si, &r, sc, &aborted);
  }
  if (got < 0) {
    fprintf(stderr, "cclscope hang: cannot read '%s': %s\n", path,
            tr_strerror(f.error));
    ok = false;
  }
  if (!ok && got >= 0)
    fprintf(stderr, "cclscope hang: out of memory\n");
  if (ok && skipped) {
    int64_t t = tail_time(path, sc);
    if (t > db->sources[si].last_ts_ns)
      db->sources[si].last_ts_ns = t;
  }
  pair_map_free(&aborted);
  free(sc);
  tr_close(&f);
  return ok;
}
