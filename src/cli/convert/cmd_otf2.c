/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/cmd_otf2.c — `cclscope otf2 DIR -o ARCHIVE`: an OTF2 archive
 * (Score-P's trace format, read by Vampir) written with libotf2.
 *
 * Model (docs/cli.md "otf2"): system tree machine -> host nodes; one
 * location group (process) per trace file; one location (CPU thread) per
 * track of timeline.h (communicator rank x thread x lane, so that enter and
 * leave nest on every location); one region per event kind; every event is
 * an enter at its start and a leave at its stop (or endTs), with attributes
 * (eventId, comm, seqNumber, bytes, peer, channel, rank); communicators are
 * a COMM_LOCATIONS group of rank locations and a COMM_GROUP + Comm per
 * NCCL communicator. Every collective (Coll, CeColl) is also one
 * MpiCollectiveBegin/End pair (collective operation, communicator, root,
 * bytes sent and received: what Vampir's communication views read), inside
 * the enter/leave of its `timing` record where it has one, else of the
 * event itself; a first pass over the input finds which have one (and
 * their roots, which timing records do not repeat). Clock: 1 ns ticks
 * since the Unix epoch.
 * Events arrive in start order (ordered_reader ORD_START); leaves are
 * written when the lane moves past them, so each location is in time
 * order as OTF2 requires. Definitions are written at the end.
 *
 * Without libotf2 at build time the command exists and says so.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_options.h"

#ifndef CCLSCOPE_HAVE_OTF2

int cmd_otf2(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      help_print("otf2", stdout);
      return EXIT_OK;
    }
  }
  fprintf(stderr, "cclscope otf2: built without OTF2 support (install "
                  "libopen-trace-format2-dev and rebuild)\n");
  return EXIT_FINDINGS;
}

#else

#include <otf2/otf2.h>

#include "convert/timeline.h"
#include "nccl_names.h"
#include "read/ordered_reader.h"

/* Attribute ids (fixed). */
enum {
  ATTR_EVENT_ID,
  ATTR_COMM,
  ATTR_SEQ,
  ATTR_BYTES,
  ATTR_PEER,
  ATTR_CHANNEL,
  ATTR_RANK,
  ATTR_COUNT
};

typedef struct {
  uint32_t name; /* string id */
  OTF2_RegionRole role;
} region_def;

/* A communicator: its ranks' locations, by rank. */
typedef struct {
  uint64_t comm_id;
  uint32_t name; /* string id */
  int64_t nranks;
  int64_t *rank_location; /* [nranks], -1 unknown */
} comm_def;

/* A collective whose MpiCollectiveEnd is written with its leave. */
typedef struct {
  OTF2_CollectiveOp op;
  OTF2_CommRef comm;
  uint32_t root; /* rank in the communicator, OTF2_UNDEFINED_UINT32 */
  uint64_t sent, received;
} coll_pending;

/* What the first pass learns about a collective, by (file, event id). */
#define COLL_HAS_TIMING 1u /* value bit 0; root + 1 in the bits above */

typedef struct {
  OTF2_Archive *archive;
  timeline tl;
  intern_tab strings; /* string ref = id - 1 */
  intern_tab region_names;
  region_def *regions;
  size_t nregions, cap_regions;
  comm_def *comms;
  size_t ncomms, cap_comms;
  pair_map comm_index;      /* comm_id -> index + 1 */
  OTF2_EvtWriter **writers; /* per track */
  size_t cap_writers;
  OTF2_AttributeList *attrs;
  uint64_t min_ts, max_ts;
  uint64_t events, enters, leaves;
  /* collectives */
  pair_map coll_facts;   /* (file, event id) -> COLL_HAS_TIMING | root+1 */
  coll_pending *pending; /* slots, referenced from lane frames */
  uint32_t *free_slots;  /* stack of unused slot indexes */
  size_t npending, cap_pending, nfree;
  uint64_t *track_colls; /* collective records per track (2 events each) */
  size_t cap_track_colls;
  uint64_t collectives;
  bool failed;
} otf2_out;

static uint32_t str_ref(otf2_out *o, const char *s) {
  return intern_id(&o->strings, s, strlen(s)) - 1;
}

static void note_time(otf2_out *o, int64_t t) {
  uint64_t u = t < 0 ? 0 : (uint64_t)t;
  if (o->events == 0 || u < o->min_ts)
    o->min_ts = u;
  if (u > o->max_ts)
    o->max_ts = u;
}

