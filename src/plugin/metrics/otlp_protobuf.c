/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/otlp_protobuf.c — see otlp_protobuf.h.
 *
 * The schema subset is a table per message: JSON name, field number and
 * wire type, from opentelemetry/proto/{collector/metrics/v1/
 * metrics_service,metrics/v1/metrics,common/v1/common,resource/v1/
 * resource}.proto. The JSON is read by a small recursive parser that
 * writes each field as it goes; a nested message is written in place and
 * its length prefix inserted in front of it when it closes.
 */
#include "otlp_protobuf.h"

#include <stdlib.h>
#include <string.h>

#include "config_parse.h"

/* How a field is written (protobuf wire types 0, 1 and 2). */
typedef enum {
  PB_MESSAGE,  /* length-delimited, a nested message */
  PB_STRING,   /* length-delimited, UTF-8 */
  PB_INT64,    /* varint, two's complement (AnyValue.intValue) */
  PB_ENUM,     /* varint */
  PB_BOOL,     /* varint 0/1 */
  PB_FIXED64,  /* 8 bytes little-endian, from a decimal string or number */
  PB_SFIXED64, /* 8 bytes little-endian, signed */
  PB_DOUBLE    /* 8 bytes little-endian IEEE 754 */
} pb_kind;

typedef struct pb_message pb_message;
typedef struct {
  const char *json_name;
  uint32_t number;
  pb_kind kind;
  bool packed;             /* a repeated scalar written as one run */
  const pb_message *inner; /* PB_MESSAGE only */
} pb_field;

struct pb_message {
  const pb_field *fields;
  size_t nfields;
};

#define PB_MSG(name, fields)                                                   \
  static const pb_message name = {fields, sizeof fields / sizeof fields[0]}

/* Declared before use: AnyValue and KeyValue refer to nothing further. */
static const pb_field any_value_fields[] = {
    {"stringValue", 1, PB_STRING, false, NULL},
    {"boolValue", 2, PB_BOOL, false, NULL},
    {"intValue", 3, PB_INT64, false, NULL},
    {"doubleValue", 4, PB_DOUBLE, false, NULL},
};
PB_MSG(any_value, any_value_fields);

static const pb_field key_value_fields[] = {
    {"key", 1, PB_STRING, false, NULL},
    {"value", 2, PB_MESSAGE, false, &any_value},
};
PB_MSG(key_value, key_value_fields);

static const pb_field number_point_fields[] = {
    {"attributes", 7, PB_MESSAGE, false, &key_value},
    {"startTimeUnixNano", 2, PB_FIXED64, false, NULL},
    {"timeUnixNano", 3, PB_FIXED64, false, NULL},
    {"asDouble", 4, PB_DOUBLE, false, NULL},
    {"asInt", 6, PB_SFIXED64, false, NULL},
    {"flags", 8, PB_ENUM, false, NULL},
};
PB_MSG(number_point, number_point_fields);

static const pb_field histogram_point_fields[] = {
    {"attributes", 9, PB_MESSAGE, false, &key_value},
    {"startTimeUnixNano", 2, PB_FIXED64, false, NULL},
    {"timeUnixNano", 3, PB_FIXED64, false, NULL},
    {"count", 4, PB_FIXED64, false, NULL},
    {"sum", 5, PB_DOUBLE, false, NULL},
    {"bucketCounts", 6, PB_FIXED64, true, NULL},
    {"explicitBounds", 7, PB_DOUBLE, true, NULL},
    {"flags", 10, PB_ENUM, false, NULL},
    {"min", 11, PB_DOUBLE, false, NULL},
    {"max", 12, PB_DOUBLE, false, NULL},
};
PB_MSG(histogram_point, histogram_point_fields);

static const pb_field gauge_fields[] = {
    {"dataPoints", 1, PB_MESSAGE, false, &number_point},
};
PB_MSG(gauge, gauge_fields);

