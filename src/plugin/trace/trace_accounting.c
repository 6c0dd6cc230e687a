/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_accounting.c — the accounting record's text (see
 * trace_accounting.h). Key order is fixed, like every record's.
 */
#include "trace_accounting.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The longest text: every number at its widest and the longest reason is
 * about 410 bytes, well inside CS_ACCT_LINE. */
void cs_acct_format(const cs_acct *a, char out[CS_ACCT_LINE]) {
  const cs_acct_closing *c = &a->closing;
  char reason[sizeof c->reason + 2] = "null";
  if (c->reason[0])
    snprintf(reason, sizeof reason, "\"%.*s\"", (int)sizeof c->reason - 1,
             c->reason);
  char text[CS_ACCT_LINE + 64];
  int n = snprintf(text, sizeof text,
                   "{\"recordType\":\"accounting\",\"linesLost\":%" PRIu64
                   ",\"bytesLost\":%" PRIu64 ",\"writeErrors\":%" PRIu64
                   ",\"writeErrno\":%d,\"compressErrors\":%" PRIu64
                   ",\"linesLostCompressing\":%" PRIu64 ",\"reason\":%s"
                   ",\"eventsWritten\":%" PRIu64 ",\"droppedStarts\":%" PRIu64
                   ",\"droppedStates\":%" PRIu64 ",\"droppedStops\":%" PRIu64,
                   a->lines_lost, a->bytes_lost, a->write_errors,
                   a->write_errno, a->compress_errors,
                   a->lines_lost_compressing, reason, c->events_written,
                   c->dropped_starts, c->dropped_states, c->dropped_stops);
  size_t len = n > 0 ? (size_t)n : 0;
  if (len > CS_ACCT_LINE - 2)
    len = CS_ACCT_LINE - 2; /* cannot happen (see above) */
  memcpy(out, text, len);
  memset(out + len, ' ', CS_ACCT_LINE - 2 - len);
  out[CS_ACCT_LINE - 2] = '}';
  out[CS_ACCT_LINE - 1] = '\n';
}

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* The order of the u64 fields in the body. */
static void u64_fields(cs_acct *a, uint64_t *fields[9]) {
  fields[0] = &a->lines_lost;
  fields[1] = &a->bytes_lost;
  fields[2] = &a->write_errors;
  fields[3] = &a->compress_errors;
  fields[4] = &a->lines_lost_compressing;
  fields[5] = &a->closing.events_written;
  fields[6] = &a->closing.dropped_starts;
  fields[7] = &a->closing.dropped_states;
  fields[8] = &a->closing.dropped_stops;
}

enum { ACCT_ERRNO_AT = 72, ACCT_REASON_AT = 76 };
_Static_assert(ACCT_REASON_AT + sizeof(((cs_acct_closing *)0)->reason) ==
                   CS_ACCT_BODY,
               "the body is the fields, nothing else");

void cs_acct_pack(const cs_acct *a, unsigned char out[CS_ACCT_BODY]) {
  cs_acct copy = *a;
  uint64_t *fields[9];
  u64_fields(&copy, fields);
  for (int i = 0; i < 9; i++)
    put_u64(out + 8 * i, *fields[i]);
  uint32_t e = (uint32_t)a->write_errno;
  for (int i = 0; i < 4; i++)
    out[ACCT_ERRNO_AT + i] = (unsigned char)(e >> (8 * i));
  size_t n = 0; /* at most 15 bytes: the body keeps a NUL after them */
  while (n < sizeof a->closing.reason - 1 && a->closing.reason[n])
    n++;
  memset(out + ACCT_REASON_AT, 0, sizeof a->closing.reason);
  memcpy(out + ACCT_REASON_AT, a->closing.reason, n);
}

bool cs_acct_unpack(const unsigned char *body, size_t len, cs_acct *a) {
  if (len != CS_ACCT_BODY)
    return false;
  memset(a, 0, sizeof *a);
  uint64_t *fields[9];
  u64_fields(a, fields);
  for (int i = 0; i < 9; i++)
    *fields[i] = get_u64(body + 8 * i);
  uint32_t e = 0;
  for (int i = 0; i < 4; i++)
    e |= (uint32_t)body[ACCT_ERRNO_AT + i] << (8 * i);
  a->write_errno = (int32_t)e;
  const unsigned char *reason = body + ACCT_REASON_AT;
  size_t n = 0;
  while (n < sizeof a->closing.reason && reason[n])
    n++;
  if (n == sizeof a->closing.reason)
    return false; /* no NUL */
  for (size_t i = 0; i < n; i++)
    if (reason[i] < 0x20 || reason[i] > 0x7e || reason[i] == '"' ||
        reason[i] == '\\')
      return false; /* the line would not be the JSON the plugin wrote */
  for (size_t i = n; i < sizeof a->closing.reason; i++)
    if (reason[i])
      return false; /* NUL-padded */
  memcpy(a->closing.reason, reason, n);
  return true;
}