static OTF2_EvtWriter *writer_for(otf2_out *o, long track) {
  if ((size_t)track >= o->cap_writers) {
    size_t ncap = o->cap_writers ? o->cap_writers * 2 : 64;
    while (ncap <= (size_t)track)
      ncap *= 2;
    OTF2_EvtWriter **nw = realloc(o->writers, ncap * sizeof *nw);
    if (!nw)
      return NULL;
    memset(nw + o->cap_writers, 0, (ncap - o->cap_writers) * sizeof *nw);
    o->writers = nw;
    o->cap_writers = ncap;
  }
  if (!o->writers[track])
    o->writers[track] =
        OTF2_Archive_GetEvtWriter(o->archive, (OTF2_LocationRef)track);
  return o->writers[track];
}

static OTF2_RegionRole role_of(ev_type t, const char *func) {
  if (t == ET_P2P || t == ET_P2P_API)
    return OTF2_REGION_ROLE_POINT2POINT;
  if (t != ET_COLL && t != ET_COLL_API && t != ET_CE_COLL)
    return OTF2_REGION_ROLE_FUNCTION;
  if (strcmp(func, "Broadcast") == 0)
    return OTF2_REGION_ROLE_COLL_ONE2ALL;
  if (strcmp(func, "Reduce") == 0)
    return OTF2_REGION_ROLE_COLL_ALL2ONE;
  return OTF2_REGION_ROLE_COLL_ALL2ALL;
}

static uint32_t region_for(otf2_out *o, const char *name, OTF2_RegionRole r) {
  uint32_t id = intern_id(&o->region_names, name, strlen(name));
  if (id == 0)
    return 0;
  if (id > o->nregions) {
    if (o->nregions == o->cap_regions) {
      size_t ncap = o->cap_regions ? o->cap_regions * 2 : 32;
      region_def *nr = realloc(o->regions, ncap * sizeof *nr);
      if (!nr)
        return 0;
      o->regions = nr;
      o->cap_regions = ncap;
    }
    o->regions[o->nregions].name = str_ref(o, name);
    o->regions[o->nregions].role = r;
    o->nregions++;
  }
  return id - 1;
}

static comm_def *comm_for(otf2_out *o, uint64_t comm_id, const tl_ctx *c) {
  bool inserted;
  uint64_t *idx = pair_map_put(&o->comm_index, comm_id, 0, 0, &inserted);
  if (!idx)
    return NULL;
  if (inserted) {
    if (o->ncomms == o->cap_comms) {
      size_t ncap = o->cap_comms ? o->cap_comms * 2 : 8;
      comm_def *nc = realloc(o->comms, ncap * sizeof *nc);
      if (!nc) {
        pair_map_remove(&o->comm_index, comm_id, 0);
        return NULL;
      }
      o->comms = nc;
      o->cap_comms = ncap;
    }
    comm_def *d = &o->comms[o->ncomms++];
    memset(d, 0, sizeof *d);
    d->comm_id = comm_id;
    d->nranks = c && c->nranks > 0 ? c->nranks : 0;
    char name[128];
    if (c && c->name)
      snprintf(name, sizeof name, "%s (0x%" PRIx64 ")",
               intern_str(&o->tl.names, c->name), comm_id);
    else
      snprintf(name, sizeof name, "comm 0x%" PRIx64, comm_id);
    d->name = str_ref(o, name);
    if (d->nranks > 0) {
      d->rank_location = malloc((size_t)d->nranks * sizeof(int64_t));
      if (!d->rank_location)
        d->nranks = 0;
      for (int64_t i = 0; i < d->nranks; i++)
        d->rank_location[i] = -1;
    }
    *idx = o->ncomms;
  }
  return &o->comms[*idx - 1];
}

/* ---- collective records ---- */

/* NCCL's function -> OTF2's collective operation; false for a function
 * that is not a collective (or unknown): then no collective record. */
