/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/jsonl_scan.c — the streaming JSON scanner (see jsonl_scan.h).
 *
 * Hot loop notes: strings are skipped with memchr (then the backslashes
 * before the quote are counted), nested values with a byte loop that only
 * tracks brackets and strings, and keys are matched first against the key
 * predicted from the previous line. Nothing is allocated.
 */
#include "read/jsonl_scan.h"

#include <stdlib.h>
#include <string.h>

#include "read/scan_blocks.h"

#define MAX_DEPTH 64

static const char *const key_names[K_KEY_COUNT] = {
    [K_UNKNOWN] = "",
    [K_recordType] = "recordType",
    [K_type] = "type",
    [K_id] = "id",
    [K_parentId] = "parentId",
    [K_parentStatus] = "parentStatus",
    [K_parentRaw] = "parentRaw",
    [K_parentHint] = "parentHint",
    [K_ctx] = "ctx",
    [K_commId] = "commId",
    [K_commName] = "commName",
    [K_rank] = "rank",
    [K_nranks] = "nranks",
    [K_nNodes] = "nNodes",
    [K_gpuUuid] = "gpuUuid",
    [K_isPxn] = "isPxn",
    [K_originPid] = "originPid",
    [K_func] = "func",
    [K_start] = "start",
    [K_stop] = "stop",
    [K_duration] = "duration",
    [K_end] = "end",
    [K_reclaimReason] = "reclaimReason",
    [K_endTs] = "endTs",
    [K_details] = "details",
    [K_states] = "states",
    [K_ts] = "ts",
    [K_pid] = "pid",
    [K_tid] = "tid",
    [K_ppid] = "ppid",
    [K_hostname] = "hostname",
    [K_runId] = "runId",
    [K_handleTag] = "handleTag",
    [K_host] = "host",
    [K_formatVersion] = "formatVersion",
    [K_name] = "name",
    [K_reason] = "reason",
    [K_eventsWritten] = "eventsWritten",
    [K_linesLost] = "linesLost",
    [K_counters] = "counters",
    [K_processCounters] = "processCounters",
    [K_eventId] = "eventId",
    [K_eventType] = "eventType",
    [K_state] = "state",
    [K_label] = "label",
    [K_step] = "step",
    [K_seqNumber] = "seqNumber",
    [K_algo] = "algo",
    [K_proto] = "proto",
    [K_count] = "count",
    [K_datatype] = "datatype",
    [K_bytes] = "bytes",
    [K_apiTs] = "apiTs",
    [K_enqueue] = "enqueue",
    [K_apiNs] = "apiNs",
    [K_enqueueStartNs] = "enqueueStartNs",
    [K_enqueueStopNs] = "enqueueStopNs",
    [K_startNs] = "startNs",
    [K_stopNs] = "stopNs",
    [K_durationNs] = "durationNs",
    [K_source] = "source",
    [K_gpu] = "gpu",
    [K_proxy] = "proxy",
    [K_algBw] = "algBw",
    [K_busBw] = "busBw",
    [K_peer] = "peer",
    [K_channelId] = "channelId",
    [K_isSend] = "isSend",
    [K_nChannels] = "nChannels",
    [K_transSize] = "transSize",
    [K_lastTs] = "lastTs",
    [K_eventsStarted] = "eventsStarted",
    [K_stopped] = "stopped",
    [K_reclaimed] = "reclaimed",
    [K_inflight] = "inflight",
    [K_droppedStarts] = "droppedStarts",
    [K_droppedStates] = "droppedStates",
    [K_droppedStops] = "droppedStops",
    [K_parentsDropped] = "parentsDropped",
    [K_reclaimedByReason] = "reclaimedByReason",
    [K_forkedChild] = "forkedChild",
    [K_late] = "late",
    [K_root] = "root",
    [K_nSteps] = "nSteps",
    [K_globalRank] = "globalRank",
    [K_globalRankSource] = "globalRankSource",
    [K_device] = "device",
    [K_phases] = "phases",
    [K_initial_sync] = "initial_sync",
    [K_compute] = "compute",
    [K_final_sync] = "final_sync",
    [K_bytesLost] = "bytesLost",
    [K_writeErrors] = "writeErrors",
    [K_writeErrno] = "writeErrno",
    [K_compressErrors] = "compressErrors",
    [K_linesLostCompressing] = "linesLostCompressing",
    [K_kind] = "kind",
    [K_stream] = "stream",
    [K_corrId] = "corrId",
    [K_extCorrId] = "extCorrId",
    [K_launchId] = "launchId",
};

