/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/sql/cmd_sql.c — `cclscope sql`: prints the shipped ClickHouse
 * queries (share/clickhouse/queries/, compiled in: sql_queries.h) ready to
 * paste into clickhouse-client, chdb or any ClickHouse:
 *
 *   cclscope sql                       the queries, one a line
 *   cclscope sql QUERY [--source SRC]  one query, its relation filled in
 *   cclscope sql --columns             the timing row's columns
 *
 * A query reads the relation {timing} (rows of timing records, the columns
 * of docs/clickhouse.md, Queries) and may include another query as {NAME}. SRC
 * says where the rows are: table:NAME (a loaded table, by default
 * cclscope_timing), file:GLOB or s3:URL (trace files read in place, with
 * the columns as their JSONEachRow schema; the other records of the files
 * are left out by recordType).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sql/sql_queries.h"

/* Queries include others ({stragglers_ranks}) this deep at most. */
#define MAX_INCLUDE_DEPTH 4

/* A growing string; `ok` false once out of memory. */
typedef struct {
  char *text;
  size_t len, cap;
  bool ok;
} sql_buf;

static void buf_add(sql_buf *b, const char *s, size_t n) {
  if (!b->ok)
    return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1)
      cap *= 2;
    char *t = realloc(b->text, cap);
    if (!t) {
      b->ok = false;
      return;
    }
    b->text = t;
    b->cap = cap;
  }
  memcpy(b->text + b->len, s, n);
  b->len += n;
  b->text[b->len] = '\0';
}

static void buf_str(sql_buf *b, const char *s) {
  buf_add(b, s, strlen(s));
}

/* `s` as the inside of a ClickHouse string literal: ' and \ escaped. */
static void buf_quoted(sql_buf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '\'' || *s == '\\')
      buf_add(b, "\\", 1);
    buf_add(b, s, 1);
  }
}

static const sql_query *query_named(const char *name, size_t len) {
  for (unsigned i = 0; i < sql_queries_count; i++)
    if (strlen(sql_queries[i].name) == len &&
        strncmp(sql_queries[i].name, name, len) == 0)
      return &sql_queries[i];
  return NULL;
}

/* Where the timing rows come from (--source). */
typedef struct {
  enum { SRC_TABLE, SRC_FILE, SRC_S3 } kind;
  const char *where; /* table name, glob or URL */
} sql_source;

/* The columns without their trailing newline. */
static void buf_columns(sql_buf *b) {
  size_t n = strlen(sql_timing_columns);
  while (n > 0 && (sql_timing_columns[n - 1] == '\n' ||
                   sql_timing_columns[n - 1] == '\r'))
    n--;
  buf_add(b, sql_timing_columns, n);
}

static void buf_relation(sql_buf *b, const sql_source *src) {
  if (src->kind == SRC_TABLE) {
    buf_str(b, src->where);
    return;
  }
  buf_str(b, src->kind == SRC_FILE ? "(SELECT * FROM file('"
                                   : "(SELECT * FROM s3('");
  buf_quoted(b, src->where);
  buf_str(b, "', 'JSONEachRow', '");
  buf_columns(b);
  buf_str(b, "') WHERE recordType = 'timing')");
}

/* `text` with {timing} and {QUERY} filled in; false (with a message) for a
 * query that names an unknown one or includes too deep. */
static bool expand(sql_buf *b, const char *text, const sql_source *src,
                   int depth) {
  const char *p = text;
  while (*p) {
    const char *open = strchr(p, '{');
    if (!open) {
      buf_str(b, p);
      break;
    }
    buf_add(b, p, (size_t)(open - p));
    const char *close = strchr(open, '}');
    size_t len = close ? (size_t)(close - open - 1) : 0;
    if (!close) {
      buf_str(b, open);
      break;
    }
    if (len == 6 && strncmp(open + 1, "timing", 6) == 0) {
      buf_relation(b, src);
    } else {
      const sql_query *inc = query_named(open + 1, len);
      if (!inc || depth >= MAX_INCLUDE_DEPTH) {
        fprintf(stderr, "cclscope sql: a query includes {%.*s}, %s\n", (int)len,
                open + 1, inc ? "too deep" : "which is not a query");
        return false;
      }
      if (!expand(b, inc->text, src, depth + 1))
        return false;
    }
    p = close + 1;
  }
  return true;
}

/* The first line of a query's header after its name ("-- name.sql —
 * what"): what it computes, for the list. */
static void print_list(void) {
  for (unsigned i = 0; i < sql_queries_count; i++) {
    const char *t = sql_queries[i].text;
    const char *dash = strstr(t, "\xe2\x80\x94 "); /* the em dash */
    const char *eol = dash ? strchr(dash, '\n') : NULL;
    if (dash && eol)
      printf("%-18s %.*s\n", sql_queries[i].name, (int)(eol - dash - 4),
             dash + 4);
    else
      printf("%s\n", sql_queries[i].name);
  }
}

static bool parse_source(const char *v, sql_source *src) {
  if (strncmp(v, "table:", 6) == 0 && v[6]) {
    src->kind = SRC_TABLE;
    src->where = v + 6;
  } else if (strncmp(v, "file:", 5) == 0 && v[5]) {
    src->kind = SRC_FILE;
    src->where = v + 5;
  } else if (strncmp(v, "s3:", 3) == 0 && v[3]) {
    src->kind = SRC_S3;
    src->where = v + 3;
  } else {
    return false;
  }
  return true;
}

int cmd_sql(int argc, char **argv) {
  sql_source src = {SRC_TABLE, "cclscope_timing"};
  const char *name = NULL;
  bool columns = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help_print("sql", stdout);
      return EXIT_OK;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      continue; /* nothing to be quiet about */
    } else if (!strcmp(a, "--source") || !strncmp(a, "--source=", 9)) {
      const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v)
        return usage_error("sql", "--source needs a value");
      if (!parse_source(v, &src))
        return usage_error("sql",
                           "--source takes table:NAME, file:GLOB or s3:URL, "
                           "not '%s'",
                           v);
    } else if (!strcmp(a, "--columns")) {
      columns = true;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("sql", "unknown option '%s'", a);
    } else if (name) {
      return usage_error("sql", "one query at a time ('%s' and '%s')", name, a);
    } else {
      name = a;
    }
  }
  if (columns) {
    sql_buf b = {NULL, 0, 0, true};
    buf_columns(&b);
    if (!b.ok)
      return EXIT_FINDINGS;
    puts(b.text);
    free(b.text);
    return EXIT_OK;
  }
  if (!name) {
    print_list();
    return EXIT_OK;
  }
  const sql_query *q = query_named(name, strlen(name));
  if (!q)
    return usage_error("sql", "no query '%s' (cclscope sql lists them)", name);
  sql_buf b = {NULL, 0, 0, true};
  bool ok = expand(&b, q->text, &src, 0);
  if (ok && src.kind != SRC_TABLE) {
    /* the files' other keys (event records, nested objects) are not
     * columns of the schema */
    while (b.len > 0 && (b.text[b.len - 1] == '\n' || b.text[b.len - 1] == ';'))
      b.text[--b.len] = '\0';
    buf_str(&b, "\nSETTINGS input_format_skip_unknown_fields = 1\n");
  }
  if (!b.ok) {
    fprintf(stderr, "cclscope sql: out of memory\n");
    free(b.text);
    return EXIT_FINDINGS;
  }
  if (ok)
    fputs(b.text, stdout);
  free(b.text);
  return ok ? EXIT_OK : EXIT_FINDINGS;
}