static bool coll_op_of(const char *func, OTF2_CollectiveOp *op) {
  static const struct {
    const char *func;
    OTF2_CollectiveOp op;
  } ops[] = {{"AllReduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
             {"Broadcast", OTF2_COLLECTIVE_OP_BCAST},
             {"Reduce", OTF2_COLLECTIVE_OP_REDUCE},
             {"AllGather", OTF2_COLLECTIVE_OP_ALLGATHER},
             {"AllGatherV", OTF2_COLLECTIVE_OP_ALLGATHERV},
             {"ReduceScatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
             {"AlltoAll", OTF2_COLLECTIVE_OP_ALLTOALL},
             {"Gather", OTF2_COLLECTIVE_OP_GATHER},
             {"Scatter", OTF2_COLLECTIVE_OP_SCATTER}};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strcmp(func, ops[i].func) == 0) {
      *op = ops[i].op;
      return true;
    }
  return false;
}

/* Bytes this rank sends and receives (its send and receive buffers as
 * NCCL's API defines them; `part` = count x datatype size, one rank's
 * part where NCCL's count is one: docs/cli.md "otf2"). */
static void coll_sizes(coll_pending *p, uint64_t part, int64_t nranks,
                       bool is_root) {
  uint64_t all = part * (uint64_t)(nranks > 0 ? nranks : 1);
  switch (p->op) {
  case OTF2_COLLECTIVE_OP_BCAST:
    p->sent = is_root ? part : 0;
    p->received = is_root ? 0 : part;
    break;
  case OTF2_COLLECTIVE_OP_REDUCE:
    p->sent = part;
    p->received = is_root ? part : 0;
    break;
  case OTF2_COLLECTIVE_OP_ALLGATHER:
  case OTF2_COLLECTIVE_OP_ALLGATHERV:
    p->sent = part;
    p->received = all;
    break;
  case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
    p->sent = all;
    p->received = part;
    break;
  case OTF2_COLLECTIVE_OP_ALLTOALL:
    p->sent = p->received = all;
    break;
  case OTF2_COLLECTIVE_OP_GATHER:
    p->sent = part;
    p->received = is_root ? all : 0;
    break;
  case OTF2_COLLECTIVE_OP_SCATTER:
    p->sent = is_root ? all : 0;
    p->received = part;
    break;
  default: /* AllReduce */
    p->sent = p->received = part;
    break;
  }
}

/* What one collective needs, from its event or its timing record. */
typedef struct {
  char func[64];
  uint64_t comm_id;
  bool has_comm;
  int64_t rank, nranks, root; /* -1 unknown */
  uint64_t count;
  char datatype[32];
} coll_facts;

/* A pending slot for `f` (its index + 1, for the lane frame's upper
 * bits), or 0 when it is no collective OTF2 knows or out of memory. */
static uint64_t coll_open(otf2_out *o, const coll_facts *f, size_t file,
                          int64_t ctx) {
  coll_pending p = {.root = OTF2_UNDEFINED_UINT32};
  if (!f->has_comm || !coll_op_of(f->func, &p.op))
    return 0;
  const tl_ctx *c = tl_ctx_of(&o->tl, file, ctx);
  comm_def *comm = comm_for(o, f->comm_id, c);
  if (!comm)
    return 0;
  p.comm = (OTF2_CommRef)(comm - o->comms);
  bool rooted =
      p.op == OTF2_COLLECTIVE_OP_BCAST || p.op == OTF2_COLLECTIVE_OP_REDUCE ||
      p.op == OTF2_COLLECTIVE_OP_GATHER || p.op == OTF2_COLLECTIVE_OP_SCATTER;
  if (rooted && f->root >= 0 && f->root <= INT32_MAX)
    p.root = (uint32_t)f->root;
  int64_t nranks = f->nranks > 0 ? f->nranks : comm->nranks;
  coll_sizes(&p, f->count * nccl_datatype_size(f->datatype), nranks,
             rooted && f->root >= 0 && f->root == f->rank);
  uint32_t slot;
  if (o->nfree > 0) {
    slot = o->free_slots[--o->nfree];
  } else {
    if (o->npending == o->cap_pending) {
      size_t ncap = o->cap_pending ? o->cap_pending * 2 : 64;
      coll_pending *np = realloc(o->pending, ncap * sizeof *np);
      uint32_t *nf = np ? realloc(o->free_slots, ncap * sizeof *nf) : NULL;
      if (np)
        o->pending = np;
      if (!nf)
        return 0;
      o->free_slots = nf;
      o->cap_pending = ncap;
    }
    slot = (uint32_t)o->npending++;
  }
  o->pending[slot] = p;
  return (uint64_t)slot + 1;
}

/* The rank's location in its communicator: where its first collective
 * record is. */
static void coll_note_location(otf2_out *o, uint64_t slot, int64_t rank,
                               long track) {
  comm_def *comm = &o->comms[o->pending[slot - 1].comm];
  if (rank >= 0 && rank < comm->nranks && comm->rank_location[rank] < 0)
    comm->rank_location[rank] = track;
}

static void coll_begin(otf2_out *o, long track, int64_t start) {
  if ((size_t)track >= o->cap_track_colls) {
    size_t ncap = o->cap_track_colls ? o->cap_track_colls * 2 : 64;
    while (ncap <= (size_t)track)
      ncap *= 2;
    uint64_t *n = realloc(o->track_colls, ncap * sizeof *n);
    if (!n) {
      o->failed = true;
      return;
    }
    memset(n + o->cap_track_colls, 0, (ncap - o->cap_track_colls) * sizeof *n);
    o->track_colls = n;
    o->cap_track_colls = ncap;
  }
  OTF2_EvtWriter *w = writer_for(o, track);
  if (!w || OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, (OTF2_TimeStamp)start) !=
                OTF2_SUCCESS)
    o->failed = true;
  o->track_colls[track]++;
  o->collectives++;
}

