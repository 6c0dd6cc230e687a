/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/ch_http.h — talking to one ClickHouse server over its HTTP
 * interface with libcurl: a statement, a query whose result is streamed to
 * the caller, an INSERT whose rows are the request's body.
 *
 * Credentials travel as HTTP basic authentication (every ClickHouse since
 * 2017 takes them so), never in the URL of a request; the URL shown in
 * messages is the server's without user and password. Every request sets
 * insert_distributed_sync=1 and no default database (every statement
 * names its tables' database: `--create` makes that database, so it may
 * not exist when the first request is sent). An INSERT into a Distributed table
 * returns once every shard has stored its rows, or fails, so that what a load
 * acknowledged is on the shards (docs/clickhouse.md).
 *
 * A failure leaves one line in `error`: curl's words when the server did
 * not answer (refused, reset, timed out), ClickHouse's own message when it
 * answered with an error (wrong password, unknown table, a row it could not
 * parse), shortened to its first lines and stripped of control characters.
 */
#ifndef CCLSCOPE_CLI_LOAD_CH_HTTP_H
#define CCLSCOPE_CLI_LOAD_CH_HTTP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  void *curl;       /* CURL * */
  char *url;        /* the server, as given, with a '/' at the end */
  char *shown_url;  /* url without user:password@ (for messages) */
  const char *user; /* NULL: none (ClickHouse's "default") */
  const char *password;
  char error[600];  /* the last failure, one line */
  long http_status; /* of the last answer, 0 when none came */
} ch_conn;

/* Result data as it arrives (a query's TabSeparated text). */
typedef void (*ch_sink)(void *ctx, const char *data, size_t len);

/* False (with `error`) when libcurl cannot be set up or the URL is not
 * http:// or https://. */
bool ch_open(ch_conn *c, const char *url, const char *user,
             const char *password);
void ch_close(ch_conn *c);

/* Run one statement (DDL, a query whose result is not wanted). */
bool ch_exec(ch_conn *c, const char *sql);
/* Run a query; its result (TabSeparated unless the query says otherwise)
 * goes to `sink` piece by piece. */
bool ch_select(ch_conn *c, const char *sql, ch_sink sink, void *ctx);
/* INSERT `body` (rows in the format that `insert_sql` names, e.g.
 * "INSERT INTO t (a, b) FORMAT TabSeparated"). */
bool ch_insert(ch_conn *c, const char *insert_sql, const char *body,
               size_t len);

/* `text` as a single-quoted SQL string literal into buf (backslash and
 * quote escaped); false when it does not fit. */
bool ch_quote(const char *text, char *buf, size_t cap);

#endif
