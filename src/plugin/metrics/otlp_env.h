/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/otlp_env.h — the OTLP push's settings from the
 * OpenTelemetry exporter variables (docs/metrics.md, "The OTLP push"), read
 * and checked before anything reaches libcurl: the endpoint, the protocol
 * and compression (each warning names the variable that was read), the
 * extra request headers, and the reader of OTEL_* "k1=v1,k2=v2" lists that
 * OTEL_RESOURCE_ATTRIBUTES shares.
 *
 * Nothing the user writes becomes part of the request's head unchecked: an
 * endpoint with a control character or a space is refused, and so is a
 * header whose decoded name is not an HTTP token or whose decoded value
 * holds a control character (CR, LF, NUL...), each with one warning.
 * Run when the exporter starts (writer thread), never on the hot path.
 */
#ifndef CCLSCOPE_OTLP_ENV_H
#define CCLSCOPE_OTLP_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* ---- OTEL_* key=value lists ---- */

/* A list this long or longer is ignored whole. */
enum { CS_OTLP_LIST_MAX = 2048 };

/* One pair of a list, decoded. */
typedef struct {
  const char *written_key; /* the key as written: trimmed, not decoded */
  const char *key;         /* the key, %XX decoded */
  size_t key_len;          /* decoded length: more than strlen(key) when a
                              %00 was decoded */
  const char *value;       /* the value, %XX decoded */
  size_t value_len;        /* decoded length, as key_len */
} cs_otlp_pair;

/* %XX sequences of in[0..in_len) decoded into out (a '%' not followed by
 * two hex digits stays as it is); returns the decoded length, which counts
 * a decoded %00. out is always NUL-terminated; with outlen > in_len nothing
 * is cut. */
size_t cs_otlp_percent_decode(const char *in, size_t in_len, char *out,
                              size_t outlen);

/* Calls `each` for every pair of an OTEL_* list ("k1=v1,k2=v2", as in
 * OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES): key and value
 * without the spaces and tabs around them, then %XX decoded. Pairs without
 * '=' or with an empty key are skipped. False (and no call) when the list
 * is CS_OTLP_LIST_MAX bytes or longer. */
typedef void (*cs_otlp_pair_fn)(const cs_otlp_pair *pair, void *arg);
bool cs_otlp_each_pair(const char *list, cs_otlp_pair_fn each, void *arg);

/* ---- the request ---- */

/* How bodies are encoded (OTEL_EXPORTER_OTLP_[METRICS_]PROTOCOL). */
typedef enum { CS_OTLP_PROTOBUF, CS_OTLP_JSON } cs_otlp_encoding;

/* "http/protobuf" (also the default: NULL) or "http/json"; anything else
 * (grpc) sets *known false and gives the fallback, protobuf. */
cs_otlp_encoding cs_otlp_encoding_of(const char *protocol, bool *known);

/* The endpoint from CCLSCOPE_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_
 * ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/metrics", the first set
 * one that is usable; NULL if none. One that holds a control character or a
 * space, or does not fit in buflen, gets a warning and is treated as unset. */
const char *cs_otlp_endpoint_from_env(char *buf, size_t buflen);

/* OTEL_EXPORTER_OTLP_[METRICS_]PROTOCOL and _COMPRESSION. */
typedef struct {
  cs_otlp_encoding encoding;
  const char *gzip_var; /* the variable that asked for gzip; NULL: none */
} cs_otlp_wire;

/* The _METRICS_ variables win; an unsupported value gets one warning that
 * names the variable it came from (`url` says where the push goes). */
cs_otlp_wire cs_otlp_wire_from_env(const char *url);

/* ---- extra headers ---- */

/* Why a header may not be sent, or NULL when it may: its decoded name must
 * be an HTTP token and not one the exporter writes itself or that frames
 * the body (Content-Type, Content-Encoding, Content-Length,
 * Transfer-Encoding); its decoded value may hold tabs but no other control
 * character (CR, LF, NUL, DEL...). */
const char *cs_otlp_header_refusal(const cs_otlp_pair *header);

enum { CS_OTLP_HEADERS_MAX = 2 * CS_OTLP_LIST_MAX };

/* The headers to send, ready for libcurl. */
typedef struct {
  char lines[CS_OTLP_HEADERS_MAX]; /* "Name: value" (or "Name;" for an
                                      empty value), each NUL-terminated,
                                      one after another */
  size_t used;                     /* bytes of `lines` in use */
  int count;                       /* how many lines */
} cs_otlp_headers;

/* The headers of `list`, read from variable `var`: every refused header
 * gets one warning naming `var` and the header's name (as written,
 * control characters as '?') and is left out; the others are kept in
 * order. A list too long to read gets one warning and gives none. */
void cs_otlp_headers_parse(const char *var, const char *list,
                           cs_otlp_headers *out);

/* cs_otlp_headers_parse of OTEL_EXPORTER_OTLP_METRICS_HEADERS, else (unset
 * or empty) OTEL_EXPORTER_OTLP_HEADERS. */
void cs_otlp_headers_from_env(cs_otlp_headers *out);

#endif
