/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/load_schema.c — the compiled-in DDL filled in and cut into
 * statements (load_schema.h).
 */
#include "load/load_schema.h"

#include <stdlib.h>
#include <string.h>

static const char *value_of(const schema_vars *v, const char *name,
                            size_t len) {
  static const struct {
    const char *name;
    size_t offset;
  } table[] = {{"DB", offsetof(schema_vars, db)},
               {"PREFIX", offsetof(schema_vars, prefix)},
               {"LOCAL", offsetof(schema_vars, local)},
               {"ON_CLUSTER", offsetof(schema_vars, on_cluster)},
               {"CLUSTER", offsetof(schema_vars, cluster)}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strlen(table[i].name) == len && memcmp(table[i].name, name, len) == 0) {
      const char *value =
          *(const char *const *)((const char *)v + table[i].offset);
      return value ? value : "";
    }
  return NULL;
}

/* Append n bytes to the growing result. */
static bool put(char **out, size_t *len, size_t *cap, const char *s, size_t n) {
  if (*len + n + 1 > *cap) {
    size_t ncap = (*cap ? *cap * 2 : 4096) + n;
    char *o = realloc(*out, ncap);
    if (!o)
      return false;
    *out = o;
    *cap = ncap;
  }
  memcpy(*out + *len, s, n);
  *len += n;
  (*out)[*len] = '\0';
  return true;
}

char *schema_fill(const char *text, const schema_vars *v,
                  const char **unknown) {
  char *out = NULL;
  size_t len = 0, cap = 0;
  *unknown = NULL;
  bool ok = put(&out, &len, &cap, "", 0);
  for (const char *line = text; ok && *line;) {
    const char *nl = strchr(line, '\n');
    const char *end = nl ? nl + 1 : line + strlen(line);
    const char *first = line;
    while (first < end && (*first == ' ' || *first == '\t'))
      first++;
    if (!(end - first >= 2 && first[0] == '-' && first[1] == '-')) {
      for (const char *p = line; ok && p < end;) {
        const char *d = memchr(p, '$', (size_t)(end - p));
        if (!d) {
          ok = put(&out, &len, &cap, p, (size_t)(end - p));
          break;
        }
        ok = put(&out, &len, &cap, p, (size_t)(d - p));
        const char *close =
            d[1] == '{' ? memchr(d, '}', (size_t)(end - d)) : NULL;
        const char *value =
            close ? value_of(v, d + 2, (size_t)(close - d - 2)) : NULL;
        if (!value) {
          *unknown = d;
          free(out);
          return NULL;
        }
        ok = ok && put(&out, &len, &cap, value, strlen(value));
        p = close + 1;
      }
    }
    line = end;
  }
  if (!ok) {
    free(out);
    return NULL;
  }
  return out;
}

char *schema_next_statement(char **cursor) {
  char *p = *cursor;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  if (!*p)
    return NULL;
  char *semi = strchr(p, ';');
  if (semi) {
    *semi = '\0';
    *cursor = semi + 1;
  } else {
    *cursor = p + strlen(p);
  }
  return p;
}