static size_t key_lengths[K_KEY_COUNT];

const char *js_key_name(js_key k) {
  return (unsigned)k < K_KEY_COUNT ? key_names[k] : "";
}

static size_t key_length(js_key k) {
  /* Lengths are computed on first use; read_ahead.c computes them all
   * (js_keys_prepare) before it starts its threads. */
  if (key_lengths[k] == 0)
    key_lengths[k] = strlen(key_names[k]);
  return key_lengths[k];
}

void js_keys_prepare(void) {
  for (int k = 1; k < K_KEY_COUNT; k++)
    key_length((js_key)k);
}

size_t js_key_length(js_key k) {
  return k > K_UNKNOWN && k < K_KEY_COUNT ? key_length(k) : 0;
}

js_key js_key_lookup(const char *s, size_t n) {
  for (int k = 1; k < K_KEY_COUNT; k++)
    if (key_length((js_key)k) == n && memcmp(key_names[k], s, n) == 0)
      return (js_key)k;
  return K_UNKNOWN;
}

/* ---- low-level scanning ---- */

/* ---- eight bytes at a time (portable: no byte order, no intrinsics) ---- */

static const uint64_t ONES = 0x0101010101010101u;
static const uint64_t HIGHS = 0x8080808080808080u;

static inline uint64_t load8(const char *p) {
  uint64_t x;
  memcpy(&x, p, sizeof x);
  return x;
}

/* How many bytes of `x` come before the first one equal to `a` or `b` (8:
 * none), on machines that store the first byte in the lowest bits; a
 * borrow can only mark bytes after a real match, so the lowest mark is
 * the first match. */
static inline unsigned bytes_before_either(uint64_t x, unsigned char a,
                                           unsigned char b) {
  uint64_t ya = x ^ (ONES * a), yb = x ^ (ONES * b);
  uint64_t marks = ((ya - ONES) & ~ya & HIGHS) | ((yb - ONES) & ~yb & HIGHS);
  return marks ? (unsigned)__builtin_ctzll(marks) / 8 : 8;
}

/* Bytes that matter to the scanner: in strings, containers, numbers and
 * between tokens (lookup tables are
 * faster than chains of comparisons in the hot loops). */
enum {
  CH_QUOTE = 1,
  CH_BACKSLASH = 2,
  CH_OPEN = 4,
  CH_CLOSE = 8,
  CH_NUM = 16,
  CH_SPACE = 32
};
static const unsigned char char_class[256] = {
    ['"'] = CH_QUOTE,  ['\\'] = CH_BACKSLASH, ['{'] = CH_OPEN,
    ['['] = CH_OPEN,   ['}'] = CH_CLOSE,      [']'] = CH_CLOSE,
    ['0'] = CH_NUM,    ['1'] = CH_NUM,        ['2'] = CH_NUM,
    ['3'] = CH_NUM,    ['4'] = CH_NUM,        ['5'] = CH_NUM,
    ['6'] = CH_NUM,    ['7'] = CH_NUM,        ['8'] = CH_NUM,
    ['9'] = CH_NUM,    ['-'] = CH_NUM,        ['+'] = CH_NUM,
    ['.'] = CH_NUM,    ['e'] = CH_NUM,        ['E'] = CH_NUM,
    [' '] = CH_SPACE,  ['\t'] = CH_SPACE,     ['\n'] = CH_SPACE,
    ['\r'] = CH_SPACE,
};

