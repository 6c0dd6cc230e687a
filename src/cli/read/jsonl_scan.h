/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/jsonl_scan.h — a streaming JSON scanner for one JSONL line.
 *
 * Owns: splitting an object into (key, value) spans without building a
 * tree, typed conversions of those spans (exact timestamps, hex ids,
 * integers), and a key table so that the fields of a record can be looked
 * up by a small integer instead of by string.
 *
 * It is correct for any valid JSON object (unknown keys, any key order,
 * escapes, nesting); it is fast for cclscope's own lines because keys are
 * matched against the key that followed the same key last time (the
 * plugin writes keys in a fixed order), and nested values that nobody asks
 * for are skipped without being decoded. Invalid JSON is reported with a
 * reason and the byte offset where scanning stopped.
 */
#ifndef CCLSCOPE_CLI_JSONL_SCAN_H
#define CCLSCOPE_CLI_JSONL_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  JS_NONE = 0, /* absent (a key that was not in the object) */
  JS_NULL,
  JS_FALSE,
  JS_TRUE,
  JS_NUMBER,
  JS_STRING,
  JS_OBJECT,
  JS_ARRAY
} js_type;

/* A value inside the line. Strings: `ptr`/`len` are the raw bytes between
 * the quotes (escapes not decoded, `escaped` tells). Objects and arrays:
 * the whole text including brackets. Numbers, literals: their text. */
typedef struct {
  const char *ptr;
  size_t len;
  js_type type;
  bool escaped;
} js_value;

/* Iterates the members of one object or the elements of one array. */
typedef struct {
  const char *p;
  const char *end;
  const char *base;  /* start of the line, for error offsets */
  const char *error; /* static reason once scanning failed, else NULL */
  size_t error_at;   /* byte offset of the failure within the line */
  bool first;
} js_iter;

/* Begin iterating the object (or array) whose text starts at `p` (leading
 * whitespace allowed). `base` is the start of the line, used only in
 * error offsets. Returns false (and sets it->error) if it is not one. */
bool js_object_begin(js_iter *it, const char *p, const char *end,
                     const char *base);
bool js_array_begin(js_iter *it, const char *p, const char *end,
                    const char *base);

/* Next member / element. Returns false at the end of the container or on
 * error (it->error is then set). After the end, it->p points just past the
 * closing bracket. */
bool js_object_next(js_iter *it, js_value *key, js_value *val);
bool js_array_next(js_iter *it, js_value *val);

/* Only whitespace remains from it->p to it->end? (call after the end of a
 * top-level object to reject trailing garbage). */
bool js_rest_is_blank(const js_iter *it);

/* The end of the number that starts at `p`, delimited as the scanner
 * delimits a number value ('-' or a digit, then digits, '-', '+', '.',
 * 'e', 'E'), or NULL when no number starts there. */
const char *js_number_end(const char *p, const char *end);

/* ---- conversions (false when the value is not of that form) ---- */

/* Integer number (no fraction, no exponent), range-checked. */
bool js_to_i64(const js_value *v, int64_t *out);
bool js_to_u64(const js_value *v, uint64_t *out);
/* A hex string "0x1f" (or a plain non-negative integer number). */
bool js_to_hex_u64(const js_value *v, uint64_t *out);
/* Microseconds with up to 9 decimals ("1795274479934219.589") into
 * nanoseconds, exactly, without going through a double; digits past the
 * third decimal are truncated. Exponent forms fall back to strtod. */
bool js_to_ns(const js_value *v, int64_t *out);
bool js_to_double(const js_value *v, double *out);
bool js_to_bool(const js_value *v, bool *out);
/* String equal to the literal `s`? (decodes escapes when present) */
bool js_str_eq(const js_value *v, const char *s);
/* Copy a string value into buf (escapes decoded, NUL-terminated,
 * truncated to cap-1 bytes). Returns false if not a string. */
bool js_str_copy(const js_value *v, char *buf, size_t cap);

/* ---- keys ---- */

