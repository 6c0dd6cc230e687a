/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/load_schema.h — the DDL of `cclscope load --create`: the
 * text of share/clickhouse/schema.sql and distributed.sql, compiled in
 * (share/clickhouse/embed.cmake), with its ${DB}, ${PREFIX}, ${LOCAL},
 * ${ON_CLUSTER} and
 * ${CLUSTER} placeholders filled in and cut into statements.
 */
#ifndef CCLSCOPE_CLI_LOAD_SCHEMA_H
#define CCLSCOPE_CLI_LOAD_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

extern const char load_schema_sql[];      /* schema.sql */
extern const char load_distributed_sql[]; /* distributed.sql */

/* The values of the placeholders. */
typedef struct {
  const char *db;         /* ${DB} */
  const char *prefix;     /* ${PREFIX} */
  const char *local;      /* ${LOCAL}: "" or "_local" */
  const char *on_cluster; /* ${ON_CLUSTER}: "" or " ON CLUSTER name" */
  const char *cluster;    /* ${CLUSTER} */
} schema_vars;

/* `text` with its placeholders replaced and its "--" comment lines left
 * out; NULL when out of memory or when it names a placeholder not in
 * schema_vars (*unknown then points at it). The caller frees it. */
char *schema_fill(const char *text, const schema_vars *v, const char **unknown);

/* The next statement of filled text: skips blanks, cuts at the next ';'
 * (the schema's statements hold no ';' inside), NUL-terminates it in
 * place. NULL after the last. Start with *cursor = the text. */
char *schema_next_statement(char **cursor);

#endif