static const pb_field sum_fields[] = {
    {"dataPoints", 1, PB_MESSAGE, false, &number_point},
    {"aggregationTemporality", 2, PB_ENUM, false, NULL},
    {"isMonotonic", 3, PB_BOOL, false, NULL},
};
PB_MSG(sum, sum_fields);

static const pb_field histogram_fields[] = {
    {"dataPoints", 1, PB_MESSAGE, false, &histogram_point},
    {"aggregationTemporality", 2, PB_ENUM, false, NULL},
};
PB_MSG(histogram, histogram_fields);

static const pb_field metric_fields[] = {
    {"name", 1, PB_STRING, false, NULL},
    {"description", 2, PB_STRING, false, NULL},
    {"unit", 3, PB_STRING, false, NULL},
    {"gauge", 5, PB_MESSAGE, false, &gauge},
    {"sum", 7, PB_MESSAGE, false, &sum},
    {"histogram", 9, PB_MESSAGE, false, &histogram},
};
PB_MSG(metric, metric_fields);

static const pb_field scope_fields[] = {
    {"name", 1, PB_STRING, false, NULL},
    {"version", 2, PB_STRING, false, NULL},
    {"attributes", 3, PB_MESSAGE, false, &key_value},
};
PB_MSG(scope, scope_fields);

static const pb_field scope_metrics_fields[] = {
    {"scope", 1, PB_MESSAGE, false, &scope},
    {"metrics", 2, PB_MESSAGE, false, &metric},
    {"schemaUrl", 3, PB_STRING, false, NULL},
};
PB_MSG(scope_metrics, scope_metrics_fields);

static const pb_field resource_fields[] = {
    {"attributes", 1, PB_MESSAGE, false, &key_value},
};
PB_MSG(resource, resource_fields);

static const pb_field resource_metrics_fields[] = {
    {"resource", 1, PB_MESSAGE, false, &resource},
    {"scopeMetrics", 2, PB_MESSAGE, false, &scope_metrics},
    {"schemaUrl", 3, PB_STRING, false, NULL},
};
PB_MSG(resource_metrics, resource_metrics_fields);

static const pb_field request_fields[] = {
    {"resourceMetrics", 1, PB_MESSAGE, false, &resource_metrics},
};
PB_MSG(export_request, request_fields);

/* ---- output ---- */

static bool reserve(cs_bytes *b, size_t more) {
  if (b->len + more <= b->cap)
    return true;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + more)
    cap *= 2;
  uint8_t *p = realloc(b->data, cap);
  if (!p)
    return false;
  b->data = p;
  b->cap = cap;
  return true;
}

static size_t varint_size(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7)
    n++;
  return n;
}

static void varint_at(uint8_t *p, uint64_t v) {
  for (; v >= 0x80; v >>= 7)
    *p++ = (uint8_t)(v | 0x80);
  *p = (uint8_t)v;
}

static bool put_varint(cs_bytes *b, uint64_t v) {
  if (!reserve(b, 10))
    return false;
  varint_at(b->data + b->len, v);
  b->len += varint_size(v);
  return true;
}

static bool put_tag(cs_bytes *b, uint32_t number, unsigned wire_type) {
  return put_varint(b, (uint64_t)number << 3 | wire_type);
}

static bool put_fixed64(cs_bytes *b, uint64_t v) {
  if (!reserve(b, 8))
    return false;
  for (int i = 0; i < 8; i++)
    b->data[b->len++] = (uint8_t)(v >> (8 * i));
  return true;
}

/* Put the length of everything written since `start` in front of it. */
static bool close_delimited(cs_bytes *b, size_t start) {
  size_t len = b->len - start, k = varint_size(len);
  if (!reserve(b, k))
    return false;
  memmove(b->data + start + k, b->data + start, len);
  varint_at(b->data + start, len);
  b->len += k;
  return true;
}

/* ---- input ---- */

typedef struct {
  const char *p, *end;
  char *scratch; /* a decoded string */
  size_t scratch_cap;
} reader;

