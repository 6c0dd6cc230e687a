/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/line_members.c — an event line's members from where the
 * formatter said they begin (see line_members.h).
 *
 * A member's value runs from past its key's ':' to the byte before the
 * next member (a comma) or the line's closing brace; its first byte says
 * its type. Nothing else of the line is read.
 */
#include "read/line_members.h"

#include "trace_fmt.h"

_Static_assert((int)CS_FK_COUNT <= (int)LINE_MARKS_MAX, "a line's marks fit");
_Static_assert((int)CS_FK_COUNT <= 32, "a key is one bit of a 32-bit set");

/* Each formatter key's scanner key. That both name the same key is a test
 * (plugin.test_trace_compact). */
static const js_key scanner_keys[CS_FK_COUNT] = {
    [CS_FK_RECORD_TYPE] = K_recordType,
    [CS_FK_TYPE] = K_type,
    [CS_FK_ID] = K_id,
    [CS_FK_PARENT_ID] = K_parentId,
    [CS_FK_PARENT_STATUS] = K_parentStatus,
    [CS_FK_PARENT_HINT] = K_parentHint,
    [CS_FK_PARENT_RAW] = K_parentRaw,
    [CS_FK_CTX] = K_ctx,
    [CS_FK_COMM_ID] = K_commId,
    [CS_FK_RANK] = K_rank,
    [CS_FK_IS_PXN] = K_isPxn,
    [CS_FK_ORIGIN_PID] = K_originPid,
    [CS_FK_FUNC] = K_func,
    [CS_FK_START] = K_start,
    [CS_FK_STOP] = K_stop,
    [CS_FK_DURATION] = K_duration,
    [CS_FK_END] = K_end,
    [CS_FK_RECLAIM_REASON] = K_reclaimReason,
    [CS_FK_END_TS] = K_endTs,
    [CS_FK_DETAILS] = K_details,
    [CS_FK_STATES] = K_states,
};

/* Each formatter key's length with its quotes and colon: a member's value
 * begins that far past its key's opening quote. */
static const uint8_t key_room[CS_FK_COUNT] = {
    [CS_FK_RECORD_TYPE] = sizeof "\"recordType\":" - 1,
    [CS_FK_TYPE] = sizeof "\"type\":" - 1,
    [CS_FK_ID] = sizeof "\"id\":" - 1,
    [CS_FK_PARENT_ID] = sizeof "\"parentId\":" - 1,
    [CS_FK_PARENT_STATUS] = sizeof "\"parentStatus\":" - 1,
    [CS_FK_PARENT_HINT] = sizeof "\"parentHint\":" - 1,
    [CS_FK_PARENT_RAW] = sizeof "\"parentRaw\":" - 1,
    [CS_FK_CTX] = sizeof "\"ctx\":" - 1,
    [CS_FK_COMM_ID] = sizeof "\"commId\":" - 1,
    [CS_FK_RANK] = sizeof "\"rank\":" - 1,
    [CS_FK_IS_PXN] = sizeof "\"isPxn\":" - 1,
    [CS_FK_ORIGIN_PID] = sizeof "\"originPid\":" - 1,
    [CS_FK_FUNC] = sizeof "\"func\":" - 1,
    [CS_FK_START] = sizeof "\"start\":" - 1,
    [CS_FK_STOP] = sizeof "\"stop\":" - 1,
    [CS_FK_DURATION] = sizeof "\"duration\":" - 1,
    [CS_FK_END] = sizeof "\"end\":" - 1,
    [CS_FK_RECLAIM_REASON] = sizeof "\"reclaimReason\":" - 1,
    [CS_FK_END_TS] = sizeof "\"endTs\":" - 1,
    [CS_FK_DETAILS] = sizeof "\"details\":" - 1,
    [CS_FK_STATES] = sizeof "\"states\":" - 1,
};

js_key line_members_key(unsigned fmt_key) {
  return fmt_key < CS_FK_COUNT ? scanner_keys[fmt_key] : K_UNKNOWN;
}

/* The type of the value whose first byte is c. */
static inline js_type type_of(char c) {
  switch (c) {
  case '"':
    return JS_STRING;
  case '{':
    return JS_OBJECT;
  case '[':
    return JS_ARRAY;
  case 'n':
    return JS_NULL;
  case 't':
    return JS_TRUE;
  case 'f':
    return JS_FALSE;
  default:
    return JS_NUMBER;
  }
}

int line_members_of_event(const char *line, size_t len, const line_marks *marks,
                          js_member_at *out, uint32_t cap) {
  uint32_t n = marks->n;
  /* (a line this close to 4 GiB is parsed: past its last member's key
   * an offset could wrap) */
  if (len < 2 || len > UINT32_MAX - 64 || line[0] != '{' ||
      line[len - 1] != '}' || n == 0 || n > cap || n > CS_FK_COUNT ||
      marks->at[0] != 1)
    return -1;
  uint32_t seen = 0; /* the keys met so far, one bit each */
  for (uint32_t i = 0; i < n; i++) {
    unsigned key = marks->key[i];
    if (key >= CS_FK_COUNT || (seen & (1u << key)))
      return -1;
    seen |= 1u << key;
    /* The value: past the key, up to the next member's comma or the
     * line's '}', so each member begins where the one before it ended
     * (the marks are the formatter's: only that they fit is checked). */
    uint32_t v = marks->at[i] + key_room[key];
    uint32_t end = (uint32_t)len - 1;
    if (i + 1 < n) {
      end = marks->at[i + 1] - 1;
      if (end >= len - 1 || line[end] != ',')
        return -1;
    }
    if (v >= end || line[v - 1] != ':')
      return -1;
    js_type type = type_of(line[v]);
    bool escaped = (marks->escaped >> i) & 1;
    if (escaped && type != JS_STRING)
      return -1;
    if (type == JS_STRING) { /* the span inside its quotes */
      if (end - v < 2 || line[end - 1] != '"')
        return -1;
      v++;
      end--;
    }
    out[i] = (js_member_at){.off = v,
                            .len = end - v,
                            .key = (uint8_t)scanner_keys[key],
                            .type = (uint8_t)type,
                            .escaped = escaped};
  }
  return (int)n;
}