/* Before the leave of a frame that carries a collective. */
static void coll_end(otf2_out *o, OTF2_EvtWriter *w, uint64_t slot,
                     int64_t end) {
  const coll_pending *p = &o->pending[slot - 1];
  if (OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, (OTF2_TimeStamp)end, p->op,
                                      p->comm, p->root, p->sent,
                                      p->received) != OTF2_SUCCESS)
    o->failed = true;
  o->free_slots[o->nfree++] = (uint32_t)(slot - 1);
}

/* The first pass: which collectives have a timing record, and their roots
 * (a timing record does not repeat the root). */
static bool learn_collectives(otf2_out *o, const tr_inputs *in, size_t memory,
                              rec_scratch *sc) {
  ord_reader rd;
  if (!ord_open(&rd, in, ORD_LOCKSTEP, memory, NULL))
    return false;
  ord_where where;
  const rec *r;
  bool ok = true;
  while (ok && (r = ord_next(&rd, &where)) != NULL) {
    uint64_t id, bits = 0;
    if (r->rt == RT_EVENT && (r->et == ET_COLL || r->et == ET_CE_COLL) &&
        r->has_id) {
      const js_value *d = js_get(r->f, K_details);
      int64_t root;
      if (!d || d->type != JS_OBJECT ||
          !js_fields_decode(&sc->sub, d->ptr, d->ptr + d->len, r->line,
                            false) ||
          !js_to_i64(js_get(&sc->sub, K_root), &root) || root < 0)
        continue;
      id = r->id;
      bits = (uint64_t)(root + 1) << 1;
    } else if (r->rt == RT_TIMING) {
      ev_type t = ev_type_from_json(js_get(r->f, K_type));
      if ((t != ET_COLL && t != ET_CE_COLL) ||
          !js_to_hex_u64(js_get(r->f, K_eventId), &id))
        continue;
      bits = COLL_HAS_TIMING;
    } else {
      continue;
    }
    uint64_t *v = pair_map_put(&o->coll_facts, where.file, id, 0, NULL);
    if (v)
      *v |= bits;
    else
      ok = false;
  }
  ok = ok && !rd.failed;
  ord_close(&rd);
  return ok;
}

static uint64_t coll_fact(const otf2_out *o, size_t file, uint64_t id) {
  const uint64_t *v = pair_map_get(&o->coll_facts, file, id);
  return v ? *v : 0;
}

/* A lane frame's user value: the region, and in the upper 32 bits the
 * pending collective's slot + 1 (0: none). */
static uint64_t frame_user(uint32_t region, uint64_t coll_slot) {
  return (uint64_t)region | coll_slot << 32;
}

static void on_leave(void *arg, lane *l, const lane_frame *f) {
  otf2_out *o = arg;
  OTF2_EvtWriter *w = writer_for(o, (long)l->user - 1);
  if (!w || l->user == 0) {
    o->failed = true;
    return;
  }
  uint64_t slot = f->user >> 32;
  if (slot)
    coll_end(o, w, slot, f->end);
  if (OTF2_EvtWriter_Leave(w, NULL, (OTF2_TimeStamp)f->end,
                           (OTF2_RegionRef)(uint32_t)f->user) != OTF2_SUCCESS)
    o->failed = true;
  o->leaves++;
}

static void enter(otf2_out *o, long track, int64_t start, uint32_t region) {
  OTF2_EvtWriter *w = writer_for(o, track);
  if (!w || OTF2_EvtWriter_Enter(w, o->attrs, (OTF2_TimeStamp)start,
                                 (OTF2_RegionRef)region) != OTF2_SUCCESS)
    o->failed = true;
  OTF2_AttributeList_RemoveAllAttributes(o->attrs);
  o->enters++;
}

static void event_attrs(otf2_out *o, const rec *r, rec_scratch *sc,
                        comm_def *comm) {
  if (r->has_id)
    OTF2_AttributeList_AddUint64(o->attrs, ATTR_EVENT_ID, r->id);
  if (comm)
    OTF2_AttributeList_AddCommRef(o->attrs, ATTR_COMM,
                                  (OTF2_CommRef)(comm - o->comms));
  if (r->rank >= 0)
    OTF2_AttributeList_AddInt64(o->attrs, ATTR_RANK, r->rank);
  const js_value *d = js_get(r->f, K_details);
  if (!d || d->type != JS_OBJECT ||
      !js_fields_decode(&sc->sub, d->ptr, d->ptr + d->len, r->line, false))
    return;
  uint64_t u;
  int64_t i;
  if (js_to_u64(js_get(&sc->sub, K_seqNumber), &u))
    OTF2_AttributeList_AddUint64(o->attrs, ATTR_SEQ, u);
  if (js_to_i64(js_get(&sc->sub, K_peer), &i))
    OTF2_AttributeList_AddInt64(o->attrs, ATTR_PEER, i);
  if (js_to_i64(js_get(&sc->sub, K_channelId), &i))
    OTF2_AttributeList_AddInt64(o->attrs, ATTR_CHANNEL, i);
  if (js_to_u64(js_get(&sc->sub, K_count), &u))
    OTF2_AttributeList_AddUint64(o->attrs, ATTR_BYTES, u);
}