/* Whitespace is rare in the plugin's lines (none between tokens; runs of
 * spaces in padding), so the common case is one table lookup. */
static inline const char *skip_ws(const char *p, const char *end) {
  while (p < end && (char_class[(unsigned char)*p] & CH_SPACE)) {
    if (*p == ' ' && end - p >= 8 && load8(p) == ONES * ' ') {
      p += 8; /* the padding of padded lines: runs of spaces */
      continue;
    }
    p++;
  }
  return p;
}

static bool fail(js_iter *it, const char *at, const char *why) {
  if (!it->error) {
    it->error = why;
    it->error_at = (size_t)(at - it->base);
  }
  return false;
}

/* `p` is at the opening quote. On success *after is past the closing one.
 * One pass finds the closing quote and notes escapes (our strings are
 * short: a byte loop beats two memchr calls). */
static bool scan_string(js_iter *it, const char *p, js_value *v,
                        const char **after) {
  const char *s = p + 1;
  const char *q = s;
  const char *end = it->end;
  bool escaped = false;
  for (;;) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (end - q >= 8) {
      unsigned before = bytes_before_either(load8(q), '"', '\\');
      q += before;
      if (before < 8)
        break;
    }
#endif
    while (q < end &&
           !(char_class[(unsigned char)*q] & (CH_QUOTE | CH_BACKSLASH)))
      q++;
    if (q >= end)
      return fail(it, p, "unterminated string");
    if (*q == '"')
      break;
    escaped = true; /* a backslash: skip it and the escaped byte */
    q += 2;
  }
  v->type = JS_STRING;
  v->ptr = s;
  v->len = (size_t)(q - s);
  v->escaped = escaped;
  *after = q + 1;
  return true;
}

static bool is_number_char(char c) {
  return char_class[(unsigned char)c] & CH_NUM;
}

/* One bracket of a container being skipped: pushed or popped on `stack`.
 * 1: the container closed at `q`; 0: go on; -1: failed (it->error set). */
static inline int container_bracket(js_iter *it, char *stack, int *depth,
                                    const char *q) {
  char c = *q;
  if (c == '{' || c == '[') {
    if (*depth == MAX_DEPTH) {
      fail(it, q, "nesting too deep");
      return -1;
    }
    stack[(*depth)++] = c == '{' ? '}' : ']';
    return 0;
  }
  if (*depth == 0 || stack[*depth - 1] != c) {
    fail(it, q, "mismatched bracket");
    return -1;
  }
  return --*depth == 0 ? 1 : 0;
}

/* Skip an object or array starting at `p`; validates bracket nesting and
 * strings (not commas/colons inside: callers that care iterate it). A
 * block at a time (scan_blocks.h): its quotes, backslashes and brackets
 * are found at once and taken in order, inside and outside strings; the
 * last bytes of a line byte by byte with the same rules. A backslash
 * escapes the next byte inside a string and is an ordinary byte outside
 * one. */
