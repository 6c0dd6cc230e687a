/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/util/jsonw.h — writing JSON to a stream (--json output, Perfetto).
 *
 * Commas are inserted automatically from a small nesting stack; strings are
 * escaped; doubles are written with a fixed number of decimals and `null`
 * when not finite; nanosecond times can be written as microseconds with
 * three decimals, exactly like the trace format. Output goes through the
 * writer's own buffer (no stdio call per value): call jw_flush() at the
 * end, and before writing to the same FILE any other way.
 */
#ifndef CCLSCOPE_CLI_JSONW_H
#define CCLSCOPE_CLI_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 32
#define JW_BUF 65536

typedef struct {
  FILE *out;
  int depth;
  bool need_comma[JW_MAX_DEPTH];
  bool after_key;
  size_t n;
  char buf[JW_BUF];
} jsonw;

void jw_init(jsonw *w, FILE *out);
/* Write out what is buffered (also fflush()es the FILE). */
void jw_flush(jsonw *w);
void jw_obj_begin(jsonw *w);
void jw_obj_end(jsonw *w);
void jw_arr_begin(jsonw *w);
void jw_arr_end(jsonw *w);
void jw_key(jsonw *w, const char *key);
void jw_str(jsonw *w, const char *s);
void jw_strn(jsonw *w, const char *s, size_t n);
void jw_u64(jsonw *w, uint64_t v);
void jw_i64(jsonw *w, int64_t v);
void jw_double(jsonw *w, double v, int decimals);
void jw_bool(jsonw *w, bool v);
void jw_null(jsonw *w);
void jw_hex(jsonw *w, uint64_t v);      /* "0x1f" */
void jw_ns_as_us(jsonw *w, int64_t ns); /* 1234.567 */
/* Raw JSON text (a value already valid, e.g. copied from the trace). */
void jw_raw(jsonw *w, const char *text, size_t n);
/* A newline (between big array elements, for readable files). */
void jw_newline(jsonw *w);

#endif
