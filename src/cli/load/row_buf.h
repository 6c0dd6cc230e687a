/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/row_buf.h — rows in ClickHouse's TabSeparated text, built in
 * a growable buffer: one call per column, then the end of the row. Strings
 * are escaped as the format wants (backslash, tab, newline); NULL is \N.
 * A failed allocation is remembered (`failed`) and checked once, when the
 * buffer is sent.
 */
#ifndef CCLSCOPE_CLI_LOAD_ROW_BUF_H
#define CCLSCOPE_CLI_LOAD_ROW_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/jsonl_scan.h"

typedef struct {
  char *data;
  size_t len;    /* bytes of text so far */
  size_t cap;    /* bytes allocated */
  uint64_t rows; /* rows ended so far */
  bool failed;   /* an allocation failed: the text is incomplete */
} row_buf;

void row_buf_init(row_buf *b);
void row_buf_free(row_buf *b);
/* Empty it (keeps the allocation). */
void row_buf_clear(row_buf *b);

/* Plain bytes, unescaped (for the callers' own text). */
void row_buf_raw(row_buf *b, const char *text, size_t len);

/* One column each. */
void row_str(row_buf *b, const char *text, size_t len);
void row_cstr(row_buf *b, const char *text);
void row_null(row_buf *b);
void row_i64(row_buf *b, int64_t v);
void row_u64(row_buf *b, uint64_t v);
/* A JSON string value decoded (escapes undone), a JSON value's text as it
 * is (objects, arrays: for JSONExtract), or `absent` when the value is
 * missing or null: "" for a String column, NULL for a Nullable one. */
void row_json_str(row_buf *b, const js_value *v, bool null_when_absent);
void row_json_text(row_buf *b, const js_value *v);
/* A JSON number's text as it is (exact; Float64 columns), \N when not a
 * number. */
void row_json_number(row_buf *b, const js_value *v);
/* Ends the row. */
void row_end(row_buf *b);

#endif
