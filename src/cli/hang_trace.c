/*
 * src/cli/hang_trace.c — what the trace of a process without a snapshot
 * says about its ranks: the communicators it joined (ProfilerInit), per
 * function the last collective it enqueued (Coll events, written when NCCL
 * stops them, i.e. enqueued) and the last it finished (complete `timing`
 * records), its last training-step mark, its newest record and whether it
 * ended properly (processEnd). A trace whose process has a snapshot is
 * left after its first line: the snapshot is newer and says more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hang.h"
#include "record.h"

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
 * (record.h decodes them for events only). */
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
  if (!js_str_eq(js_get(r->f, K_type), "ncclProfileColl") ||
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

static void on_record(hang_db *db, size_t si, const rec *r, rec_scratch *sc) {
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
    break;
  case RT_TIMING:
    on_timing(db, si, r);
    break;
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

bool hang_read_trace(hang_db *db, const char *path) {
  tr_file f;
  int err = tr_open(&f, path, 1 << 20);
  if (err) {
    fprintf(stderr, "cclscope hang: cannot open '%s': %s\n", path,
            strerror(err));
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
  bool ok = true;
  int got;
  while ((got = tr_next(&f)) == 1) {
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
    on_record(db, si, &r, sc);
  }
  if (got < 0) {
    fprintf(stderr, "cclscope hang: cannot read '%s': %s\n", path,
            strerror(f.error));
    ok = false;
  }
  if (!ok && got >= 0)
    fprintf(stderr, "cclscope hang: out of memory\n");
  free(sc);
  tr_close(&f);
  return ok;
}
