/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_print.c — the human report of `cclscope hang`: what was
 * read, then per (communicator, function) with a hung operation: where
 * each rank is, the most likely culprit with the evidence, who waits on
 * it and what to check, and rank by rank what each stuck rank waits for.
 * docs/cli.md shows an example.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hang/hang_explain.h"

#define TEXT 2048

static void utc(int64_t ns, char *buf, size_t cap) {
  time_t t = (time_t)(ns / 1000000000);
  struct tm tm;
  if (ns <= 0 || !gmtime_r(&t, &tm) ||
      strftime(buf, cap, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
    snprintf(buf, cap, "(unknown time)");
}

static void print_inputs(const hang_db *db) {
  if (db->snapshots == 0) {
    printf("cclscope hang: no in-flight snapshot (inflight_*.json) among the "
           "inputs\n");
    return;
  }
  size_t hosts = 0;
  double timeout = 0;
  bool mixed_timeout = false;
  for (size_t i = 0; i < db->nsources; i++) {
    const hang_source *s = &db->sources[i];
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = strcmp(db->sources[j].hostname, s->hostname) == 0;
    hosts += !seen;
    if (s->is_trace)
      continue;
    if (timeout && s->timeout_s != timeout)
      mixed_timeout = true;
    timeout = s->timeout_s;
  }
  char when[48];
  utc(db->newest_ts_ns, when, sizeof when);
  printf("cclscope hang: %zu snapshot%s", db->snapshots,
         db->snapshots == 1 ? "" : "s");
  if (db->traces)
    printf(" and %zu trace%s of processes without one", db->traces,
           db->traces == 1 ? "" : "s");
  printf(" from %zu host%s; newest snapshot %s", hosts, hosts == 1 ? "" : "s",
         when);
  if (db->snapshots > 1)
    printf(", oldest %.1f s before",
           (double)(db->newest_ts_ns - db->oldest_ts_ns) / 1e9);
  if (mixed_timeout)
    printf("; watchdog timeouts differ");
  else if (timeout > 0)
    printf("; watchdog timeout %g s", timeout);
  printf("\n");
  double spread = (double)(db->newest_ts_ns - db->oldest_ts_ns) / 1e9;
  if (spread > 60 && spread > 4 * timeout)
    printf("note: the snapshots were taken up to %.0f s apart: older ones may "
           "be from an earlier hang or run (each process replaces only its "
           "own)\n",
           spread);
}

static size_t collect(const hang_group *g, hang_status st, int64_t *out) {
  size_t n = 0;
  for (int64_t r = 0; r < g->nranks; r++)
    if (g->ranks[r].status == st)
      out[n++] = r;
  return n;
}

/* The stuck ranks, by the collective they are stuck in (newest first). */
static void print_stuck(const hang_group *g, int64_t *scratch) {
  char list[512], label[64];
  bool any_seq = false;
  uint64_t below = UINT64_MAX; /* print seqs below this one */
  for (;;) {
    bool found = false;
    uint64_t seq = 0;
    for (int64_t r = 0; r < g->nranks; r++) {
      const hang_rank *hr = &g->ranks[r];
      if (hr->status == HS_STUCK && hr->stuck->has_seq &&
          hr->stuck->seq < below && (!found || hr->stuck->seq > seq)) {
        seq = hr->stuck->seq;
        found = true;
      }
    }
    if (!found)
      break;
    size_t n = 0;
    for (int64_t r = 0; r < g->nranks; r++)
      if (g->ranks[r].status == HS_STUCK && g->ranks[r].stuck->has_seq &&
          g->ranks[r].stuck->seq == seq)
        scratch[n++] = r;
    hang_ranges(scratch, n, list, sizeof list);
    if (!any_seq && g->has_newest && seq == g->newest)
      snprintf(label, sizeof label, "stuck in it");
    else
      snprintf(label, sizeof label, "stuck in seqNumber %" PRIu64, seq);
    printf("  %-24s %s %s\n", label, n == 1 ? "rank " : "ranks", list);
    any_seq = true;
    below = seq;
  }
  size_t n = 0;
  for (int64_t r = 0; r < g->nranks; r++)
    if (g->ranks[r].status == HS_STUCK && !g->ranks[r].stuck->has_seq)
      scratch[n++] = r;
  if (n) {
    hang_ranges(scratch, n, list, sizeof list);
    printf("  %-24s %s %s\n", "stuck", n == 1 ? "rank " : "ranks", list);
  }
  printf("  %-24s %.1f s\n", "no progress for up to", g->max_idle_s);
}

static void print_positions(const hang_group *g, int64_t *scratch) {
  char what[96], list[512];
  hang_what(g, what, sizeof what);
  size_t started = 0, finished = 0;
  for (int64_t r = 0; r < g->nranks; r++) {
    const hang_rank *hr = &g->ranks[r];
    started +=
        hr->has_started && g->has_newest && hr->last_started >= g->newest;
    finished +=
        hr->has_finished && g->has_newest && hr->last_finished >= g->newest;
  }
  if (g->has_seq)
    printf("  %s: started by %zu of %" PRId64 " ranks, finished by %zu\n", what,
           started, g->nranks, finished);
  print_stuck(g, scratch);
  static const struct {
    hang_status st;
    const char *label;
  } rows[] = {{HS_BEHIND, "never started it"},
              {HS_STARTED, "started it, no snapshot"},
              {HS_NO_DATA, "no snapshot, no trace"},
              {HS_MOVING, "still progressing"},
              {HS_DONE, "finished it"}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    size_t n = collect(g, rows[i].st, scratch);
    if (!n)
      continue;
    hang_ranges(scratch, n, list, sizeof list);
    printf("  %-24s %s %s\n",
           rows[i].st == HS_DONE && !g->has_seq ? "nothing in flight"
                                                : rows[i].label,
           n == 1 ? "rank " : "ranks", list);
  }
  if (g->has_seq && g->has_done && g->nnot_finished &&
      (!g->has_newest || g->newest_done < g->newest)) {
    size_t n = 0;
    for (int64_t r = 0; r < g->nranks; r++) {
      const hang_rank *hr = &g->ranks[r];
      if (hr->m && (!hr->has_finished || hr->last_finished < g->newest_done))
        scratch[n++] = r;
    }
    if (n) {
      hang_ranges(scratch, n, list, sizeof list);
      printf("  %-24s %s %s (others finished seqNumber %" PRIu64 ")\n",
             "never finished", n == 1 ? "rank " : "ranks", list,
             g->newest_done);
    }
  }
}

/* `text` wrapped at 88 columns on spaces; the first line starts with
 * `first`, the others with `indent`. */
static void print_paragraph(const char *indent, const char *first,
                            const char *text) {
  const char *lead = first;
  size_t len = strlen(text);
  const char *p = text;
  while (len > 0) {
    size_t width = 88 - strlen(lead), take = len;
    if (take > width) {
      take = width;
      while (take > 20 && p[take] != ' ')
        take--;
      if (take <= 20)
        take = width;
    }
    printf("%s%.*s\n", lead, (int)take, p);
    lead = indent;
    p += take;
    len -= take;
    while (len > 0 && *p == ' ') {
      p++;
      len--;
    }
  }
}

/* "  Class: gpu (the culprit's GPU stopped inside the collective)" */
static void print_class(const hang_group *g) {
  printf("  Class: %s (%s)\n", hang_class_name(g->hclass),
         hang_class_meaning(g->hclass));
}

static void print_culprit(const hang_db *db, const hang_group *g) {
  char label[160], text[TEXT];
  if (g->nculprits == 0 || g->confidence == HC_NONE) {
    printf("  Most likely culprit: cannot tell — confidence: none\n");
    print_class(g);
    if (g->ncycle) {
      /* "0 -> 3 -> 2 -> 1 -> 0" */
      char chain[512] = "";
      size_t len = 0;
      for (size_t i = 0; i <= g->ncycle && len + 32 < sizeof chain; i++)
        len += (size_t)snprintf(chain + len, sizeof chain - len, "%s%" PRId64,
                                i ? " -> " : "", g->cycle[i % g->ncycle]);
      snprintf(text, sizeof text,
               "Every stuck rank waits on another one, in a cycle (%s), and "
               "none waits on its own GPU or the network: the data each "
               "waits for was never sent. The ranks may be in different "
               "collectives (called in a different order), or the transfers "
               "were lost.",
               chain);
      char note[TEXT / 2];
      hang_stale_note(g, note, sizeof note);
      if (note[0])
        snprintf(text + strlen(text), sizeof text - strlen(text), " %s.", note);
    } else {
      hang_confidence_why(g, text, sizeof text);
      strncat(text, ".", sizeof text - strlen(text) - 1);
    }
    print_paragraph("    ", "    ", text);
    if (g->nculprits)
      for (size_t i = 0; i < g->nculprits && i < 3; i++) {
        hang_why(db, g, &g->ranks[g->culprits[i]], true, text, sizeof text);
        print_paragraph("      ", "    - ", text);
      }
    return;
  }
  const hang_rank *hr = &g->ranks[g->culprits[0]];
  hang_culprit_label(g, label, sizeof label);
  printf("  Most likely culprit: %s — confidence: %s\n", label,
         hang_confidence_name(g->confidence));
  print_class(g);
  hang_why(db, g, hr, false, text, sizeof text);
  print_paragraph("    ", "    ", text);
  hang_waiters(g, hr, text, sizeof text);
  if (text[0])
    print_paragraph("    ", "    ", text);
  hang_advice(g, hr, text, sizeof text);
  if (text[0])
    print_paragraph("      ", "    What to check: ", text);
  hang_confidence_why(g, text, sizeof text);
  char conf[TEXT + 32];
  snprintf(conf, sizeof conf, "Confidence %s: %s.",
           hang_confidence_name(g->confidence), text);
  print_paragraph("    ", "    ", conf);
  /* the other candidates, of this class and the next ones */
  size_t shown = 0;
  /* (a culprit process's other ranks are in the verdict already) */
  for (size_t i = 1; i < g->nculprits && shown < 3 && !g->culprit_process;
       i++, shown++) {
    if (shown == 0)
      printf("  Also possible (the same kind of evidence):\n");
    hang_why(db, g, &g->ranks[g->culprits[i]], true, text, sizeof text);
    print_paragraph("      ", "    - ", text);
  }
  if (g->nculprits > 1 + shown && !g->culprit_process)
    printf("    ... and %zu more\n", g->nculprits - 1 - shown);
  size_t weaker = 0, listed = 0;
  for (int e = g->top + 1; e < HE_COUNT; e++)
    for (int64_t r = 0; r < g->nranks; r++) {
      const hang_rank *o = &g->ranks[r];
      if ((int)o->evidence != e)
        continue;
      weaker++;
      if (listed == 3)
        continue;
      if (listed++ == 0)
        printf("  Less likely (weaker evidence):\n");
      hang_why(db, g, o, true, text, sizeof text);
      print_paragraph("      ", "    - ", text);
    }
  if (weaker > listed)
    printf("    ... and %zu more (see the ranks below)\n", weaker - listed);
}

static const char *rank_summary(const hang_group *g, const hang_rank *hr,
                                char *buf, size_t cap) {
  switch (hr->status) {
  case HS_STUCK: {
    if (hr->evidence == HE_LINK || hr->evidence == HE_PROXY ||
        hr->evidence == HE_GPU_IDLE || hr->evidence == HE_GPU_HELD) {
      snprintf(buf, cap, "stuck, %s",
               hr->evidence == HE_LINK    ? "its network link stalled"
               : hr->evidence == HE_PROXY ? "its proxy thread stopped"
               : hr->evidence == HE_GPU_IDLE
                   ? "waits on its own GPU (took nothing)"
                   : "its node holds the data (its GPU is a suspect)");
    } else if (hr->waits_on_peer) {
      int64_t peers[8];
      size_t n = 0;
      for (size_t i = 0; i < hr->nheads && n < 8; i++) {
        const hang_head *h = hr->heads[i];
        if ((h->wait != HW_PEER_DATA && h->wait != HW_PEER_BUFFER) ||
            h->peer == hr->rank)
          continue;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
          dup = peers[k] == h->peer;
        if (!dup)
          peers[n++] = h->peer;
      }
      char list[128] = "";
      size_t len = 0;
      for (size_t k = 0; k < n && len < sizeof list; k++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%" PRId64,
                                k ? ", " : "", peers[k]);
      snprintf(buf, cap, "stuck, waits on rank%s %s", n == 1 ? "" : "s", list);
    } else {
      snprintf(buf, cap, "stuck, %s",
               hr->evidence == HE_GPU_CONSUME || hr->evidence == HE_GPU_PRODUCE
                   ? "waits on its own GPU"
               : hr->evidence == HE_NETWORK ? "waits on the network"
                                            : "no step detail");
    }
    break;
  }
  case HS_BEHIND:
    if (hr->has_started)
      snprintf(buf, cap,
               "never started it (last started: seqNumber %" PRIu64 ")",
               hr->last_started);
    else
      snprintf(buf, cap, "never started any %s", g->func);
    break;
  case HS_MOVING:
    snprintf(buf, cap, "in flight, progressing");
    break;
  case HS_DONE:
    snprintf(buf, cap, "%s", g->has_seq ? "finished it" : "nothing in flight");
    break;
  case HS_STARTED:
    snprintf(buf, cap, "started it (trace), no snapshot");
    break;
  default:
    snprintf(buf, cap, "no snapshot, no trace");
    break;
  }
  return buf;
}

static int by_pipe(const void *x, const void *y) {
  const hang_head *a = *(const hang_head *const *)x;
  const hang_head *b = *(const hang_head *const *)y;
  if (a->channel != b->channel)
    return a->channel < b->channel ? -1 : 1;
  if (a->is_send != b->is_send)
    return a->is_send ? 1 : -1;
  return a->peer < b->peer ? -1 : a->peer > b->peer;
}

static void print_rank(const hang_group *g, const hang_rank *hr) {
  char label[160], sum[256];
  hang_rank_label(hr, label, sizeof label);
  printf("    %-34s %s\n", label, rank_summary(g, hr, sum, sizeof sum));
  if (hr->status != HS_STUCK)
    return;
  const hang_head **heads = malloc(hr->nheads * sizeof *heads + 1);
  if (!heads)
    return;
  if (hr->nheads) {
    memcpy(heads, hr->heads, hr->nheads * sizeof *heads);
    qsort(heads, hr->nheads, sizeof *heads, by_pipe);
  }
  for (size_t i = 0; i < hr->nheads; i++) {
    const hang_head *h = heads[i];
    char dir[40];
    snprintf(dir, sizeof dir, "%s %" PRId64,
             h->is_send ? "send to" : "recv from", h->peer);
    bool consequence = hr->waits_on_peer &&
                       (h->wait == HW_GPU_PRODUCE ||
                        h->wait == HW_GPU_CONSUME || h->wait == HW_GPU_FLUSH);
    char meaning[96];
    hang_head_meaning(h, meaning, sizeof meaning);
    printf(
        "      ch %-3" PRId64 " %-13s step %-4" PRId64 " %-13s %6.1f s  %s%s\n",
        h->channel, dir, h->step, h->state[0] ? h->state : "-", h->idle_s,
        meaning,
        consequence ? " (a consequence: its kernel waits for its peers)" : "");
  }
  if (hr->nheads == 0 && hr->stuck)
    printf("      %d network operation%s, %d kernel channel%s in flight; "
           "%s\n",
           hr->stuck->proxy_ops, hr->stuck->proxy_ops == 1 ? "" : "s",
           hr->stuck->kernel_chs, hr->stuck->kernel_chs == 1 ? "" : "s",
           hr->stuck->waiting[0] ? hr->stuck->waiting : "nothing recorded");
  if (hr->stuck && hr->stuck->events_in_flight > hr->stuck->events_listed)
    printf("      (the snapshot lists %zu of %zu events in flight)\n",
           hr->stuck->events_listed, hr->stuck->events_in_flight);
  free(heads);
}

/* Every candidate, then the rest in rank order, `max` rows in all. */
static void print_ranks(const hang_group *g, size_t max) {
  printf("  Rank by rank (candidates first; for stuck ranks the oldest "
         "ProxyStep in flight of each channel, direction and peer):\n");
  size_t shown = 0, n = (size_t)g->nranks;
  bool *done = calloc(n, sizeof *done);
  if (!done)
    return;
  for (int pass = 0; pass < 2; pass++)
    for (size_t r = 0; r < n; r++) {
      const hang_rank *hr = &g->ranks[r];
      if (done[r] || (pass == 0 && hr->evidence == HE_NONE))
        continue;
      if (max && shown >= max)
        break;
      done[r] = true;
      shown++;
      print_rank(g, hr);
    }
  if (shown < n)
    printf("    ... %zu more ranks (--max-ranks 0 lists all)\n", n - shown);
  free(done);
}

void hang_print_text(const hang_db *db, const hang_report *r,
                     const hang_print_options *o) {
  print_inputs(db);
  if (r->ngroups == 0) {
    if (db->snapshots == 0)
      printf("No hang: the watchdog wrote no snapshot, so it saw nothing "
             "stuck (docs/hang.md).\n");
    else if (db->hung_ops)
      printf("HANG: %zu hung operation%s without a communicator id (ABI "
             "v1-v3, or PXN network operations of unknown origin): they "
             "cannot be matched across ranks.\n",
             db->hung_ops, db->hung_ops == 1 ? "" : "s");
    else
      printf("No hang: no snapshot says an operation is hung (snapshots "
             "written by cclscope_dump() list what was in flight).\n");
    return;
  }
  for (size_t i = 0; i < r->ngroups; i++) {
    const hang_group *g = &r->groups[i];
    int64_t *scratch = malloc((size_t)g->nranks * sizeof *scratch);
    if (!scratch)
      return;
    char what[96];
    hang_what(g, what, sizeof what);
    printf("\nHANG in communicator 0x%016" PRIx64 "%s%s%s (%" PRId64
           " ranks): %s\n",
           g->comm_id, g->comm_name[0] ? " \"" : "", g->comm_name,
           g->comm_name[0] ? "\"" : "", g->nranks, what);
    print_positions(g, scratch);
    printf("\n");
    print_culprit(db, g);
    printf("\n");
    print_ranks(g, o->max_ranks);
    free(scratch);
  }
  printf("\n");
  for (size_t i = 0; i < r->ngroups; i++) {
    const hang_group *g = &r->groups[i];
    char what[96], label[160];
    hang_what(g, what, sizeof what);
    printf("Verdict: comm 0x%016" PRIx64 " %s: ", g->comm_id, what);
    if (g->nculprits && g->confidence != HC_NONE) {
      hang_culprit_label(g, label, sizeof label);
      printf("%s, %s, confidence %s, class %s\n", label,
             hang_evidence_name(g->ranks[g->culprits[0]].evidence),
             hang_confidence_name(g->confidence), hang_class_name(g->hclass));
    } else {
      printf("cannot tell who is behind, confidence none, class %s\n",
             hang_class_name(g->hclass));
    }
  }
}
