/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/load_state.c — markers and stored lines of one file
 * (load_state.h), read with two queries:
 *
 *   SELECT tableName FROM db.<prefix>loads WHERE runId = ... AND file = ...
 *   SELECT 'timing', line FROM db.<prefix>timing WHERE runId = ... AND
 *     file = ... UNION ALL SELECT 'comms', line FROM ... (the tables
 *     without a marker)
 *
 * whose TabSeparated answers are parsed as they arrive.
 */
#include "load/load_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool line_set_has(const line_set *s, uint64_t line) {
  return line < s->nbits && (s->bits[line >> 3] >> (line & 7)) & 1;
}

static void line_set_add(line_set *s, uint64_t line) {
  if (s->failed || line > ((uint64_t)1 << 40))
    return;
  if (line >= s->nbits) {
    uint64_t n = s->nbits ? s->nbits : 1 << 16;
    while (n <= line)
      n *= 2;
    uint8_t *b = realloc(s->bits, n / 8);
    if (!b) {
      s->failed = true;
      return;
    }
    memset(b + s->nbits / 8, 0, (n - s->nbits) / 8);
    s->bits = b;
    s->nbits = n;
  }
  if (!line_set_has(s, line))
    s->count++;
  s->bits[line >> 3] |= (uint8_t)(1u << (line & 7));
}

/* An answer, one line at a time (a line may arrive in pieces). */
typedef struct {
  char part[256]; /* the line so far */
  size_t len;
  void (*on_line)(void *ctx, const char *line);
  void *ctx;
} line_reader;

static void on_answer(void *arg, const char *data, size_t n) {
  line_reader *lr = arg;
  for (size_t i = 0; i < n; i++) {
    if (data[i] == '\n') {
      lr->part[lr->len] = '\0';
      lr->on_line(lr->ctx, lr->part);
      lr->len = 0;
    } else if (lr->len + 1 < sizeof lr->part) {
      lr->part[lr->len++] = data[i];
    }
  }
}

static void on_marker(void *ctx, const char *line) {
  file_state *st = ctx;
  for (int t = 0; t < LT_COUNT; t++)
    if (strcmp(line, load_table_name((load_table)t)) == 0)
      st->done[t] = true;
}

/* "TABLE<tab>LINE" */
static void on_stored_line(void *ctx, const char *line) {
  file_state *st = ctx;
  const char *tab = strchr(line, '\t');
  if (!tab)
    return;
  char *end;
  unsigned long long v = strtoull(tab + 1, &end, 10);
  if (end == tab + 1 || *end != '\0')
    return;
  for (int t = 0; t < LT_COUNT; t++) {
    const char *name = load_table_name((load_table)t);
    if (strlen(name) == (size_t)(tab - line) &&
        memcmp(line, name, (size_t)(tab - line)) == 0)
      line_set_add(&st->stored[t], v);
  }
}

bool load_state_read(ch_conn *c, const load_names *names, const char *run_id,
                     const char *file, const bool wanted[LT_COUNT],
                     file_state *st) {
  memset(st, 0, sizeof *st);
  char run_q[600], file_q[2200], sql[3400];
  if (!ch_quote(run_id, run_q, sizeof run_q) ||
      !ch_quote(file, file_q, sizeof file_q)) {
    snprintf(c->error, sizeof c->error, "run id or file name too long");
    return false;
  }
  snprintf(sql, sizeof sql,
           "SELECT tableName FROM %s.%sloads WHERE runId = %s AND file = %s "
           "FORMAT TabSeparated",
           names->db, names->prefix, run_q, file_q);
  line_reader lr = {.on_line = on_marker, .ctx = st};
  if (!ch_select(c, sql, on_answer, &lr))
    return false;
  /* the stored lines of every table without a marker, in one query:
   * "TABLE<tab>LINE" rows */
  char lines_sql[4 * sizeof sql];
  size_t n = 0;
  for (int t = 0; t < LT_COUNT; t++) {
    if (!wanted[t] || st->done[t])
      continue;
    const char *name = load_table_name((load_table)t);
    n += (size_t)snprintf(lines_sql + n, sizeof lines_sql - n,
                          "%sSELECT '%s', line FROM %s.%s%s WHERE runId = %s "
                          "AND file = %s",
                          n ? " UNION ALL " : "", name, names->db,
                          names->prefix, name, run_q, file_q);
    if (n >= sizeof lines_sql) {
      snprintf(c->error, sizeof c->error, "run id or file name too long");
      return false;
    }
  }
  if (n == 0)
    return true;
  snprintf(lines_sql + n, sizeof lines_sql - n, " FORMAT TabSeparated");
  line_reader lines = {.on_line = on_stored_line, .ctx = st};
  if (!ch_select(c, lines_sql, on_answer, &lines))
    return false;
  for (int t = 0; t < LT_COUNT; t++) {
    if (st->stored[t].failed) {
      snprintf(c->error, sizeof c->error,
               "out of memory noting the lines already stored");
      return false;
    }
  }
  return true;
}

void load_state_free(file_state *st) {
  for (int t = 0; t < LT_COUNT; t++)
    free(st->stored[t].bits);
  memset(st, 0, sizeof *st);
}
