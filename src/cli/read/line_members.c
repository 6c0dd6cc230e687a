/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/line_members.c — an event line's members from the
 * formatter's marks (see line_members.h).
 *
 * Every value between two marks is short (a key's name, a number, a hex
 * id, a type's name), so it is walked in place: a key is compared with
 * the one expected as one 8-byte word, a string is searched for its end
 * eight bytes at a time, a number byte by byte; a library call per value
 * would cost more than the value.
 */
#include "read/line_members.h"

#include <string.h>

/* What is being built: the members so far, and which keys they have (a
 * key met twice is not what the formatter writes). */
typedef struct {
  const char *line;
  const char *line_end; /* bytes up to here may be read ahead */
  js_member_at *out;
  uint32_t cap, n;
  uint64_t seen[(K_KEY_COUNT + 63) / 64];
} members;

/* The line is shorter than 4 GiB (checked once), so offsets fit. */
static inline bool add(members *m, js_key key, const char *v, size_t len,
                       js_type type, bool escaped) {
  if (key == K_UNKNOWN) /* js_fields_decode keeps no unknown key */
    return true;
  uint64_t bit = 1ull << (key % 64);
  if ((m->seen[key / 64] & bit) || m->n == m->cap)
    return false;
  m->seen[key / 64] |= bit;
  js_member_at *out = &m->out[m->n++];
  out->off = (uint32_t)(v - m->line);
  out->len = (uint32_t)len;
  out->key = (uint8_t)key;
  out->type = (uint8_t)type;
  out->escaped = escaped;
  return true;
}

/* Each key's length, and its first 8 bytes as a word with the mask of
 * those that are its name (a shorter name's other bytes masked out). */
static void keys_ready(line_members_keys *keys) {
  for (int k = 1; k < K_KEY_COUNT; k++) {
    size_t n = js_key_length((js_key)k);
    char head[8] = {0};
    memcpy(head, js_key_name((js_key)k), n < 8 ? n : 8);
    memcpy(&keys->head[k], head, 8);
    memset(head, 0, 8);
    memset(head, 0xff, n < 8 ? n : 8);
    memcpy(&keys->head_mask[k], head, 8);
    keys->len[k] = (uint8_t)n;
  }
  keys->ready = true;
}

/* Is the text at k (8 bytes of it readable, and the key's name and one
 * more byte) the name of `key`, followed by its closing quote? */
static inline bool is_key(const line_members_keys *keys, js_key key,
                          const char *k) {
  size_t n = keys->len[key];
  uint64_t head;
  memcpy(&head, k, 8);
  return (head & keys->head_mask[key]) == keys->head[key] && k[n] == '"' &&
         (n <= 8 || memcmp(js_key_name(key) + 8, k + 8, n - 8) == 0);
}

/* The key whose name starts at k (past its opening quote) and that ends
 * before `end`: the one that followed `prev` last time when the bytes
 * are its name and closing quote, else found in the table. *after: past
 * its closing quote; false when there is none. */
static bool key_at(line_members_keys *keys, js_key prev, const char *k,
                   const char *end, const char *line_end, js_key *key,
                   const char **after) {
  js_key guess = keys->prev_next[prev];
  if (guess != K_UNKNOWN && line_end - k >= 8 && end - k > keys->len[guess] &&
      is_key(keys, guess, k)) {
    *key = guess;
    *after = k + keys->len[guess] + 1;
    return true;
  }
  const char *q = k;
  while (q < end && *q != '"' && *q != '\\')
    q++;
  if (q == end || *q != '"')
    return false; /* no end, or an escaped key: not the formatter's */
  *key = js_key_lookup(k, (size_t)(q - k));
  keys->prev_next[prev] = *key;
  *after = q + 1;
  return true;
}

/* How many of the 8 bytes of x (the first in the lowest bits) come
 * before the first quote or backslash (8: none). A borrow can only mark
 * a byte after a real match, so the lowest mark is the first match. */
static inline unsigned before_quote_or_backslash(uint64_t x) {
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
  uint64_t marks = ((q - ones) & ~q & highs) | ((b - ones) & ~b & highs);
  return marks ? (unsigned)__builtin_ctzll(marks) / 8 : 8;
}

/* The closing quote of the string whose first byte is at s, or NULL;
 * *escaped when a backslash is inside. Eight bytes at a time while the
 * line has them (reading past `end` but within the line is harmless) on a
 * little-endian machine, a byte at a time elsewhere. */
static const char *string_end(const char *s, const char *end,
                              const char *line_end, bool *escaped) {
  *escaped = false;
  const char *p = s;
  while (p < end) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (line_end - p >= 8) { /* the first byte in the lowest bits */
      uint64_t x;
      memcpy(&x, p, 8);
      unsigned k = before_quote_or_backslash(x);
      p += k;
      if (k == 8)
        continue;
    }
#endif
    if (p >= end)
      break;
    if (*p == '"')
      return p;
    if (*p == '\\') {
      *escaped = true;
      p += 2; /* and the escaped byte, whatever it is */
    } else {
      p++;
    }
  }
  return NULL;
}

