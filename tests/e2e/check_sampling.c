/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/e2e/check_sampling.c — consistent sampling across ranks.
 *
 * usage: check_sampling TRACE_DIR N P2P_N
 *   Collectives: for every communicator, every rank kept exactly the same
 *   (function, seqNumber) instances, and about 1 in N of them (the kept
 *   share of all instances started, from each file's sampledOut counter,
 *   is within [0.4/N, 1.6/N] over at least 100 instances).
 *   Point-to-point: for every (communicator, sender, receiver) pair, the
 *   sender kept as many sends as the receiver kept receives.
 *   Children: no kept KernelCh/ProxyOp names a parent that is not in its
 *   file (they went out with their operation).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "trace_read.h"

#define MAX_FILES 64
#define MAX_KEYS 200000

typedef struct {
  char comm[24];
  int rank;
  char func[24];
  long seq;
} coll_key;

typedef struct {
  char comm[24];
  int src, dst;
  long sends, recvs;
} pair_count;

static coll_key keys[MAX_KEYS];
static size_t nkeys;
static pair_count pairs[4096];
static size_t npairs;
static int failures;

static const char *str(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static pair_count *pair(const char *comm, int src, int dst) {
  for (size_t i = 0; i < npairs; i++)
    if (pairs[i].src == src && pairs[i].dst == dst &&
        strcmp(pairs[i].comm, comm) == 0)
      return &pairs[i];
  if (npairs == 4096)
    return NULL;
  pair_count *p = &pairs[npairs++];
  snprintf(p->comm, sizeof p->comm, "%s", comm);
  p->src = src;
  p->dst = dst;
  return p;
}

static int by_comm_func_seq_rank(const void *a, const void *b) {
  const coll_key *x = a, *y = b;
  int c = strcmp(x->comm, y->comm);
  if (c)
    return c;
  if ((c = strcmp(x->func, y->func)))
    return c;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return x->rank - y->rank;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: check_sampling TRACE_DIR N P2P_N\n");
    return 2;
  }
  int n = atoi(argv[2]);
  static char paths[MAX_FILES][4096];
  size_t nfiles = trace_find_files(argv[1], paths, MAX_FILES);
  double kept_total = 0, sampled_out = 0;
  long orphans = 0;
  /* communicator -> its ranks (from lifecycle records) */
  for (size_t f = 0; f < nfiles; f++) {
    trace_t t;
    if (!trace_load(&t, paths[f])) {
      printf("FAIL: cannot read %s\n", paths[f]);
      return 1;
    }
    for (size_t i = 0; i < t.count; i++) {
      const cJSON *r = t.lines[i];
      const char *rt = str(r, "recordType");
      if (strcmp(rt, "processEnd") == 0) {
        const cJSON *c = cJSON_GetObjectItem(r, "counters");
        sampled_out += num(c, "sampledOut");
      }
      if (strcmp(rt, "event") != 0)
        continue;
      const char *type = str(r, "type");
      const cJSON *d = cJSON_GetObjectItem(r, "details");
      if (strcmp(type, "ncclProfileColl") == 0 && nkeys < MAX_KEYS) {
        coll_key *k = &keys[nkeys++];
        snprintf(k->comm, sizeof k->comm, "%s", str(r, "commId"));
        snprintf(k->func, sizeof k->func, "%s", str(r, "func"));
        k->rank = (int)num(r, "rank");
        k->seq = (long)num(d, "seqNumber");
        kept_total++;
      } else if (strcmp(type, "ncclProfileP2p") == 0) {
        int self = (int)num(r, "rank"), peer = (int)num(d, "peer");
        bool send = strcmp(str(r, "func"), "Send") == 0;
        pair_count *p = send ? pair(str(r, "commId"), self, peer)
                             : pair(str(r, "commId"), peer, self);
        if (p) {
          p->sends += send;
          p->recvs += !send;
        }
        kept_total++;
      } else if (strcmp(type, "ncclProfileKernelCh") == 0 ||
                 strcmp(type, "ncclProfileProxyOp") == 0) {
        const cJSON *pid = cJSON_GetObjectItem(r, "parentId");
        if (cJSON_IsString(pid) &&
            !trace_find_event(&t, strtoull(pid->valuestring, NULL, 16)))
          orphans++;
      }
    }
    trace_free(&t);
  }
  /* Every (comm, func, seq) kept by one rank is kept by all the comm's
   * ranks: group by (comm, func, seq), count ranks, compare with the
   * number of ranks seen for that comm. */
  qsort(keys, nkeys, sizeof *keys, by_comm_func_seq_rank);
  size_t instances = 0, inconsistent = 0;
  for (size_t i = 0; i < nkeys;) {
    size_t j = i;
    while (j < nkeys && strcmp(keys[j].comm, keys[i].comm) == 0 &&
           strcmp(keys[j].func, keys[i].func) == 0 &&
           keys[j].seq == keys[i].seq)
      j++;
    /* ranks of this comm: distinct ranks among all its keys */
    int max_rank = -1;
    for (size_t k = 0; k < nkeys; k++)
      if (strcmp(keys[k].comm, keys[i].comm) == 0 && keys[k].rank > max_rank)
        max_rank = keys[k].rank;
    size_t ranks_here = j - i;
    if ((int)ranks_here != max_rank + 1) {
      if (inconsistent < 10)
        printf("FAIL: comm %s %s seqNumber %ld kept by %zu of %d ranks\n",
               keys[i].comm, keys[i].func, keys[i].seq, ranks_here,
               max_rank + 1);
      inconsistent++;
    }
    instances++;
    i = j;
  }
  failures += inconsistent > 0;
  double share = kept_total / (kept_total + sampled_out);
  printf("check_sampling: %zu collective instances kept on every rank (%zu "
         "inconsistent); %.0f Coll/P2p events kept, %.0f sampled out: "
         "share %.3f for N = %d\n",
         instances, inconsistent, kept_total, sampled_out, share, n);
  if (kept_total + sampled_out < 100 || share < 0.4 / n || share > 1.6 / n) {
    printf("FAIL: kept share %.3f is not about 1/%d (or too few instances)\n",
           share, n);
    failures++;
  }
  long p2p_kept = 0;
  for (size_t i = 0; i < npairs; i++) {
    p2p_kept += pairs[i].sends;
    if (pairs[i].sends != pairs[i].recvs) {
      printf("FAIL: comm %s %d -> %d: %ld sends kept, %ld receives kept\n",
             pairs[i].comm, pairs[i].src, pairs[i].dst, pairs[i].sends,
             pairs[i].recvs);
      failures++;
    }
  }
  printf("check_sampling: %zu point-to-point pairs, %ld sends kept, matching "
         "receives on every pair (P2P N = %s)\n",
         npairs, p2p_kept, argv[3]);
  if (orphans) {
    printf("FAIL: %ld kept children name a parent that was left out\n",
           orphans);
    failures++;
  }
  return failures ? 1 : 0;
}