static void on_event(otf2_out *o, const rec *r, rec_scratch *sc, size_t file) {
  if (!r->start.present)
    return;
  int64_t start = r->start.ts;
  int64_t end = rec_end_time(r);
  if (end == INT64_MIN || end < start)
    end = start;
  char func[64] = "";
  js_str_copy(js_get(r->f, K_func), func, sizeof func);
  char name[128];
  tl_event_name(r, &sc->sub, false, name, sizeof name);
  uint32_t region = region_for(o, name, role_of(r->et, func));
  int64_t ctx = r->has_ctx ? r->ctx : -1;
  const tl_ctx *c = tl_ctx_of(&o->tl, file, ctx);
  /* A collective without a timing record: its record spans the event. */
  uint64_t coll = 0;
  coll_facts facts = {.rank = c ? c->rank : -1, .root = -1};
  if ((r->et == ET_COLL || r->et == ET_CE_COLL) && r->has_id &&
      !(coll_fact(o, file, r->id) & COLL_HAS_TIMING)) {
    snprintf(facts.func, sizeof facts.func, "%s", func);
    facts.has_comm = r->has_comm;
    facts.comm_id = r->comm_id;
    facts.nranks = c ? c->nranks : -1;
    const js_value *d = js_get(r->f, K_details);
    if (d && d->type == JS_OBJECT &&
        js_fields_decode(&sc->sub, d->ptr, d->ptr + d->len, r->line, false)) {
      js_to_i64(js_get(&sc->sub, K_root), &facts.root);
      js_to_u64(js_get(&sc->sub, K_count), &facts.count);
      js_str_copy(js_get(&sc->sub, K_datatype), facts.datatype,
                  sizeof facts.datatype);
    }
    coll = coll_open(o, &facts, file, ctx);
  }
  long track = tl_place(&o->tl, file, ctx, r->start.tid, start, end,
                        frame_user(region, coll), on_leave, o);
  if (track < 0) {
    if (coll)
      o->free_slots[o->nfree++] = (uint32_t)(coll - 1);
    return;
  }
  comm_def *comm = r->has_comm ? comm_for(o, r->comm_id, c) : NULL;
  event_attrs(o, r, sc, comm);
  note_time(o, start);
  note_time(o, end);
  o->events++;
  enter(o, track, start, region);
  if (coll) {
    coll_note_location(o, coll, facts.rank, track);
    coll_begin(o, track, start);
  }
}

static void on_timing(otf2_out *o, const rec *r, rec_scratch *sc, size_t file) {
  int64_t ctx = -1;
  rec_timing times;
  rec_timing_decode(r, &sc->sub, &times);
  int64_t start = times.start, stop = times.stop;
  if (start == INT64_MIN || stop == INT64_MIN)
    return;
  if (stop < start)
    stop = start;
  js_to_i64(js_get(r->f, K_ctx), &ctx);
  char func[64] = "?", source[16] = "?", name[96];
  js_str_copy(js_get(r->f, K_func), func, sizeof func);
  js_str_copy(js_get(r->f, K_source), source, sizeof source);
  snprintf(name, sizeof name, "%s (%s)", func, source);
  uint32_t region = region_for(o, name, role_of(ET_COLL, func));
  /* A collective's record spans its timing record (when it really ran). */
  uint64_t coll = 0, id;
  coll_facts facts = {.rank = -1, .nranks = -1, .root = -1};
  ev_type t = ev_type_from_json(js_get(r->f, K_type));
  if ((t == ET_COLL || t == ET_CE_COLL) &&
      js_to_hex_u64(js_get(r->f, K_eventId), &id)) {
    snprintf(facts.func, sizeof facts.func, "%s", func);
    facts.has_comm = js_to_hex_u64(js_get(r->f, K_commId), &facts.comm_id);
    js_to_i64(js_get(r->f, K_rank), &facts.rank);
    js_to_i64(js_get(r->f, K_nranks), &facts.nranks);
    js_to_u64(js_get(r->f, K_count), &facts.count);
    js_str_copy(js_get(r->f, K_datatype), facts.datatype,
                sizeof facts.datatype);
    facts.root = (int64_t)(coll_fact(o, file, id) >> 1) - 1;
    coll = coll_open(o, &facts, file, ctx);
  }
  long track = tl_place(&o->tl, file, ctx, TL_COMPLETION_TID, start, stop,
                        frame_user(region, coll), on_leave, o);
  if (track < 0) {
    if (coll)
      o->free_slots[o->nfree++] = (uint32_t)(coll - 1);
    return;
  }
  uint64_t u;
  if (js_to_u64(js_get(r->f, K_seqNumber), &u))
    OTF2_AttributeList_AddUint64(o->attrs, ATTR_SEQ, u);
  if (js_to_u64(js_get(r->f, K_bytes), &u))
    OTF2_AttributeList_AddUint64(o->attrs, ATTR_BYTES, u);
  note_time(o, start);
  note_time(o, stop);
  o->events++;
  enter(o, track, start, region);
  if (coll) {
    coll_note_location(o, coll, facts.rank, track);
    coll_begin(o, track, start);
  }
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type,
                                OTF2_LocationRef loc, void *caller,
                                bool final) {
  (void)user;
  (void)type;
  (void)loc;
  (void)caller;
  (void) final;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type,
                                 OTF2_LocationRef loc) {
  (void)user;
  (void)type;
  (void)loc;
  return 0;
}

