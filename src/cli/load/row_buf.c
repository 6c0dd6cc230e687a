/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/row_buf.c — TabSeparated rows in a growable buffer
 * (row_buf.h). Every column is followed by a tab; row_end turns the last
 * tab into the newline.
 */
#include "load/row_buf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void row_buf_init(row_buf *b) {
  memset(b, 0, sizeof *b);
}

void row_buf_free(row_buf *b) {
  free(b->data);
  row_buf_init(b);
}

void row_buf_clear(row_buf *b) {
  b->len = 0;
  b->rows = 0;
  b->failed = false;
}

static bool reserve(row_buf *b, size_t more) {
  if (b->failed)
    return false;
  if (b->len + more <= b->cap)
    return true;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + more)
    cap *= 2;
  char *d = realloc(b->data, cap);
  if (!d) {
    b->failed = true;
    return false;
  }
  b->data = d;
  b->cap = cap;
  return true;
}

void row_buf_raw(row_buf *b, const char *text, size_t len) {
  if (!reserve(b, len))
    return;
  memcpy(b->data + b->len, text, len);
  b->len += len;
}

static void tab(row_buf *b) {
  row_buf_raw(b, "\t", 1);
}

/* The bytes escaped for TabSeparated, without the tab. */
static void escaped(row_buf *b, const char *text, size_t len) {
  if (!reserve(b, 2 * len))
    return;
  char *o = b->data + b->len;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    switch (c) {
    case '\\':
      *o++ = '\\';
      *o++ = '\\';
      break;
    case '\t':
      *o++ = '\\';
      *o++ = 't';
      break;
    case '\n':
      *o++ = '\\';
      *o++ = 'n';
      break;
    case '\r':
      *o++ = '\\';
      *o++ = 'r';
      break;
    case '\0':
      *o++ = '\\';
      *o++ = '0';
      break;
    default:
      *o++ = c;
    }
  }
  b->len = (size_t)(o - b->data);
}

void row_str(row_buf *b, const char *text, size_t len) {
  escaped(b, text, len);
  tab(b);
}

void row_cstr(row_buf *b, const char *text) {
  row_str(b, text ? text : "", text ? strlen(text) : 0);
}

void row_null(row_buf *b) {
  row_buf_raw(b, "\\N\t", 3);
}

void row_i64(row_buf *b, int64_t v) {
  char t[24];
  int n = snprintf(t, sizeof t, "%" PRId64 "\t", v);
  row_buf_raw(b, t, (size_t)n);
}

void row_u64(row_buf *b, uint64_t v) {
  char t[24];
  int n = snprintf(t, sizeof t, "%" PRIu64 "\t", v);
  row_buf_raw(b, t, (size_t)n);
}

void row_json_str(row_buf *b, const js_value *v, bool null_when_absent) {
  if (!v || v->type != JS_STRING) {
    if (null_when_absent)
      row_null(b);
    else
      tab(b);
    return;
  }
  if (!v->escaped) {
    row_str(b, v->ptr, v->len);
    return;
  }
  /* decoded text is never longer than its escaped form */
  char small[512];
  char *t = v->len < sizeof small ? small : malloc(v->len + 1);
  if (!t) {
    b->failed = true;
    return;
  }
  js_str_copy(v, t, v->len + 1);
  row_str(b, t, strlen(t));
  if (t != small)
    free(t);
}

void row_json_text(row_buf *b, const js_value *v) {
  if (!v || v->type == JS_NONE || v->type == JS_NULL)
    tab(b);
  else
    row_str(b, v->ptr, v->len);
}

void row_json_number(row_buf *b, const js_value *v) {
  if (!v || v->type != JS_NUMBER)
    row_null(b);
  else
    row_str(b, v->ptr, v->len);
}

void row_end(row_buf *b) {
  if (b->failed || b->len == 0)
    return;
  b->data[b->len - 1] = '\n';
  b->rows++;
}