/* The members of p[0, end): "key":value pairs separated by commas. In a
 * `nested` span (start, stop, details, states) the one member's value is
 * an object or array that takes the rest of the span; the others hold
 * scalars only. */
static bool split(members *m, line_members_keys *keys, js_key *prev,
                  const char *p, const char *end, bool nested) {
  while (p < end) {
    js_key key;
    const char *v;
    if (*p != '"' || !key_at(keys, *prev, p + 1, end, m->line_end, &key, &v) ||
        v >= end || *v != ':')
      return false;
    *prev = key;
    v++;
    bool ok;
    if (v == end) {
      return false;
    } else if (*v == '"') {
      bool escaped;
      const char *q = string_end(v + 1, end, m->line_end, &escaped);
      if (!q)
        return false;
      ok = add(m, key, v + 1, (size_t)(q - v - 1), JS_STRING, escaped);
      p = q + 1;
    } else if (nested != (*v == '{' || *v == '[')) {
      return false;
    } else if (nested) {
      ok = add(m, key, v, (size_t)(end - v), *v == '{' ? JS_OBJECT : JS_ARRAY,
               false);
      p = end;
    } else {
      const char *q = v;
      while (q < end && *q != ',')
        q++;
      js_type type = *v == 'n'   ? JS_NULL
                     : *v == 't' ? JS_TRUE
                     : *v == 'f' ? JS_FALSE
                                 : JS_NUMBER;
      ok = q > v && add(m, key, v, (size_t)(q - v), type, false);
      p = q;
    }
    if (!ok)
      return false;
    if (p < end && *p++ != ',')
      return false;
  }
  return true;
}

int line_members_of_event(line_members_keys *keys, const char *line, size_t len,
                          const line_marks *marks, js_member_at *out,
                          uint32_t cap) {
  const char *end = line + len; /* just past the closing brace */
  if (len < 2 || len > UINT32_MAX || line[0] != '{' || end[-1] != '}' ||
      marks->start >= len || marks->stop >= len || marks->duration >= len ||
      marks->details >= len || marks->states >= len)
    return -1;
  const char *close = end - 1;
  /* The spans between the marks, each starting past its mark's comma
   * (without states, the last is empty). */
  const char *at[6] = {line + 1,
                       line + marks->start + 1,
                       line + marks->stop + 1,
                       line + marks->duration + 1,
                       line + marks->details + 1,
                       marks->states ? line + marks->states + 1 : end};
  const char *to[6] = {line + marks->start,
                       line + marks->stop,
                       line + marks->duration,
                       line + marks->details,
                       marks->states ? line + marks->states : close,
                       close};
  static const bool nested[6] = {false, true, true, false, true, true};
  if (!keys->ready)
    keys_ready(keys);
  members m = {.line = line, .line_end = end, .out = out, .cap = cap};
  js_key prev = K_UNKNOWN;
  for (int i = 0; i < 6; i++) {
    if (at[i] < line + 1 || to[i] > close || to[i] < at[i] - 1)
      return -1; /* marks out of order: not this line's */
    if (i > 0 && at[i] - 1 != close && at[i][-1] != ',')
      return -1; /* a mark is the comma before its member */
    if (to[i] >= at[i] && !split(&m, keys, &prev, at[i], to[i], nested[i]))
      return -1;
  }
  return (int)m.n;
}