static void write_definitions(otf2_out *o, const ord_reader *rd) {
  OTF2_GlobalDefWriter *gd = OTF2_Archive_GetGlobalDefWriter(o->archive);
  if (!gd) {
    o->failed = true;
    return;
  }
  uint64_t length = o->max_ts > o->min_ts ? o->max_ts - o->min_ts : 0;
  /* Strings first are not required: definitions may be in any order, but
   * every referenced string must be written; collect them all, then
   * write. */
  uint32_t s_machine = str_ref(o, "cclscope trace");
  uint32_t s_machine_class = str_ref(o, "machine");
  uint32_t s_node_class = str_ref(o, "node");
  /* system tree: 0 = machine, then one node per distinct host */
  intern_tab hosts;
  intern_init(&hosts);
  uint32_t *file_node = calloc(rd->n ? rd->n : 1, sizeof *file_node);
  uint32_t *file_name = calloc(rd->n ? rd->n : 1, sizeof *file_name);
  for (size_t i = 0; file_node && file_name && i < rd->n; i++) {
    const ord_identity *id = &rd->files[i].id;
    const char *host = id->host[0] ? id->host : "unknown host";
    file_node[i] = intern_id(&hosts, host, strlen(host));
    char name[256];
    snprintf(name, sizeof name, "%s pid %" PRId64, host, id->pid);
    file_name[i] = str_ref(o, name);
  }
  uint32_t *host_name = calloc(hosts.n + 1, sizeof *host_name);
  for (size_t h = 0; host_name && h < hosts.n; h++)
    host_name[h] = str_ref(o, hosts.strs[h]);
  uint32_t *loc_name = calloc(o->tl.ntracks + 1, sizeof *loc_name);
  for (size_t k = 0; loc_name && k < o->tl.ntracks; k++) {
    char name[512];
    tl_track_name(&o->tl, &o->tl.tracks[k], name, sizeof name);
    loc_name[k] = str_ref(o, name);
  }
  static const char *const attr_names[ATTR_COUNT] = {
      "eventId", "comm", "seqNumber", "count", "peer", "channel", "rank"};
  static const char *const attr_desc[ATTR_COUNT] = {
      "cclscope event id in its trace file",
      "NCCL communicator",
      "NCCL seqNumber (same on every rank for one collective)",
      "element count (timing records: bytes)",
      "peer rank",
      "channel",
      "rank"};
  static const OTF2_Type attr_types[ATTR_COUNT] = {
      OTF2_TYPE_UINT64, OTF2_TYPE_COMM,  OTF2_TYPE_UINT64, OTF2_TYPE_UINT64,
      OTF2_TYPE_INT64,  OTF2_TYPE_INT64, OTF2_TYPE_INT64};
  uint32_t attr_name_ref[ATTR_COUNT], attr_desc_ref[ATTR_COUNT];
  for (int a = 0; a < ATTR_COUNT; a++) {
    attr_name_ref[a] = str_ref(o, attr_names[a]);
    attr_desc_ref[a] = str_ref(o, attr_desc[a]);
  }
  uint32_t s_empty = str_ref(o, "");
  uint32_t s_comm_locations = str_ref(o, "NCCL ranks");
  if (!file_node || !file_name || !host_name || !loc_name) {
    o->failed = true;
    goto out;
  }
  /* every string is known now */
  OTF2_GlobalDefWriter_WriteClockProperties(gd, 1000000000, o->min_ts, length,
                                            o->min_ts);
  for (size_t i = 0; i < o->strings.n; i++)
    OTF2_GlobalDefWriter_WriteString(gd, (OTF2_StringRef)i, o->strings.strs[i]);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, 0, s_machine, s_machine_class,
                                           OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (size_t h = 0; h < hosts.n; h++)
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, (OTF2_SystemTreeNodeRef)h + 1,
                                             host_name[h], s_node_class, 0);
  for (size_t i = 0; i < rd->n; i++)
    OTF2_GlobalDefWriter_WriteLocationGroup(
        gd, (OTF2_LocationGroupRef)i, file_name[i],
        OTF2_LOCATION_GROUP_TYPE_PROCESS, file_node[i],
        OTF2_UNDEFINED_LOCATION_GROUP);
  for (size_t k = 0; k < o->tl.ntracks; k++)
    OTF2_GlobalDefWriter_WriteLocation(
        gd, (OTF2_LocationRef)k, loc_name[k], OTF2_LOCATION_TYPE_CPU_THREAD,
        2 * o->tl.tracks[k].events +
            2 * (k < o->cap_track_colls ? o->track_colls[k] : 0),
        (OTF2_LocationGroupRef)o->tl.tracks[k].file);
  for (size_t r = 0; r < o->nregions; r++)
    OTF2_GlobalDefWriter_WriteRegion(gd, (OTF2_RegionRef)r, o->regions[r].name,
                                     o->regions[r].name, s_empty,
                                     o->regions[r].role, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, s_empty, 0, 0);
  for (int a = 0; a < ATTR_COUNT; a++)
    OTF2_GlobalDefWriter_WriteAttribute(gd, (OTF2_AttributeRef)a,
                                        attr_name_ref[a], attr_desc_ref[a],
                                        attr_types[a]);
  /* communicators: group 0 lists every rank location once */
  uint64_t *members = malloc((o->tl.ntracks + 1) * sizeof *members);
  int64_t *member_of_track = malloc((o->tl.ntracks + 1) * sizeof(int64_t));
  if (!members || !member_of_track) {
    free(members);
    free(member_of_track);
    o->failed = true;
    goto out;
  }
  uint32_t nmembers = 0;
  for (size_t k = 0; k < o->tl.ntracks; k++)
    member_of_track[k] = -1;
  for (size_t c = 0; c < o->ncomms; c++)
    for (int64_t r = 0; r < o->comms[c].nranks; r++) {
      int64_t t = o->comms[c].rank_location[r];
      if (t >= 0 && member_of_track[t] < 0) {
        member_of_track[t] = nmembers;
        members[nmembers++] = (uint64_t)t;
      }
    }
  OTF2_GlobalDefWriter_WriteGroup(
      gd, 0, s_comm_locations, OTF2_GROUP_TYPE_COMM_LOCATIONS,
      OTF2_PARADIGM_USER, OTF2_GROUP_FLAG_NONE, nmembers, members);
  for (size_t c = 0; c < o->ncomms; c++) {
    comm_def *d = &o->comms[c];
    uint32_t n = 0;
    for (int64_t r = 0; r < d->nranks; r++)
      if (d->rank_location[r] >= 0)
        members[n++] = (uint64_t)member_of_track[d->rank_location[r]];
    OTF2_GlobalDefWriter_WriteGroup(
        gd, (OTF2_GroupRef)c + 1, d->name, OTF2_GROUP_TYPE_COMM_GROUP,
        OTF2_PARADIGM_USER, OTF2_GROUP_FLAG_NONE, n, members);
    OTF2_GlobalDefWriter_WriteComm(gd, (OTF2_CommRef)c, d->name,
                                   (OTF2_GroupRef)c + 1, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
  }
  free(members);
  free(member_of_track);
out:
  intern_free(&hosts);
  free(file_node);
  free(file_name);
  free(host_name);
  free(loc_name);
}