static void skip_space(reader *r) {
  while (r->p < r->end &&
         (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
    r->p++;
}

static bool eat(reader *r, char c) {
  skip_space(r);
  if (r->p < r->end && *r->p == c) {
    r->p++;
    return true;
  }
  return false;
}

static bool read_hex4(reader *r, unsigned *out) {
  if (r->end - r->p < 4)
    return false;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    int d = cs_hex_digit_value(r->p[i]);
    if (d < 0)
      return false;
    v = v << 4 | (unsigned)d;
  }
  r->p += 4;
  *out = v;
  return true;
}

static size_t utf8_put(char *o, unsigned cp) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | cp >> 6);
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | cp >> 12);
    o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | cp >> 18);
  o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
  o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* A JSON string, decoded into r->scratch (NUL-terminated; *len bytes). */
static bool read_string(reader *r, size_t *len) {
  if (!eat(r, '"'))
    return false;
  size_t n = 0;
  for (;;) {
    if (r->p >= r->end)
      return false;
    if (n + 5 > r->scratch_cap) {
      size_t cap = r->scratch_cap ? 2 * r->scratch_cap : 256;
      char *s = realloc(r->scratch, cap);
      if (!s)
        return false;
      r->scratch = s;
      r->scratch_cap = cap;
    }
    char c = *r->p++;
    if (c == '"')
      break;
    if (c != '\\') {
      r->scratch[n++] = c;
      continue;
    }
    if (r->p >= r->end)
      return false;
    char e = *r->p++;
    unsigned cp;
    switch (e) {
    case '"':
    case '\\':
    case '/':
      r->scratch[n++] = e;
      break;
    case 'b':
      r->scratch[n++] = '\b';
      break;
    case 'f':
      r->scratch[n++] = '\f';
      break;
    case 'n':
      r->scratch[n++] = '\n';
      break;
    case 'r':
      r->scratch[n++] = '\r';
      break;
    case 't':
      r->scratch[n++] = '\t';
      break;
    case 'u':
      if (!read_hex4(r, &cp))
        return false;
      if (cp >= 0xD800 && cp < 0xDC00) { /* a surrogate pair */
        unsigned lo;
        if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
          return false;
        r->p += 2;
        if (!read_hex4(r, &lo) || lo < 0xDC00 || lo > 0xDFFF)
          return false;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      }
      n += utf8_put(r->scratch + n, cp);
      break;
    default:
      return false;
    }
  }
  r->scratch[n] = '\0';
  *len = n;
  return true;
}

/* A number, or a number in a string (64-bit integers in the JSON
 * mapping), as text in `buf`. "null" gives an empty text. */
static bool read_number_text(reader *r, char *buf, size_t buflen) {
  skip_space(r);
  if (r->p < r->end && *r->p == '"') {
    size_t n;
    if (!read_string(r, &n) || n == 0 || n >= buflen)
      return false;
    memcpy(buf, r->scratch, n + 1);
    return true;
  }
  if (r->end - r->p >= 4 && memcmp(r->p, "null", 4) == 0) {
    r->p += 4;
    buf[0] = '\0';
    return true;
  }
  size_t n = 0;
  while (r->p < r->end && n + 1 < buflen && strchr("+-0123456789.eE", *r->p) &&
         *r->p)
    buf[n++] = *r->p++;
  buf[n] = '\0';
  return n > 0;
}

static bool read_bool(reader *r, bool *v) {
  skip_space(r);
  if (r->end - r->p >= 4 && memcmp(r->p, "true", 4) == 0) {
    r->p += 4;
    *v = true;
    return true;
  }
  if (r->end - r->p >= 5 && memcmp(r->p, "false", 5) == 0) {
    r->p += 5;
    *v = false;
    return true;
  }
  return false;
}

/* ---- transcoding ---- */

static bool write_message(reader *r, const pb_message *m, cs_bytes *out);