/* Every key any command looks up, at any nesting level. */
typedef enum {
  K_UNKNOWN = 0,
  K_recordType,
  K_type,
  K_id,
  K_parentId,
  K_parentStatus,
  K_parentRaw,
  K_parentHint,
  K_ctx,
  K_commId,
  K_commName,
  K_rank,
  K_nranks,
  K_nNodes,
  K_gpuUuid,
  K_isPxn,
  K_originPid,
  K_func,
  K_start,
  K_stop,
  K_duration,
  K_end,
  K_reclaimReason,
  K_endTs,
  K_details,
  K_states,
  K_ts,
  K_pid,
  K_tid,
  K_ppid,
  K_hostname,
  K_runId,
  K_handleTag,
  K_host,
  K_formatVersion,
  K_name,
  K_reason,
  K_eventsWritten,
  K_linesLost,
  K_counters,
  K_processCounters,
  K_eventId,
  K_eventType,
  K_state,
  K_label,
  K_step,
  K_seqNumber,
  K_algo,
  K_proto,
  K_count,
  K_datatype,
  K_bytes,
  K_apiTs,
  K_enqueue,
  /* timing records of format version 2: integer ns since the epoch */
  K_apiNs,
  K_enqueueStartNs,
  K_enqueueStopNs,
  K_startNs,
  K_stopNs,
  K_durationNs,
  K_source,
  K_gpu,
  K_proxy,
  K_algBw,
  K_busBw,
  K_peer,
  K_channelId,
  K_isSend,
  K_nChannels,
  K_transSize,
  K_lastTs,
  K_eventsStarted,
  K_stopped,
  K_reclaimed,
  K_inflight,
  K_droppedStarts,
  K_droppedStates,
  K_droppedStops,
  K_parentsDropped,
  K_reclaimedByReason,
  K_forkedChild,
  K_late,
  K_root,
  K_nSteps,
  K_globalRank,
  K_globalRankSource,
  K_device,
  K_phases,
  K_initial_sync,
  K_compute, /* KernelPhase phases (summary_kind.c) */
  K_final_sync,
  K_bytesLost,
  K_writeErrors,
  K_writeErrno,
  K_compressErrors,
  K_linesLostCompressing,
  K_kind, /* gpuActivity records */
  K_stream,
  K_corrId,
  K_extCorrId,
  K_launchId,
  K_KEY_COUNT
} js_key;

/* Key id of a raw key string (K_UNKNOWN if not in the table). */
js_key js_key_lookup(const char *s, size_t n);
const char *js_key_name(js_key k);
/* strlen(js_key_name(k)), computed once (js_keys_prepare). */
size_t js_key_length(js_key k);

/* The known members of one object, by key id. Values point into the line.
 * A generation counter makes reuse O(1): no clearing between lines. */
typedef struct {
  js_value v[K_KEY_COUNT];
  uint32_t gen[K_KEY_COUNT];
  uint32_t cur;
  js_key prev_next[K_KEY_COUNT]; /* key that followed each key last time */
  const char *error;             /* why decoding failed, else NULL */
  size_t error_at;
  /* the known keys of the last object, each once, in the order first
   * met: read_ahead.c copies the members without looking at every key */
  uint8_t found[K_KEY_COUNT];
  uint32_t nfound;
} js_fields;

void js_fields_init(js_fields *f);
/* Decode the object at [p, end) (base = line start for offsets); with
 * `top_level`, anything but whitespace after the object is an error. */
bool js_fields_decode(js_fields *f, const char *p, const char *end,
                      const char *base, bool top_level);
/* Filling a js_fields by hand with what an earlier decode of the same
 * object found (read_ahead.c replays a worker thread's decoding): start an
 * empty object, then set each member. */
void js_fields_reset(js_fields *f);
static inline void js_fields_set(js_fields *f, js_key k, const js_value *v) {
  f->v[k] = *v;
  f->gen[k] = f->cur;
}

/* One known member of a decoded object, its value as an offset into the
 * line: how a decoding travels without its pointers, from a worker thread
 * to the command (read_ahead.c) and through the sort's chunks and
 * temporary files (ordered_reader.c). A line longer than 4 GiB is not
 * kept so. */
typedef struct {
  uint32_t off;
  uint32_t len;
  uint8_t key;
  uint8_t type;
  bool escaped;
} js_member_at;

/* The i-th known member of `f` (f->found[i]), decoded from `line`. */
static inline js_member_at js_member_at_of(const js_fields *f, uint32_t i,
                                           const char *line) {
  js_key key = (js_key)f->found[i];
  const js_value *v = &f->v[key];
  return (js_member_at){(uint32_t)(v->ptr - line), (uint32_t)v->len,
                        (uint8_t)key, (uint8_t)v->type, v->escaped};
}

/* Set that member again in `f` (after js_fields_reset), on `line` (the
 * same text, wherever it is now), with the list of keys found as the
 * decoding left it. */
static inline void js_fields_add_member(js_fields *f, const js_member_at *m,
                                        const char *line) {
  js_value v = {line + m->off, m->len, (js_type)m->type, m->escaped};
  js_fields_set(f, (js_key)m->key, &v);
  f->found[f->nfound++] = m->key;
}

/* Compute the key table's lengths now. The scanner computes them on first
 * use; call this once before scanning from several threads. */
void js_keys_prepare(void);

/* A member, or NULL when the object did not have it. */
static inline const js_value *js_get(const js_fields *f, js_key k) {
  return f->gen[k] == f->cur ? &f->v[k] : NULL;
}

#endif