static bool finish_archive(otf2_out *o, const ord_reader *rd) {
  tl_close_all(&o->tl, on_leave, o);
  for (size_t k = 0; k < o->cap_writers; k++)
    if (o->writers[k])
      OTF2_Archive_CloseEvtWriter(o->archive, o->writers[k]);
  OTF2_Archive_CloseEvtFiles(o->archive);
  /* every location needs a (possibly empty) local definition file */
  OTF2_Archive_OpenDefFiles(o->archive);
  for (size_t k = 0; k < o->tl.ntracks; k++) {
    OTF2_DefWriter *dw =
        OTF2_Archive_GetDefWriter(o->archive, (OTF2_LocationRef)k);
    if (dw)
      OTF2_Archive_CloseDefWriter(o->archive, dw);
  }
  OTF2_Archive_CloseDefFiles(o->archive);
  write_definitions(o, rd);
  return !o->failed;
}

static int run(otf2_out *o, const tr_inputs *in, size_t memory) {
  rec_scratch *sc = malloc(sizeof *sc);
  if (!sc)
    return -1;
  rec_scratch_init(sc);
  if (!learn_collectives(o, in, memory, sc)) {
    free(sc);
    return -1;
  }
  ord_reader rd;
  if (!ord_open(&rd, in, ORD_START, memory, "otf2")) {
    free(sc);
    return -1;
  }
  if (!tl_init(&o->tl, rd.n)) {
    free(sc);
    ord_close(&rd);
    return -1;
  }
  ord_where where;
  const rec *r;
  while ((r = ord_next(&rd, &where)) != NULL && !o->failed) {
    tl_note(&o->tl, where.file, r);
    if (r->rt == RT_EVENT)
      on_event(o, r, sc, where.file);
    else if (r->rt == RT_TIMING)
      on_timing(o, r, sc, where.file);
  }
  bool ok = finish_archive(o, &rd);
  if (!cli_globals.quiet) {
    fprintf(stderr,
            "cclscope otf2: %" PRIu64 " records from %zu files -> %" PRIu64
            " events (%" PRIu64 " enter, %" PRIu64 " leave) on %zu locations, "
            "%zu regions, %zu communicators, %" PRIu64 " collectives\n",
            rd.records, rd.n, o->events, o->enters, o->leaves, o->tl.ntracks,
            o->nregions, o->ncomms, o->collectives);
    if (o->tl.unplaced)
      fprintf(stderr,
              "cclscope otf2: %" PRIu64 " events left out (no lane could "
              "take them in time order)\n",
              o->tl.unplaced);
  }
  int status = ok && !rd.unreadable_files && !rd.failed ? 0 : 1;
  free(sc);
  ord_close(&rd);
  return status;
}

