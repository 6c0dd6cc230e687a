/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/otlp_env.c — see otlp_env.h.
 *
 * The lists follow the OpenTelemetry specification's rules for
 * OTEL_EXPORTER_OTLP_HEADERS (the W3C baggage form without its ';'
 * properties) and OTEL_RESOURCE_ATTRIBUTES: pairs separated by ',', key and
 * value by the first '=', spaces and tabs around either trimmed, %XX
 * sequences decoded (so ',' and '=' can be written %2C and %3D). Decoding
 * is what makes a header dangerous: "a=b%0D%0AX-Injected:%201" decodes to
 * a value holding CR LF, which libcurl would send as it is, starting a
 * header line of the user's making. Such a header is refused.
 */
#include "otlp_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config_parse.h"
#include "log.h"

/* ---- OTEL_* key=value lists ---- */

size_t cs_otlp_percent_decode(const char *in, size_t in_len, char *out,
                              size_t outlen) {
  size_t n = 0;
  if (outlen == 0)
    return 0;
  for (size_t i = 0; i < in_len && n + 1 < outlen; i++) {
    bool escape = in[i] == '%' && i + 2 < in_len;
    int hi = escape ? cs_hex_digit_value(in[i + 1]) : -1;
    int lo = escape ? cs_hex_digit_value(in[i + 2]) : -1;
    if (hi >= 0 && lo >= 0) {
      out[n++] = (char)(hi << 4 | lo);
      i += 2;
    } else {
      out[n++] = in[i];
    }
  }
  out[n] = '\0';
  return n;
}

static bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

/* [*start, *end) without the spaces and tabs at either end. */
static void trim(const char **start, const char **end) {
  while (*start < *end && is_blank(**start))
    (*start)++;
  while (*end > *start && is_blank((*end)[-1]))
    (*end)--;
}

bool cs_otlp_each_pair(const char *list, cs_otlp_pair_fn each, void *arg) {
  if (!list)
    return true;
  if (strnlen(list, CS_OTLP_LIST_MAX) >= CS_OTLP_LIST_MAX)
    return false;
  /* Decoding never lengthens text: a buffer as long as the list fits any
   * of its keys or values. */
  char written_key[CS_OTLP_LIST_MAX], key[CS_OTLP_LIST_MAX];
  char value[CS_OTLP_LIST_MAX];
  for (const char *item = list; *item;) {
    const char *item_end = strchr(item, ',');
    if (!item_end)
      item_end = item + strlen(item);
    const char *eq = memchr(item, '=', (size_t)(item_end - item));
    if (eq) {
      const char *k = item, *k_end = eq, *v = eq + 1, *v_end = item_end;
      trim(&k, &k_end);
      trim(&v, &v_end);
      if (k < k_end) {
        size_t written_len = (size_t)(k_end - k);
        memcpy(written_key, k, written_len);
        written_key[written_len] = '\0';
        cs_otlp_pair pair = {
            .written_key = written_key, .key = key, .value = value};
        pair.key_len = cs_otlp_percent_decode(k, written_len, key, sizeof key);
        pair.value_len =
            cs_otlp_percent_decode(v, (size_t)(v_end - v), value, sizeof value);
        each(&pair, arg);
      }
    }
    item = *item_end ? item_end + 1 : item_end;
  }
  return true;
}

/* ---- the request ---- */

cs_otlp_encoding cs_otlp_encoding_of(const char *protocol, bool *known) {
  *known = true;
  if (!protocol || strcmp(protocol, "http/protobuf") == 0)
    return CS_OTLP_PROTOBUF;
  if (strcmp(protocol, "http/json") == 0)
    return CS_OTLP_JSON;
  *known = false;
  return CS_OTLP_PROTOBUF;
}

/* The first of the _METRICS_ variable and the general one that is set and
 * not empty (the specification's rule: empty means unset); *used names it. */
static const char *otel_env(const char *metrics_var, const char *var,
                            const char **used) {
  const char *v = getenv(metrics_var);
  *used = metrics_var;
  if (!v || !*v) {
    v = getenv(var);
    *used = var;
  }
  return v && *v ? v : NULL;
}

cs_otlp_wire cs_otlp_wire_from_env(const char *url) {
  cs_otlp_wire wire = {.encoding = CS_OTLP_PROTOBUF, .gzip_var = NULL};
  const char *var;
  cs_log_shown shown;
  const char *protocol = otel_env("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
                                  "OTEL_EXPORTER_OTLP_PROTOCOL", &var);
  bool known;
  wire.encoding = cs_otlp_encoding_of(protocol, &known);
  if (!known)
    cs_log_warn("%s='%s' is not supported (only http/protobuf and "
                "http/json); pushing OTLP/HTTP protobuf to %s instead (a gRPC "
                "port, usually 4317, does not take it: point the endpoint at "
                "the collector's OTLP/HTTP port, usually 4318)",
                var, cs_log_show(protocol, &shown), url);
  const char *compression = otel_env("OTEL_EXPORTER_OTLP_METRICS_COMPRESSION",
                                     "OTEL_EXPORTER_OTLP_COMPRESSION", &var);
  if (compression && strcmp(compression, "gzip") == 0)
    wire.gzip_var = var;
  else if (compression && strcmp(compression, "none") != 0)
    cs_log_warn("%s='%s' is not supported (only gzip and none); pushing "
                "uncompressed",
                var, cs_log_show(compression, &shown));
  return wire;
}