static bool scan_container(js_iter *it, const char *p, js_value *v,
                           const char **after) {
  char stack[MAX_DEPTH];
  int depth = 0;
  const char *end = it->end;
  const char *q = p;
  const char *string_open = NULL; /* inside a string: its opening quote */
  const char *closed = NULL;
  while (q < end && !closed) {
    if (end - q >= SCAN_BLOCK) {
      block_masks m = masks_of_block(q);
      unsigned todo = m.quotes | m.backslashes | m.brackets;
      /* one more when an escape's byte starts the next block */
      unsigned next_block = SCAN_BLOCK;
      while (todo) {
        unsigned i = (unsigned)__builtin_ctz(todo);
        unsigned bit = 1u << i;
        todo &= todo - 1;
        if (string_open) {
          if (bit & m.backslashes) { /* the escaped byte is no token */
            if (i == SCAN_BLOCK - 1)
              next_block = SCAN_BLOCK + 1;
            else
              todo &= ~(bit << 1);
          } else if (bit & m.quotes) {
            string_open = NULL;
          }
          continue;
        }
        if (bit & m.quotes) {
          string_open = q + i;
          continue;
        }
        if (bit & m.backslashes)
          continue;
        int r = container_bracket(it, stack, &depth, q + i);
        if (r < 0)
          return false;
        if (r > 0) {
          closed = q + i;
          break;
        }
      }
      q += next_block;
      continue;
    }
    char c = *q;
    if (string_open) {
      if (c == '\\')
        q++; /* and the escaped byte below */
      else if (c == '"')
        string_open = NULL;
      q++;
      continue;
    }
    if (c == '"') {
      string_open = q;
    } else if (char_class[(unsigned char)c] & (CH_OPEN | CH_CLOSE)) {
      int r = container_bracket(it, stack, &depth, q);
      if (r < 0)
        return false;
      if (r > 0)
        closed = q;
    }
    q++;
  }
  if (closed) {
    v->type = *p == '{' ? JS_OBJECT : JS_ARRAY;
    v->ptr = p;
    v->len = (size_t)(closed + 1 - p);
    v->escaped = false;
    *after = closed + 1;
    return true;
  }
  if (string_open)
    return fail(it, string_open, "unterminated string");
  return fail(it, p, depth ? "unterminated object or array" : "truncated");
}

const char *js_number_end(const char *p, const char *end) {
  if (p >= end || !(*p == '-' || (*p >= '0' && *p <= '9')))
    return NULL;
  const char *q = p + 1;
  while (q < end && is_number_char(*q))
    q++;
  return q;
}

static bool scan_value(js_iter *it, const char *p, js_value *v,
                       const char **after) {
  if (p >= it->end)
    return fail(it, p, "value expected, line ends");
  char c = *p;
  if (c == '"')
    return scan_string(it, p, v, after);
  if (c == '{' || c == '[')
    return scan_container(it, p, v, after);
  v->escaped = false;
  v->ptr = p;
  const char *q = js_number_end(p, it->end);
  if (q) {
    v->type = JS_NUMBER;
    v->len = (size_t)(q - p);
    *after = q;
    return true;
  }
  static const struct {
    const char *text;
    size_t len;
    js_type type;
  } lits[] = {
      {"true", 4, JS_TRUE}, {"false", 5, JS_FALSE}, {"null", 4, JS_NULL}};
  for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
    if ((size_t)(it->end - p) >= lits[i].len &&
        memcmp(p, lits[i].text, lits[i].len) == 0) {
      v->type = lits[i].type;
      v->len = lits[i].len;
      *after = p + lits[i].len;
      return true;
    }
  }
  return fail(it, p, "unexpected character");
}

static bool container_begin(js_iter *it, const char *p, const char *end,
                            const char *base, char open) {
  it->end = end;
  it->base = base ? base : p;
  it->error = NULL;
  it->error_at = 0;
  it->first = true;
  p = skip_ws(p, end);
  it->p = p;
  if (p >= end || *p != open)
    return fail(it, p, open == '{' ? "object expected" : "array expected");
  it->p = p + 1;
  return true;
}

bool js_object_begin(js_iter *it, const char *p, const char *end,
                     const char *base) {
  return container_begin(it, p, end, base, '{');
}

bool js_array_begin(js_iter *it, const char *p, const char *end,
                    const char *base) {
  return container_begin(it, p, end, base, '[');
}