static const cli_command_line otf2_command_line = {
    .cmd = "otf2",
    .output_usage = "-o ARCHIVE",
    .output_needs_value = "-o needs an archive folder name",
    .memory_mb = true,
};

int cmd_otf2(int argc, char **argv) {
  cli_parser parser;
  cli_parse_begin(&parser, &otf2_command_line, argc, argv);
  /* no options of its own: the next answer ends the options */
  if (cli_parse_next(&parser) == CLI_PARSE_EXIT)
    return parser.status;
  const char *output = parser.output;
  struct stat st;
  if (stat(output, &st) == 0) {
    fprintf(stderr,
            "cclscope otf2: '%s' already exists (give a new folder name)\n",
            output);
    return EXIT_FINDINGS;
  }
  tr_inputs in;
  if (!tr_inputs_collect(&in, parser.ninputs, parser.inputs))
    return EXIT_FINDINGS;
  if (nothing_to_convert("otf2", &in)) {
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  otf2_out *o = calloc(1, sizeof *o);
  if (!o) {
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  intern_init(&o->strings);
  intern_init(&o->region_names);
  pair_map_init(&o->comm_index);
  pair_map_init(&o->coll_facts);
  int status = EXIT_FINDINGS;
  o->archive = OTF2_Archive_Open(output, "traces", OTF2_FILEMODE_WRITE,
                                 OTF2_CHUNK_SIZE_MIN, 4 * 1024 * 1024,
                                 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  o->attrs = OTF2_AttributeList_New();
  if (!o->archive || !o->attrs) {
    fprintf(stderr, "cclscope otf2: cannot create the archive '%s'\n", output);
  } else {
    static OTF2_FlushCallbacks flush = {pre_flush, post_flush};
    OTF2_Archive_SetFlushCallbacks(o->archive, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(o->archive);
    OTF2_Archive_OpenEvtFiles(o->archive);
    int rc = run(o, &in, parser.memory_bytes);
    if (rc < 0)
      fprintf(stderr, "cclscope otf2: out of memory\n");
    if (OTF2_Archive_Close(o->archive) != OTF2_SUCCESS) {
      fprintf(stderr, "cclscope otf2: writing the archive '%s' failed\n",
              output);
      rc = 1;
    }
    o->archive = NULL;
    if (rc == 0)
      status = EXIT_OK;
  }
  if (o->attrs)
    OTF2_AttributeList_Delete(o->attrs);
  tl_free(&o->tl);
  intern_free(&o->strings);
  intern_free(&o->region_names);
  for (size_t c = 0; c < o->ncomms; c++)
    free(o->comms[c].rank_location);
  free(o->comms);
  free(o->regions);
  free(o->writers);
  pair_map_free(&o->comm_index);
  pair_map_free(&o->coll_facts);
  free(o->pending);
  free(o->free_slots);
  free(o->track_colls);
  free(o);
  tr_inputs_free(&in);
  return status;
}

#endif