/* One scalar: its tag unless packed, then its value. "null": nothing. */
static bool write_scalar(reader *r, const pb_field *f, cs_bytes *out) {
  char text[64];
  char *end;
  if (f->kind == PB_STRING) {
    size_t n;
    if (!read_string(r, &n) || !put_tag(out, f->number, 2) ||
        !put_varint(out, n) || !reserve(out, n))
      return false;
    memcpy(out->data + out->len, r->scratch, n);
    out->len += n;
    return true;
  }
  if (f->kind == PB_BOOL) {
    bool v;
    return read_bool(r, &v) && put_tag(out, f->number, 0) &&
           put_varint(out, v ? 1 : 0);
  }
  if (!read_number_text(r, text, sizeof text))
    return false;
  if (!text[0])
    return true; /* null */
  bool wire64 =
      f->kind == PB_FIXED64 || f->kind == PB_SFIXED64 || f->kind == PB_DOUBLE;
  if (!f->packed && !put_tag(out, f->number, wire64 ? 1 : 0))
    return false;
  switch (f->kind) {
  case PB_DOUBLE: {
    double d = strtod(text, &end);
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return *end == '\0' && put_fixed64(out, bits);
  }
  case PB_FIXED64: {
    unsigned long long v = strtoull(text, &end, 10);
    return *end == '\0' && text[0] != '-' && put_fixed64(out, v);
  }
  case PB_SFIXED64: {
    long long v = strtoll(text, &end, 10);
    return *end == '\0' && put_fixed64(out, (uint64_t)v);
  }
  default: { /* PB_INT64, PB_ENUM: negative values take ten bytes */
    long long v = strtoll(text, &end, 10);
    return *end == '\0' && put_varint(out, (uint64_t)v);
  }
  }
}

/* One value of field `f`; for a message, its tag, length and content. */
static bool write_value(reader *r, const pb_field *f, cs_bytes *out) {
  if (f->kind != PB_MESSAGE)
    return write_scalar(r, f, out);
  if (!put_tag(out, f->number, 2))
    return false;
  size_t start = out->len;
  return write_message(r, f->inner, out) && close_delimited(out, start);
}

/* A field's JSON value: one value, or an array of them (repeated). */
static bool write_field(reader *r, const pb_field *f, cs_bytes *out) {
  skip_space(r);
  if (r->p >= r->end || *r->p != '[')
    return write_value(r, f, out);
  r->p++;
  size_t start = 0;
  if (f->packed) {
    if (!put_tag(out, f->number, 2))
      return false;
    start = out->len;
  }
  if (!eat(r, ']')) {
    do {
      if (!write_value(r, f, out))
        return false;
    } while (eat(r, ','));
    if (!eat(r, ']'))
      return false;
  }
  return !f->packed || close_delimited(out, start);
}

static const pb_field *find_field(const pb_message *m, const char *name) {
  for (size_t i = 0; i < m->nfields; i++)
    if (strcmp(m->fields[i].json_name, name) == 0)
      return &m->fields[i];
  return NULL;
}

/* An object's fields, written without tag or length (the caller's). */
static bool write_message(reader *r, const pb_message *m, cs_bytes *out) {
  if (!eat(r, '{'))
    return false;
  if (eat(r, '}'))
    return true;
  do {
    size_t n;
    if (!read_string(r, &n) || !eat(r, ':'))
      return false;
    const pb_field *f = find_field(m, r->scratch);
    if (!f || !write_field(r, f, out))
      return false; /* a key outside the subset: refuse, never guess */
  } while (eat(r, ','));
  return eat(r, '}');
}

bool cs_otlp_json_to_protobuf(const char *json, size_t len, cs_bytes *out) {
  reader r = {.p = json, .end = json + len};
  bool ok = write_message(&r, &export_request, out);
  skip_space(&r);
  ok = ok && r.p == r.end;
  free(r.scratch);
  return ok;
}
