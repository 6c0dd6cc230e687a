/*
 * src/cli/jsonw.c — see jsonw.h.
 */
#include "jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void jw_init(jsonw *w, FILE *out) {
  memset(w, 0, sizeof *w);
  w->out = out;
}

static void before_value(jsonw *w) {
  if (w->after_key) {
    w->after_key = false;
    return;
  }
  if (w->depth > 0) {
    if (w->need_comma[w->depth - 1])
      fputc(',', w->out);
    w->need_comma[w->depth - 1] = true;
  }
}

static void open(jsonw *w, char c) {
  before_value(w);
  fputc(c, w->out);
  if (w->depth < JW_MAX_DEPTH)
    w->need_comma[w->depth] = false;
  w->depth++;
}

static void close_(jsonw *w, char c) {
  if (w->depth > 0)
    w->depth--;
  fputc(c, w->out);
}

void jw_obj_begin(jsonw *w) {
  open(w, '{');
}
void jw_obj_end(jsonw *w) {
  close_(w, '}');
}
void jw_arr_begin(jsonw *w) {
  open(w, '[');
}
void jw_arr_end(jsonw *w) {
  close_(w, ']');
}

void jw_write_escaped(FILE *out, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    fwrite(s + run, 1, i - run, out);
    run = i + 1;
    switch (c) {
    case '"':
      fputs("\\\"", out);
      break;
    case '\\':
      fputs("\\\\", out);
      break;
    case '\n':
      fputs("\\n", out);
      break;
    case '\t':
      fputs("\\t", out);
      break;
    default: {
      char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      fwrite(esc, 1, 6, out);
    }
    }
  }
  fwrite(s + run, 1, n - run, out);
}

void jw_key(jsonw *w, const char *key) {
  before_value(w);
  fputc('"', w->out);
  jw_write_escaped(w->out, key, strlen(key));
  fputs("\":", w->out);
  w->after_key = true;
}

void jw_strn(jsonw *w, const char *s, size_t n) {
  before_value(w);
  fputc('"', w->out);
  jw_write_escaped(w->out, s, n);
  fputc('"', w->out);
}

void jw_str(jsonw *w, const char *s) {
  if (!s) {
    jw_null(w);
    return;
  }
  jw_strn(w, s, strlen(s));
}

void jw_u64(jsonw *w, uint64_t v) {
  before_value(w);
  fprintf(w->out, "%" PRIu64, v);
}

void jw_i64(jsonw *w, int64_t v) {
  before_value(w);
  fprintf(w->out, "%" PRId64, v);
}

void jw_double(jsonw *w, double v, int decimals) {
  before_value(w);
  if (!isfinite(v))
    fputs("null", w->out);
  else
    fprintf(w->out, "%.*f", decimals, v);
}

void jw_bool(jsonw *w, bool v) {
  before_value(w);
  fputs(v ? "true" : "false", w->out);
}

void jw_null(jsonw *w) {
  before_value(w);
  fputs("null", w->out);
}

void jw_hex(jsonw *w, uint64_t v) {
  before_value(w);
  fprintf(w->out, "\"0x%" PRIx64 "\"", v);
}

void jw_ns_as_us(jsonw *w, int64_t ns) {
  before_value(w);
  uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  fprintf(w->out, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", mag / 1000,
          (unsigned)(mag % 1000));
}

void jw_raw(jsonw *w, const char *text, size_t n) {
  before_value(w);
  fwrite(text, 1, n, w->out);
}

void jw_newline(jsonw *w) {
  fputc('\n', w->out);
}
