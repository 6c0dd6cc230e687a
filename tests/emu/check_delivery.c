/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/emu/check_delivery.c — runs ncclemu with recorder_plugin and
 * checks, per process, that
 *   1. the plugin received exactly what the truth says was delivered (same
 *      events, handles, parentObj and context values, same number of state
 *      and stop calls), and
 *   2. what a plugin of the chosen ABI receives follows nccl-behaviour §7:
 *      types and states each version can get, parentObj = Group for
 *      Coll/P2p up to v4, NULL-prefilled handle and zeroed descriptors for
 *      v1-v3, 0xA5 garbage in the unused bytes of v4/v5 descriptors and
 *      state args, no 23/24 for v4, non-NULL garbage args for 23/24 in v5,
 *      NULL args in v6+, CE bits cleared for v5, userTag only on NCCL 2.31,
 *      init arguments, ncclGetVersion() and the CCLSCOPE_* environment.
 * usage: check_delivery NCCLEMU RECORDER.so ABI SCENARIO [ncclemu args...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_test_util.h"
#include "nccl/profiler.h"

#define HANDLE_BASE 0x5ec0000000ULL

typedef struct rec_start {
  bool present;
  uint64_t type, parent, ctx, before;
  unsigned char descr[160];
  size_t descr_len;
} rec_start;

static int abi;
static int version_code;
static bool host_rccl;

/* RCCL's own layouts: its v6, and its v7 from 2.31 (profiler_rccl_v7.h). */
static bool rccl_layout(void) {
  return host_rccl && (abi == 6 || (abi == 7 && version_code >= 23100));
}

/* The state RCCL records its ProxyDiagUpdate as: 31, 32 from 2.31. */
static int rccl_diag_state(void) {
  return version_code >= 23100 ? 32 : 31;
}

static size_t descr_size(int v) {
  static const size_t sizes[8] = {0, 120, 128, 120, 104, 112, 112, 136};
  return sizes[v];
}

static size_t parse_hex(const char *hex, unsigned char *out, size_t cap) {
  size_t n = 0;
  while (hex[0] && hex[1] && n < cap) {
    unsigned v;
    sscanf(hex, "%2x", &v);
    out[n++] = (unsigned char)v;
    hex += 2;
  }
  return n;
}

static bool all_bytes(const unsigned char *b, size_t from, size_t to,
                      unsigned char value) {
  for (size_t i = from; i < to; i++)
    if (b[i] != value)
      return false;
  return true;
}

static uint64_t u64_at(const unsigned char *b, size_t off) {
  uint64_t v;
  memcpy(&v, b + off, sizeof v);
  return v;
}

static bool type_allowed(uint64_t type) {
  switch (abi) {
  case 1:
  case 2:
    return type <= ncclProfileProxyCtrl;
  case 3:
  case 4:
    return type <= ncclProfileNetPlugin;
  case 5:
    return type <= ncclProfileKernelLaunch;
  case 6:
    return type <= ncclProfileCeBatch;
  default:
    return true;
  }
}

static bool state_allowed(int s) {
  bool step = s >= 8 && s <= 12, ctrl = s >= 13 && s <= 18;
  switch (abi) {
  case 1:
  case 2:
  case 3:
    return step || ctrl;
  case 4:
    return step || ctrl || (s >= 19 && s <= 22);
  case 5:
    return step || ctrl || (s >= 19 && s <= 24);
  case 6: /* RCCL's v6 adds ProxyDiagUpdate: 31, 32 from 2.31 */
    return (s >= 8 && s <= 30) || (host_rccl && s == rccl_diag_state());
  default:
    return true;
  }
}

/* Bytes of the descriptor a version leaves unset for a type: the union
 * from its end of used fields to the end (offsets of our headers). */
static size_t union_used_end(uint64_t type) {
  switch (type) {
  case ncclProfileGroup:
  case ncclProfileProxyCtrl:
    return 24;
  case ncclProfileProxyStep:
    return 28;
  default:
    return 0; /* not checked */
  }
}

/* RCCL's proxyOp tail (profiler_rccl_v6.h; its v7 has the same) holds what
 * the truth says: the model's values with ProxyDiag in the mask, zeros
 * without (RCCL fills it only for its proxy trace). */
static void check_rccl_proxy_op(const unsigned char *b,
                                const char *truth_line) {
  rcclProfilerEventDescr_v6_t d;
  memcpy(&d, b, sizeof d);
  uint64_t hash = 0;
  int64_t op_count = -1, func = -1, proto = -1, pattern = -1, total = -1,
          nbytes = -1, raw = -1;
  json_get_u64(truth_line, "commHash", &hash);
  json_get_i64(truth_line, "opCount", &op_count);
  json_get_i64(truth_line, "traceFuncIdx", &func);
  json_get_i64(truth_line, "traceProtocol", &proto);
  json_get_i64(truth_line, "tracePattern", &pattern);
  json_get_i64(truth_line, "traceTotalBytes", &total);
  json_get_i64(truth_line, "proxyNbytes", &nbytes);
  json_get_i64(truth_line, "rawProxyNsteps", &raw);
  if (d.proxyOp.commHash != hash || d.proxyOp.opCount != op_count ||
      d.proxyOp.traceFuncIdx != func || d.proxyOp.traceProtocol != proto ||
      d.proxyOp.tracePattern != pattern ||
      d.proxyOp.traceTotalBytes != (uint64_t)total ||
      d.proxyOp.proxyNbytes != (uint64_t)nbytes ||
      d.proxyOp.rawProxyNsteps != raw)
    fail("RCCL ProxyOp extras differ from the truth: %.300s", truth_line);
  if (hash != 0 && d.proxyOp.rawProxyNsteps < d.proxyOp.nSteps)
    fail("RCCL ProxyOp: rawProxyNsteps %d below nSteps %d",
         d.proxyOp.rawProxyNsteps, d.proxyOp.nSteps);
}

/* RCCL's ProxyDiagUpdate args, "kind:flags:value:value2", one list from
 * the recorder and one from the truth per process, compared sorted. */
#define MAX_DIAGS 65536
typedef struct diag_list {
  char (*items)[64];
  int n;
} diag_list;

static void diag_add(diag_list *l, uint64_t kind, uint64_t flags, int64_t value,
                     int64_t value2) {
  if (l->items == NULL)
    l->items = calloc(MAX_DIAGS, sizeof *l->items);
  if (l->items == NULL || l->n == MAX_DIAGS)
    return;
  snprintf(l->items[l->n++], sizeof l->items[0], "%llu:%llu:%lld:%lld",
           (unsigned long long)kind, (unsigned long long)flags,
           (long long)value, (long long)value2);
}

static int diag_cmp(const void *a, const void *b) {
  return strcmp(a, b);
}

static void check_diags(diag_list *rec, diag_list *truth, int64_t pid,
                        int proxy_ops) {
  if (rccl_layout() && proxy_ops > 0 && truth->n == 0)
    fail("pid %lld: RCCL v%d with %d ProxyOps but no ProxyDiagUpdate",
         (long long)pid, abi, proxy_ops);
  if (rec->n != truth->n)
    fail("pid %lld: %d ProxyDiagUpdate args recorded, %d in the truth",
         (long long)pid, rec->n, truth->n);
  if (rec->n > 0)
    qsort(rec->items, (size_t)rec->n, sizeof rec->items[0], diag_cmp);
  if (truth->n > 0)
    qsort(truth->items, (size_t)truth->n, sizeof truth->items[0], diag_cmp);
  for (int i = 0; i < rec->n && i < truth->n; i++)
    if (strcmp(rec->items[i], truth->items[i]) != 0) {
      fail("pid %lld: ProxyDiagUpdate args %s delivered, truth has %s",
           (long long)pid, rec->items[i], truth->items[i]);
      break;
    }
  if (rccl_layout())
    printf("pid %lld: %d ProxyDiagUpdate args compared\n", (long long)pid,
           truth->n);
  free(rec->items);
  free(truth->items);
}

static void check_descriptor(const rec_start *rs, const char *truth_line) {
  const unsigned char *b = rs->descr;
  size_t size = descr_size(abi);
  if (rs->descr_len != size) {
    fail("v%d descriptor of %zu bytes, expected %zu", abi, rs->descr_len, size);
    return;
  }
  size_t used = union_used_end(rs->type);
  if (abi <= 3) {
    if (rs->before != 0)
      fail("v%d: *eHandle was %#llx on entry, NCCL's adapter sets NULL", abi,
           (unsigned long long)rs->before);
    if (used && !all_bytes(b, used, size, 0))
      fail("v%d: unused descriptor bytes of type %llu are not zero", abi,
           (unsigned long long)rs->type);
    if (rs->type == ncclProfileColl) {
      if (u64_at(b, 24) != 0 || u64_at(b, 32) != 0)
        fail("v%d Coll: name/commHash must be NULL/0", abi);
      if (abi == 1) {
        char func[32];
        json_get(truth_line, "func", func, sizeof func);
        if (b[48] != ncclFuncAllReduce && strcmp(func, "AllReduce") == 0)
          fail("v1 Coll: func enum %u for AllReduce", b[48]);
      }
      if (abi == 2 && u64_at(b, 96) != 0)
        fail("v2 Coll: trafficBytes must be 0");
    }
  } else if (abi <= 5) {
    /* uninitialised adapter locals: every byte NCCL did not assign */
    if (abi == 4 && !all_bytes(b, 1, 8, 0xA5))
      fail("v4: padding after the u8 type is not garbage (0xA5)");
    if (used && !all_bytes(b, used, size, 0xA5))
      fail("v%d: unused descriptor bytes of type %llu are not 0xA5", abi,
           (unsigned long long)rs->type);
    if (abi == 4 && rs->type == ncclProfileP2p && b[60] != 0xA5)
      fail("v4 P2p: nChannels should be garbage (not copied), got %u", b[60]);
  } else {
    if (used && !all_bytes(b, used, size < 112 ? size : 112, 0))
      fail("v%d: unused descriptor bytes of type %llu are not zero", abi,
           (unsigned long long)rs->type);
    if (rccl_layout() && rs->type == ncclProfileProxyOp)
      check_rccl_proxy_op(b, truth_line);
    if (abi == 7 && rs->type == ncclProfileCollApi) {
      uint64_t tag = u64_at(b, 72);
      bool valid = version_code >= 23100; /* RCCL 2.31's v7 has it too */
      if (!valid && tag != 0xA5A5A5A5A5A5A5A5ULL)
        fail("v7 CollApi userTag should be garbage without NCCL 2.31 "
             "(got %#llx)",
             (unsigned long long)tag);
      uint64_t truth_tag;
      if (valid && (!json_get_u64(truth_line, "userTag", &truth_tag) ||
                    truth_tag != tag))
        fail("v7 CollApi userTag %#llx differs from the truth",
             (unsigned long long)tag);
    }
  }
}

typedef struct worker_files {
  char *truth;
  char *rec;
} worker_files;

static void check_worker(const char *truth_path, const char *rec_dir) {
  size_t tlen = 0;
  char *truth = read_whole_file(truth_path, &tlen);
  if (truth == NULL) {
    fail("cannot read %s", truth_path);
    return;
  }
  int64_t pid = 0;
  json_get_i64(truth, "pid", &pid);
  char rec_path[1024];
  snprintf(rec_path, sizeof rec_path, "%s/rec.%lld", rec_dir, (long long)pid);
  char *rec = read_whole_file(rec_path, NULL);
  if (rec == NULL) {
    fail("recorder wrote nothing for pid %lld (%s)", (long long)pid, rec_path);
    free(truth);
    return;
  }
  /* recorder starts, indexed by their unique handle */
  size_t cap = 1 << 16;
  rec_start *starts = calloc(cap, sizeof *starts);
  int rec_starts = 0, rec_states = 0, rec_stops = 0;
  diag_list rec_diags = {NULL, 0}, truth_diags = {NULL, 0};
  int init_seen = 0;
  for (char *line = strtok(rec, "\n"); line; line = strtok(NULL, "\n")) {
    if (json_is(line, "call", "start")) {
      uint64_t h = 0;
      json_get_u64(line, "handle", &h);
      uint64_t idx = (h - HANDLE_BASE) / 16;
      if (idx >= cap) {
        fail("recorder handle out of range");
        continue;
      }
      rec_start *rs = &starts[idx];
      rs->present = true;
      json_get_u64(line, "type", &rs->type);
      json_get_u64(line, "parent", &rs->parent);
      json_get_u64(line, "ctx", &rs->ctx);
      json_get_u64(line, "before", &rs->before);
      static char hex[400];
      json_get(line, "descr", hex, sizeof hex);
      rs->descr_len = parse_hex(hex, rs->descr, sizeof rs->descr);
      if (!type_allowed(rs->type))
        fail("v%d plugin received event type %#llx", abi,
             (unsigned long long)rs->type);
      rec_starts++;
    } else if (json_is(line, "call", "state")) {
      int64_t s = 0;
      json_get_i64(line, "state", &s);
      if (!state_allowed((int)s))
        fail("v%d plugin received state %lld", abi, (long long)s);
      char args[64];
      json_get(line, "args", args, sizeof args);
      bool null_args = strcmp(args, "null") == 0;
      if ((s == 23 || s == 24) && abi >= 6 && !null_args)
        fail("v%d: GroupApi state %lld must have NULL args", abi, (long long)s);
      if ((s == 23 || s == 24 || s == 19) && abi == 5 &&
          (null_args || strspn(args, "a5") != strlen(args)))
        fail("v5: state %lld args must be an uninitialised (0xA5) local",
             (long long)s);
      if (s == 19 && abi == 4 && strspn(args, "a5") != strlen(args))
        fail("v4: InProgress args must be an uninitialised (0xA5) local");
      if (abi <= 3 && s >= 8 && s <= 12 && strspn(args, "0") != strlen(args))
        fail("v%d: ProxyStep state args must be zeroed", abi);
      if (rccl_layout() && !null_args) {
        unsigned char raw[24];
        if (parse_hex(args, raw, sizeof raw) != sizeof raw)
          fail("RCCL v%d: state args of %zu bytes, expected 24", abi,
               strlen(args) / 2);
        else if (s == rccl_diag_state()) {
          rcclProfilerEventStateArgs_v6_t a;
          memcpy(&a, raw, sizeof a);
          diag_add(&rec_diags, a.proxyDiag.counterKind, a.proxyDiag.flags,
                   a.proxyDiag.value, a.proxyDiag.value2);
        }
      }
      rec_states++;
    } else if (json_is(line, "call", "stop")) {
      rec_stops++;
    } else if (json_is(line, "call", "init")) {
      init_seen++;
      int64_t v = 0;
      json_get_i64(line, "ncclGetVersion", &v);
      if (v != version_code)
        fail("ncclGetVersion() gave %lld, expected %d", (long long)v,
             version_code);
      char host[32];
      json_get(line, "host", host, sizeof host);
      if (strcmp(host, host_rccl ? "rccl" : "") != 0)
        fail("CCLSCOPE_HOST='%s' in the plugin", host);
      char hostname[64];
      json_get(line, "hostname", hostname, sizeof hostname);
      if (strncmp(hostname, "emu-node", 8) != 0)
        fail("CCLSCOPE_HOSTNAME='%s' in the plugin", hostname);
    }
  }
  if (init_seen == 0)
    fail("no init recorded for pid %lld", (long long)pid);

  /* truth side */
  int truth_starts = 0, truth_states = 0, truth_stops = 0, truth_proxy_ops = 0;
  int v5_inits_concurrent = 0, v5_concurrent_clean = 0;
  for (char *line = strtok(truth, "\n"); line; line = strtok(NULL, "\n")) {
    if (json_is(line, "call", "load")) {
      int64_t a = 0;
      json_get_i64(line, "abi", &a);
      if (a != abi)
        fail("loaded ncclProfiler_v%lld, expected v%d", (long long)a, abi);
    } else if (json_is(line, "call", "init") && abi == 5 &&
               json_is(line, "quirk", "concurrent_init")) {
      /* Another init ran at the same time: its plugin may have written the
       * process-wide mask after this adapter cleared it (as in NCCL), so
       * one such read proves nothing; but the last adapter to clear reads
       * its own clear, so at least one of them must be clean. */
      uint64_t mask = 0;
      json_get_u64(line, "mask", &mask);
      v5_inits_concurrent++;
      if (!(mask &
            (ncclProfileCeColl | ncclProfileCeSync | ncclProfileCeBatch)))
        v5_concurrent_clean++;
    } else if (json_is(line, "call", "init") && abi == 5) {
      uint64_t mask = 0;
      json_get_u64(line, "mask", &mask);
      if (mask & (ncclProfileCeColl | ncclProfileCeSync | ncclProfileCeBatch))
        fail("v5: CE bits still set in the mask after init (%#llx)",
             (unsigned long long)mask);
    } else if (json_is(line, "call", "start")) {
      if (!json_is(line, "delivered", "true"))
        continue;
      truth_starts++;
      uint64_t h = 0;
      if (!json_get_u64(line, "handle", &h)) {
        fail("delivered start without a handle: %.200s", line);
        continue;
      }
      uint64_t idx = (h - HANDLE_BASE) / 16;
      if (idx >= cap || !starts[idx].present) {
        fail("truth start %.120s not seen by the plugin", line);
        continue;
      }
      rec_start *rs = &starts[idx];
      uint64_t parent = 0, ctx = 0;
      json_get_u64(line, "parent_obj", &parent);
      json_get_u64(line, "ctx", &ctx);
      if (rs->parent != parent)
        fail("parentObj %#llx delivered, truth says %#llx: %.160s",
             (unsigned long long)rs->parent, (unsigned long long)parent, line);
      if (rs->ctx != ctx)
        fail("context %#llx delivered, truth says %#llx",
             (unsigned long long)rs->ctx, (unsigned long long)ctx);
      int64_t bit = -1;
      json_get_i64(line, "bit", &bit);
      uint64_t want = 1ULL << bit;
      truth_proxy_ops += want == ncclProfileProxyOp;
      if ((abi <= 4 ? (want & 0xFF) : want) != rs->type)
        fail("type %#llx delivered for a %lld-bit event",
             (unsigned long long)rs->type, (long long)bit);
      if (abi <= 4 && (want == ncclProfileColl || want == ncclProfileP2p)) {
        uint64_t pidx = (rs->parent - HANDLE_BASE) / 16;
        if (rs->parent != 0 && (pidx >= cap || !starts[pidx].present ||
                                starts[pidx].type != ncclProfileGroup))
          fail("v%d Coll/P2p parentObj is not a Group handle", abi);
      }
      if (abi >= 5 && want == ncclProfileColl && rs->parent != 0) {
        uint64_t pidx = (rs->parent - HANDLE_BASE) / 16;
        if (pidx >= cap || !starts[pidx].present ||
            starts[pidx].type != ncclProfileCollApi)
          fail("v%d Coll parentObj is not a CollApi handle", abi);
      }
      check_descriptor(rs, line);
    } else if (json_is(line, "call", "state")) {
      if (json_is(line, "delivered", "true"))
        truth_states++;
      uint64_t kind = 0, flags = 0;
      int64_t value = 0, value2 = 0;
      if (json_is(line, "delivered", "true") &&
          json_get_u64(line, "counterKind", &kind)) {
        json_get_u64(line, "flags", &flags);
        json_get_i64(line, "value", &value);
        json_get_i64(line, "value2", &value2);
        diag_add(&truth_diags, kind, flags, value, value2);
      }
    } else if (json_is(line, "call", "stop")) {
      truth_stops++;
    }
  }
  if (truth_starts != rec_starts)
    fail("pid %lld: truth delivered %d starts, plugin saw %d", (long long)pid,
         truth_starts, rec_starts);
  if (truth_states != rec_states)
    fail("pid %lld: truth delivered %d states, plugin saw %d", (long long)pid,
         truth_states, rec_states);
  if (truth_stops != rec_stops)
    fail("pid %lld: truth has %d stops, plugin saw %d", (long long)pid,
         truth_stops, rec_stops);
  if (truth_starts == 0)
    fail("pid %lld: no events at all", (long long)pid);
  if (v5_inits_concurrent > 0 && v5_concurrent_clean == 0)
    fail("pid %lld: v5: CE bits still set in the mask after all %d "
         "concurrent inits",
         (long long)pid, v5_inits_concurrent);
  check_diags(&rec_diags, &truth_diags, pid, truth_proxy_ops);
  printf("pid %lld: %d starts, %d states, %d stops checked (v%d)\n",
         (long long)pid, truth_starts, truth_states, truth_stops, abi);
  free(starts);
  free(rec);
  free(truth);
}

/* Collectives are matched across processes: for every communicator, every
 * rank sees the same commId and the same sequence of (func, seqNumber,
 * count) Coll events. */
#define MAX_KEYS 1024
typedef struct rank_seq {
  char key[32]; /* "comm/grank" */
  uint64_t comm_id;
  char *seq;
  size_t len, cap;
} rank_seq;

static rank_seq seqs[MAX_KEYS];
static int nseqs;

static rank_seq *seq_for(int64_t comm, int64_t grank) {
  char key[32];
  snprintf(key, sizeof key, "%lld/%lld", (long long)comm, (long long)grank);
  for (int i = 0; i < nseqs; i++)
    if (strcmp(seqs[i].key, key) == 0)
      return &seqs[i];
  if (nseqs == MAX_KEYS)
    return NULL;
  rank_seq *s = &seqs[nseqs++];
  snprintf(s->key, sizeof s->key, "%s", key);
  s->cap = 4096;
  s->seq = calloc(1, s->cap);
  return s;
}

static void collect_collectives(const char *truth_path) {
  char *text = read_whole_file(truth_path, NULL);
  if (text == NULL)
    return;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    int64_t comm = -1, grank = -1;
    if (json_is(line, "call", "init")) {
      json_get_i64(line, "comm", &comm);
      json_get_i64(line, "grank", &grank);
      rank_seq *s = seq_for(comm, grank);
      if (s != NULL)
        json_get_u64(line, "commId", &s->comm_id);
      continue;
    }
    if (!json_is(line, "call", "start") || !json_is(line, "type", "Coll"))
      continue;
    json_get_i64(line, "comm", &comm);
    json_get_i64(line, "grank", &grank);
    char func[32], seq[32], count[32], item[128];
    json_get(line, "func", func, sizeof func);
    json_get(line, "seqNumber", seq, sizeof seq);
    json_get(line, "count", count, sizeof count);
    snprintf(item, sizeof item, "%s:%s:%s;", func, seq, count);
    rank_seq *s = seq_for(comm, grank);
    if (s == NULL)
      continue;
    size_t n = strlen(item);
    if (s->len + n + 1 > s->cap) {
      s->cap = (s->cap + n) * 2;
      s->seq = realloc(s->seq, s->cap);
    }
    memcpy(s->seq + s->len, item, n + 1);
    s->len += n;
  }
  free(text);
}