/* Separator before the next item; returns 1 item follows, 0 end, -1 error */
static int next_item(js_iter *it, char close) {
  const char *p = skip_ws(it->p, it->end);
  if (p >= it->end) {
    fail(it, p, "line ends inside an object or array");
    return -1;
  }
  if (*p == close) {
    it->p = p + 1;
    return 0;
  }
  if (!it->first) {
    if (*p != ',') {
      fail(it, p, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
      return -1;
    }
    p = skip_ws(p + 1, it->end);
  }
  it->first = false;
  it->p = p;
  return 1;
}

bool js_object_next(js_iter *it, js_value *key, js_value *val) {
  if (it->error)
    return false;
  if (next_item(it, '}') != 1)
    return false;
  const char *p = it->p;
  if (p >= it->end || *p != '"')
    return fail(it, p, "key expected");
  if (!scan_string(it, p, key, &p))
    return false;
  p = skip_ws(p, it->end);
  if (p >= it->end || *p != ':')
    return fail(it, p, "':' expected");
  p = skip_ws(p + 1, it->end);
  if (!scan_value(it, p, val, &p))
    return false;
  it->p = p;
  return true;
}

bool js_array_next(js_iter *it, js_value *val) {
  if (it->error)
    return false;
  if (next_item(it, ']') != 1)
    return false;
  const char *p = it->p;
  if (!scan_value(it, p, val, &p))
    return false;
  it->p = p;
  return true;
}

bool js_rest_is_blank(const js_iter *it) {
  return skip_ws(it->p, it->end) == it->end;
}

/* ---- conversions ---- */

static bool parse_digits_u64(const char *p, const char *end, uint64_t *out,
                             const char **stop) {
  uint64_t v = 0;
  const char *q = p;
  /* 19 digits cannot overflow: no check (a division) before the 20th */
  const char *unchecked = end - p > 19 ? p + 19 : end;
  while (q < unchecked && *q >= '0' && *q <= '9')
    v = v * 10 + (unsigned)(*q++ - '0');
  while (q < end && *q >= '0' && *q <= '9') {
    unsigned d = (unsigned)(*q - '0');
    if (v > (UINT64_MAX - d) / 10)
      return false;
    v = v * 10 + d;
    q++;
  }
  if (q == p)
    return false;
  *out = v;
  *stop = q;
  return true;
}

bool js_to_u64(const js_value *v, uint64_t *out) {
  if (!v || v->type != JS_NUMBER)
    return false;
  const char *stop;
  return parse_digits_u64(v->ptr, v->ptr + v->len, out, &stop) &&
         stop == v->ptr + v->len;
}

bool js_to_i64(const js_value *v, int64_t *out) {
  if (!v || v->type != JS_NUMBER)
    return false;
  const char *p = v->ptr, *end = v->ptr + v->len;
  bool neg = p < end && *p == '-';
  uint64_t mag;
  const char *stop;
  if (!parse_digits_u64(p + neg, end, &mag, &stop) || stop != end)
    return false;
  if (neg) {
    if (mag > (uint64_t)INT64_MAX + 1)
      return false;
    *out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
  } else {
    if (mag > (uint64_t)INT64_MAX)
      return false;
    *out = (int64_t)mag;
  }
  return true;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

bool js_to_hex_u64(const js_value *v, uint64_t *out) {
  if (!v)
    return false;
  if (v->type == JS_NUMBER)
    return js_to_u64(v, out);
  if (v->type != JS_STRING || v->len < 3 || v->len > 18 || v->ptr[0] != '0' ||
      (v->ptr[1] != 'x' && v->ptr[1] != 'X'))
    return false;
  uint64_t x = 0;
  for (size_t i = 2; i < v->len; i++) {
    int d = hex_digit(v->ptr[i]);
    if (d < 0)
      return false;
    x = (x << 4) | (uint64_t)d;
  }
  *out = x;
  return true;
}

bool js_to_double(const js_value *v, double *out) {
  if (!v || v->type != JS_NUMBER || v->len >= 64)
    return false;
  char buf[64];
  memcpy(buf, v->ptr, v->len);
  buf[v->len] = '\0';
  char *stop;
  double d = strtod(buf, &stop);
  if (stop != buf + v->len)
    return false;
  *out = d;
  return true;
}

/* Exponent forms ("1.5e3"): through a double. */
static bool ns_from_double(const js_value *v, int64_t *out) {
  double d;
  if (!js_to_double(v, &d) || d > 9.2e15 || d < -9.2e15)
    return false;
  *out = (int64_t)(d * 1000.0 + (d < 0 ? -0.5 : 0.5));
  return true;
}

/* The decimal form, exactly; false for anything else (an exponent
 * included: it stops the digits). */
static bool ns_from_decimal(const js_value *v, int64_t *out) {
  const char *p = v->ptr, *end = v->ptr + v->len;
  bool neg = p < end && *p == '-';
  uint64_t whole;
  const char *q;
  if (!parse_digits_u64(p + neg, end, &whole, &q))
    return false;
  if (whole > (uint64_t)(INT64_MAX / 1000) - 1)
    return false;
  uint64_t frac = 0;
  if (q < end) {
    if (*q != '.')
      return false;
    q++;
    int nd = 0;
    const char *first = q;
    while (q < end && *q >= '0' && *q <= '9') {
      if (nd < 3) {
        frac = frac * 10 + (uint64_t)(*q - '0');
        nd++;
      }
      q++;
    }
    if (q == first || q != end)
      return false;
    while (nd < 3) {
      frac *= 10;
      nd++;
    }
  }
  int64_t ns = (int64_t)(whole * 1000 + frac);
  *out = neg ? -ns : ns;
  return true;
}

bool js_to_ns(const js_value *v, int64_t *out) {
  if (!v || v->type != JS_NUMBER || v->len == 0)
    return false;
  /* a text with an exponent never passes as a decimal, so trying the
   * decimal form first gives what looking for the exponent first gives,
   * without a search of every timestamp */
  if (ns_from_decimal(v, out))
    return true;
  if (memchr(v->ptr, 'e', v->len) || memchr(v->ptr, 'E', v->len))
    return ns_from_double(v, out);
  return false;
}

bool js_to_bool(const js_value *v, bool *out) {
  if (!v || (v->type != JS_TRUE && v->type != JS_FALSE))
    return false;
  *out = v->type == JS_TRUE;
  return true;
}

/* Append code point `cp` as UTF-8; returns bytes written (0 if no room). */
static size_t put_utf8(char *dst, size_t room, uint32_t cp) {
  char tmp[4];
  size_t n;
  if (cp < 0x80) {
    tmp[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    tmp[0] = (char)(0xC0 | (cp >> 6));
    tmp[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    tmp[0] = (char)(0xE0 | (cp >> 12));
    tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    tmp[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    tmp[0] = (char)(0xF0 | (cp >> 18));
    tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    tmp[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  if (n > room)
    return 0;
  memcpy(dst, tmp, n);
  return n;
}

static bool read_u4(const char *p, const char *end, uint32_t *cp) {
  if (end - p < 4)
    return false;
  uint32_t x = 0;
  for (int i = 0; i < 4; i++) {
    int d = hex_digit(p[i]);
    if (d < 0)
      return false;
    x = (x << 4) | (uint32_t)d;
  }
  *cp = x;
  return true;
}

bool js_str_copy(const js_value *v, char *buf, size_t cap) {
  if (!v || v->type != JS_STRING || cap == 0)
    return false;
  size_t o = 0;
  const char *p = v->ptr, *end = v->ptr + v->len;
  while (p < end && o + 1 < cap) {
    char c = *p++;
    if (c != '\\') {
      buf[o++] = c;
      continue;
    }
    if (p >= end)
      break;
    char e = *p++;
    uint32_t cp;
    switch (e) {
    case 'n':
      buf[o++] = '\n';
      break;
    case 't':
      buf[o++] = '\t';
      break;
    case 'r':
      buf[o++] = '\r';
      break;
    case 'b':
      buf[o++] = '\b';
      break;
    case 'f':
      buf[o++] = '\f';
      break;
    case 'u':
      if (!read_u4(p, end, &cp))
        goto done;
      p += 4;
      if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' &&
          p[1] == 'u') {
        uint32_t lo;
        if (read_u4(p + 2, end, &lo) && lo >= 0xDC00 && lo < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          p += 6;
        }
      }
      {
        size_t n = put_utf8(buf + o, cap - 1 - o, cp);
        if (n == 0)
          goto done;
        o += n;
      }
      break;
    default: /* \" \\ \/ */
      buf[o++] = e;
      break;
    }
  }
done:
  buf[o] = '\0';
  return true;
}

bool js_str_eq(const js_value *v, const char *s) {
  if (!v || v->type != JS_STRING)
    return false;
  size_t n = strlen(s);
  if (!v->escaped)
    return v->len == n && memcmp(v->ptr, s, n) == 0;
  char tmp[256];
  if (n >= sizeof tmp)
    return false;
  js_str_copy(v, tmp, sizeof tmp);
  return strcmp(tmp, s) == 0;
}

/* ---- fields ---- */

void js_fields_init(js_fields *f) {
  memset(f, 0, sizeof *f);
  f->cur = 1;
}

/* Short keys: an inline compare beats a call to memcmp. */
static inline bool same_bytes(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return false;
  return true;
}

static js_key key_of(js_fields *f, js_key prev, const js_value *k) {
  js_key guess = f->prev_next[prev];
  if (!k->escaped) {
    if (guess != K_UNKNOWN && key_length(guess) == k->len &&
        same_bytes(key_names[guess], k->ptr, k->len))
      return guess;
    js_key id = js_key_lookup(k->ptr, k->len);
    f->prev_next[prev] = id;
    return id;
  }
  char tmp[64];
  js_str_copy(k, tmp, sizeof tmp);
  return js_key_lookup(tmp, strlen(tmp));
}

/* The member at the iterator when its key is the one that followed `prev`
 * last time, written plainly ("key": no escape can hide in it, since the
 * bytes between the quotes are exactly the key's name): its value is read
 * and the iterator moves past it, without scanning the key as a string.
 * False, with the iterator where it was, when the key is another (or
 * there is no next member); js_object_next then reads it. The plugin
 * writes every line of a type with its keys in one order, so most members
 * take this path. */
static bool predicted_member(js_fields *f, js_iter *it, js_key prev, js_key *id,
                             js_value *val) {
  js_key guess = f->prev_next[prev];
  if (guess == K_UNKNOWN || it->error)
    return false;
  const char *p = skip_ws(it->p, it->end);
  if (!it->first) {
    if (p >= it->end || *p != ',')
      return false;
    p = skip_ws(p + 1, it->end);
  }
  size_t n = key_length(guess);
  if ((size_t)(it->end - p) < n + 3 || p[0] != '"' || p[n + 1] != '"' ||
      !same_bytes(key_names[guess], p + 1, n))
    return false;
  p = skip_ws(p + n + 2, it->end);
  if (p >= it->end || *p != ':')
    return false;
  p = skip_ws(p + 1, it->end);
  const char *after;
  if (!scan_value(it, p, val, &after))
    return false; /* it->error says why, as js_object_next would */
  it->first = false;
  it->p = after;
  *id = guess;
  return true;
}

void js_fields_reset(js_fields *f) {
  if (++f->cur == 0) {
    memset(f->gen, 0, sizeof f->gen);
    f->cur = 1;
  }
  f->error = NULL;
  f->error_at = 0;
  f->nfound = 0;
}

bool js_fields_decode(js_fields *f, const char *p, const char *end,
                      const char *base, bool top_level) {
  js_iter it;
  js_value k, v;
  js_fields_reset(f);
  if (!js_object_begin(&it, p, end, base))
    goto failed;
  js_key prev = K_UNKNOWN;
  for (;;) {
    js_key id;
    if (!predicted_member(f, &it, prev, &id, &v)) {
      if (!js_object_next(&it, &k, &v))
        break;
      id = key_of(f, prev, &k);
    }
    if (id != K_UNKNOWN) {
      if (f->gen[id] != f->cur)
        f->found[f->nfound++] = (uint8_t)id;
      f->v[id] = v;
      f->gen[id] = f->cur;
    }
    prev = id;
  }
  if (it.error)
    goto failed;
  if (top_level && !js_rest_is_blank(&it)) {
    fail(&it, it.p, "text after the end of the object");
    goto failed;
  }
  return true;
failed:
  f->error = it.error;
  f->error_at = it.error_at;
  return false;
}
