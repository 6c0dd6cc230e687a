/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_explain.h — the sentences of `cclscope hang`: what a
 * waiting step means, why a rank is the culprit, who waits on it, what to
 * check, and how sure the verdict is. Shared by the text and JSON outputs so
 * that both say the same thing.
 */
#ifndef CCLSCOPE_CLI_HANG_EXPLAIN_H
#define CCLSCOPE_CLI_HANG_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "hang/hang.h"

/* Text appended to a caller's fixed buffer, cut when full and always
 * terminated (the sentences of this file and of hang_mismatch.c). */
typedef struct {
  char *p;
  size_t cap, len;
} hang_text;
void hang_text_init(hang_text *t, char *p, size_t cap);
__attribute__((format(printf, 2, 3))) void hang_text_add(hang_text *t,
                                                         const char *fmt, ...);

/* "data from rank 3 has not arrived" */
void hang_head_meaning(const hang_head *h, char *buf, size_t cap);
/* "channel 0, recv from rank 1: ProxyStep 0 in RecvWait for 48.0 s" */
void hang_head_text(const hang_head *h, char *buf, size_t cap);
/* "rank 1 (node7, pid 4827)" */
/* The most likely culprit, for the verdict: its rank label, or the
 * process when culprit_process. */
void hang_culprit_label(const hang_group *g, char *buf, size_t cap);
void hang_rank_label(const hang_rank *hr, char *buf, size_t cap);
/* "0-3, 7" (at most `cap` bytes, "..." when cut) */
void hang_ranges(const int64_t *ranks, size_t n, char *buf, size_t cap);
/* "AllReduce seqNumber 41000" or "Send/Recv" */
void hang_what(const hang_group *g, char *buf, size_t cap);

/* Why this candidate is one: one or more sentences (`brief`: the main
 * evidence only, without its other waits and caveats). */
void hang_why(const hang_db *db, const hang_group *g, const hang_rank *hr,
              bool brief, char *buf, size_t cap);
/* Who waits on it, directly and through others. "" when nobody. */
void hang_waiters(const hang_group *g, const hang_rank *hr, char *buf,
                  size_t cap);
/* What to look at next. */
void hang_advice(const hang_group *g, const hang_rank *hr, char *buf,
                 size_t cap);
/* Why the confidence is what it is (with the stale note, if any). */
void hang_confidence_why(const hang_group *g, char *buf, size_t cap);
/* "Set aside: ..." when evidence from both ends of a link was set aside
 * because one snapshot is older than what the other end did; "" if not. */
void hang_stale_note(const hang_group *g, char *buf, size_t cap);

#endif
