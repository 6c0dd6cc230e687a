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