/* Why an endpoint cannot be used as a URL, or NULL. libcurl puts its path
 * in the request line and its host in the Host header: a control
 * character or a space there would end them early. */
static const char *endpoint_problem(const char *url, size_t buflen) {
  for (const char *p = url; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c <= 0x20 || c == 0x7F)
      return "a URL holds no space or control character: %-encode them";
  }
  if (strlen(url) >= buflen)
    return "too long";
  return NULL;
}

/* A set endpoint variable that could not be used, for its warning. */
typedef struct {
  const char *var, *value, *problem;
} refused_endpoint;

const char *cs_otlp_endpoint_from_env(char *buf, size_t buflen) {
  static const struct {
    const char *var;
    bool add_path; /* the general endpoint: + "/v1/metrics" */
  } sources[] = {{"CCLSCOPE_OTLP_ENDPOINT", false},
                 {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", false},
                 {"OTEL_EXPORTER_OTLP_ENDPOINT", true}};
  enum { N_SOURCES = sizeof sources / sizeof sources[0] };
  refused_endpoint refused[N_SOURCES];
  int n_refused = 0;
  const char *used = NULL;
  for (int i = 0; i < N_SOURCES && !used; i++) {
    const char *v = getenv(sources[i].var);
    if (!v || !*v)
      continue;
    const char *problem = endpoint_problem(v, buflen);
    if (!problem) {
      size_t n = strlen(v);
      const char *path = !sources[i].add_path ? ""
                         : v[n - 1] == '/'    ? "v1/metrics"
                                              : "/v1/metrics";
      if (n + strlen(path) >= buflen)
        problem = "too long";
      else
        snprintf(buf, buflen, "%s%s", v, path);
    }
    if (problem)
      refused[n_refused++] = (refused_endpoint){sources[i].var, v, problem};
    else
      used = sources[i].var;
  }
  for (int i = 0; i < n_refused; i++) {
    cs_log_shown shown;
    cs_log_warn("%s='%s' is invalid (%s); using %s", refused[i].var,
                cs_log_show(refused[i].value, &shown), refused[i].problem,
                used ? used : "none: no OTLP push");
  }
  return used ? buf : NULL;
}

/* ---- extra headers ---- */

/* RFC 9110's tchar: what a header's name is made of. */
static bool is_token_char(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
      (c >= 'A' && c <= 'Z'))
    return true;
  return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

const char *cs_otlp_header_refusal(const cs_otlp_pair *header) {
  static const char *const own[] = {"Content-Type", "Content-Encoding",
                                    "Content-Length", "Transfer-Encoding"};
  for (size_t i = 0; i < header->key_len; i++)
    if (!is_token_char((unsigned char)header->key[i]))
      return "its name, decoded, is not an HTTP token: letters, digits and "
             "!#$%&'*+-.^_`|~ only";
  for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
    if (strcasecmp(header->key, own[i]) == 0)
      return "cclscope writes this header itself";
  for (size_t i = 0; i < header->value_len; i++) {
    unsigned char c = (unsigned char)header->value[i];
    if (c == '\r' || c == '\n')
      return "its value, decoded, holds a CR or LF, which would start a "
             "header line of its own";
    if (c == '\0')
      return "its value, decoded, holds a NUL";
    if ((c < 0x20 && c != '\t') || c == 0x7F)
      return "its value, decoded, holds a control character";
  }
  return NULL;
}

/* What cs_otlp_headers_parse passes to keep_header. */
typedef struct {
  const char *var;
  cs_otlp_headers *out;
} header_list;

/* One pair of the list: into out->lines, or refused with a warning. */
static void keep_header(const cs_otlp_pair *header, void *arg) {
  header_list *list = arg;
  cs_otlp_headers *out = list->out;
  const char *why = cs_otlp_header_refusal(header);
  size_t line_len = header->key_len + 2 + header->value_len;
  if (!why && line_len + 1 > sizeof out->lines - out->used)
    why = "no room is left for it";
  if (why) {
    cs_log_shown shown;
    cs_log_warn("%s: the header '%s' is not sent (%s)", list->var,
                cs_log_show(header->written_key, &shown), why);
    return;
  }
  char *line = out->lines + out->used;
  /* "Name;" is libcurl's way to send a header with an empty value:
   * "Name:" alone would remove one of its own instead. */
  if (header->value_len == 0)
    snprintf(line, sizeof out->lines - out->used, "%s;", header->key);
  else
    snprintf(line, sizeof out->lines - out->used, "%s: %s", header->key,
             header->value);
  out->used += strlen(line) + 1;
  out->count++;
}

void cs_otlp_headers_parse(const char *var, const char *list,
                           cs_otlp_headers *out) {
  out->used = 0;
  out->count = 0;
  header_list state = {.var = var, .out = out};
  if (!cs_otlp_each_pair(list, keep_header, &state))
    cs_log_warn("%s is %zu characters long, more than %d: none of its "
                "headers is sent",
                var, strlen(list), CS_OTLP_LIST_MAX - 1);
}

void cs_otlp_headers_from_env(cs_otlp_headers *out) {
  const char *var;
  const char *list = otel_env("OTEL_EXPORTER_OTLP_METRICS_HEADERS",
                              "OTEL_EXPORTER_OTLP_HEADERS", &var);
  cs_otlp_headers_parse(var, list, out);
}