static void check_collectives_match(void) {
  for (int i = 0; i < nseqs; i++)
    for (int j = i + 1; j < nseqs; j++) {
      const char *ci = seqs[i].key, *cj = seqs[j].key;
      if (strncmp(ci, cj, (size_t)(strchr(ci, '/') - ci) + 1) != 0)
        continue; /* different communicators */
      if (seqs[i].comm_id != seqs[j].comm_id)
        fail("comm %s and %s: different commId", ci, cj);
      if (strcmp(seqs[i].seq, seqs[j].seq) != 0)
        fail("ranks %s and %s saw different collectives (func:seq:count)", ci,
             cj);
    }
  int with_colls = 0;
  for (int i = 0; i < nseqs; i++) {
    with_colls += seqs[i].len > 0;
    free(seqs[i].seq);
  }
  printf("%d (comm, rank) Coll sequences compared across processes, %d "
         "non-empty\n",
         nseqs, with_colls);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: check_delivery NCCLEMU RECORDER ABI SCENARIO "
                    "[ncclemu args...]\n");
    return 2;
  }
  abi = atoi(argv[3]);
  version_code = 23007;
  char *dir = make_temp_dir("delivery");
  char truth[600], rec_env[700];
  snprintf(truth, sizeof truth, "%s/truth", dir);
  snprintf(rec_env, sizeof rec_env, "RECORDER_FILE=%s/rec", dir);
  char *args[64];
  int n = 0;
  args[n++] = argv[1];
  args[n++] = "--plugin";
  args[n++] = argv[2];
  args[n++] = "--scenario";
  args[n++] = argv[4];
  args[n++] = "--pace";
  args[n++] = "none";
  args[n++] = "--quiet";
  args[n++] = "--truth";
  args[n++] = truth;
  for (int i = 5; i < argc && n < 62; i++) {
    args[n++] = argv[i];
    if (strcmp(argv[i], "--nccl-version") == 0 && i + 1 < argc) {
      int maj = 0, min = 0, patch = -1;
      sscanf(argv[i + 1], "%d.%d.%d", &maj, &min, &patch);
      static const int dflt[] = {4, 3, 1, 6, 7, 9, 7, 7, 2};
      if (patch < 0)
        patch = min >= 23 && min <= 31 ? dflt[min - 23] : 0;
      version_code = maj * 10000 + min * 100 + patch;
    }
    if (strcmp(argv[i], "rccl") == 0)
      host_rccl = true;
  }
  args[n] = NULL;
  char *env[] = {rec_env, NULL};
  run_result r = run_command(args, env);
  if (r.exit_code != 0) {
    fail("ncclemu exited with %d (signal %d):\n%s", r.exit_code, r.signal,
         r.output);
    return 1;
  }
  run_result_free(&r);
  char **files = NULL;
  int nfiles = list_files(dir, "truth", &files);
  if (nfiles == 0)
    fail("no truth file");
  for (int i = 0; i < nfiles; i++) {
    check_worker(files[i], dir);
    collect_collectives(files[i]);
  }
  check_collectives_match();
  free_list(files, nfiles);
  if (failures() == 0) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
      fprintf(stderr, "could not remove %s\n", dir);
  } else {
    printf("files kept in %s\n", dir);
  }
  free(dir);
  return failures() > 0 ? 1 : 0;
}
