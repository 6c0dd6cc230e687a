/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/cmd_load.c — `cclscope load TRACE... --clickhouse URL`:
 * trace files into ClickHouse tables over its HTTP interface
 * (docs/clickhouse.md, docs/cli.md).
 *
 * File by file: its identity from the process record, what the server
 * already holds of it (load_state.h), then its records as rows
 * (load_rows.h) into one TabSeparated buffer per table. When the buffers
 * reach the batch size they are sent, each as one INSERT, and then the
 * markers of the files whose rows have all been sent. Memory: the buffers
 * (about a batch of rows) and one file's communicator table.
 *
 * Needs libcurl at build time; without it the command says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_options.h"

#ifndef CCLSCOPE_HAVE_CURL

int cmd_load(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      help_print("load", stdout);
      return EXIT_OK;
    }
  }
  fprintf(stderr, "cclscope load: built without libcurl (install "
                  "libcurl4-openssl-dev and rebuild)\n");
  return EXIT_FINDINGS;
}

#else

#include "load/ch_http.h"
#include "load/load_rows.h"
#include "load/load_schema.h"
#include "load/load_state.h"
#include "util/progress.h"

enum {
  OPT_CLICKHOUSE = OPT_FIRST_PRIVATE,
  OPT_DATABASE,
  OPT_PREFIX,
  OPT_USER,
  OPT_PASSWORD,
  OPT_EVENTS,
  OPT_PROXY_STEPS,
  OPT_CREATE,
  OPT_CLUSTER,
  OPT_SHARD,
  OPT_BATCH_ROWS
};

static const cli_option load_options[] = {
    {"clickhouse", true, OPT_CLICKHOUSE},
    {"database", true, OPT_DATABASE},
    {"prefix", true, OPT_PREFIX},
    {"user", true, OPT_USER},
    {"password", true, OPT_PASSWORD},
    {"events", false, OPT_EVENTS},
    {"proxy-steps", false, OPT_PROXY_STEPS},
    {"create", false, OPT_CREATE},
    {"cluster", true, OPT_CLUSTER},
    {"shard", true, OPT_SHARD},
    {"batch-rows", true, OPT_BATCH_ROWS},
    {NULL, false, 0}};

static const cli_command_line load_command_line = {.cmd = "load",
                                                   .options = load_options};

/* The most --shard servers. */
enum { MAX_SHARDS = 64 };
/* The buffers are sent when they hold this many bytes, whatever the rows. */
#define BATCH_BYTES_MAX ((size_t)64 << 20)
#define DEFAULT_BATCH_ROWS 100000

typedef struct {
  const char *url;
  const char *user;
  const char *password;
  char *env_url; /* built from CLICKHOUSE_HOST/PORT; freed at the end */
  load_names names;
  bool wanted[LT_COUNT];
  bool create;
  const char *cluster;
  const char *shards[MAX_SHARDS];
  int nshards;
  long long batch_rows;
} load_config;

/* One run of the command. */
typedef struct {
  const load_config *cfg;
  ch_conn conn;
  row_buf rows[LT_COUNT];
  row_buf markers;         /* of files whose rows are all in `rows` or sent */
  uint64_t sent[LT_COUNT]; /* rows sent, by table */
  uint64_t files_loaded, files_skipped;
  uint64_t invalid_lines;
  char loader[64]; /* the loads table's `loader` column */
} load_run;

/* [A-Za-z_][A-Za-z0-9_]* (empty allowed for the prefix). */
static bool is_identifier(const char *s, bool empty_ok) {
  if (!*s)
    return empty_ok;
  for (const char *p = s; *p; p++) {
    char ch = *p;
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              ch == '_' || (p > s && ch >= '0' && ch <= '9');
    if (!ok)
      return false;
  }
  return true;
}

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* The server from the environment when no --clickhouse: CLICKHOUSE_URL,
 * else CLICKHOUSE_HOST with CLICKHOUSE_PORT (8123). */
static void config_from_env(load_config *cfg) {
  cfg->url = env("CLICKHOUSE_URL");
  cfg->user = env("CLICKHOUSE_USER");
  cfg->password = env("CLICKHOUSE_PASSWORD");
  cfg->names.db = env("CLICKHOUSE_DATABASE");
  const char *host = env("CLICKHOUSE_HOST");
  if (!cfg->url && host) {
    const char *port = env("CLICKHOUSE_PORT");
    size_t n = strlen(host) + 32;
    cfg->env_url = malloc(n);
    if (cfg->env_url) {
      snprintf(cfg->env_url, n, "http://%s:%s", host, port ? port : "8123");
      cfg->url = cfg->env_url;
    }
  }
}

static int parse_command_line(load_config *cfg, int argc, char **argv,
                              cli_parser *p) {
  memset(cfg, 0, sizeof *cfg);
  config_from_env(cfg);
  cfg->names.prefix = "cclscope_";
  if (!cfg->names.db)
    cfg->names.db = "default";
  cfg->batch_rows = DEFAULT_BATCH_ROWS;
  cfg->wanted[LT_TIMING] = cfg->wanted[LT_COMMS] = true;
  cfg->wanted[LT_PROCESSES] = true;
  cli_parse_begin(p, &load_command_line, argc, argv);
  int o;
  while ((o = cli_parse_next(p)) > 0) {
    switch (o) {
    case OPT_CLICKHOUSE:
      cfg->url = p->value;
      break;
    case OPT_DATABASE:
      cfg->names.db = p->value;
      break;
    case OPT_PREFIX:
      cfg->names.prefix = p->value;
      break;
    case OPT_USER:
      cfg->user = p->value;
      break;
    case OPT_PASSWORD:
      cfg->password = p->value;
      break;
    case OPT_EVENTS:
      cfg->wanted[LT_EVENTS] = true;
      break;
    case OPT_PROXY_STEPS:
      cfg->wanted[LT_PROXY_STEPS] = true;
      break;
    case OPT_CREATE:
      cfg->create = true;
      break;
    case OPT_CLUSTER:
      cfg->cluster = p->value;
      break;
    case OPT_SHARD:
      if (cfg->nshards == MAX_SHARDS)
        return usage_error("load", "at most %d --shard servers", MAX_SHARDS);
      cfg->shards[cfg->nshards++] = p->value;
      break;
    case OPT_BATCH_ROWS:
      if (!cli_number(p->value, 1, 10000000, &cfg->batch_rows))
        return usage_error("load",
                           "--batch-rows needs a number from 1 to 10000000, "
                           "not '%s'",
                           p->value);
      break;
    }
  }
  if (o == CLI_PARSE_EXIT)
    return p->status;
  if (!cfg->url)
    return usage_error("load", "give the server: --clickhouse URL (or "
                               "CLICKHOUSE_URL, or CLICKHOUSE_HOST)");
  if (!is_identifier(cfg->names.db, false))
    return usage_error("load",
                       "--database needs a plain name (letters, "
                       "digits, _), not '%s'",
                       cfg->names.db);
  if (!is_identifier(cfg->names.prefix, true))
    return usage_error("load",
                       "--prefix needs letters, digits and _ only, "
                       "not '%s'",
                       cfg->names.prefix);
  if (cfg->cluster && !is_identifier(cfg->cluster, false))
    return usage_error("load",
                       "--cluster needs a plain name (letters, "
                       "digits, _), not '%s'",
                       cfg->cluster);
  if ((cfg->cluster || cfg->nshards) && !cfg->create)
    return usage_error("load", "--cluster and --shard say how --create "
                               "makes the tables: give --create too");
  if (cfg->nshards && !cfg->cluster)
    return usage_error("load", "--shard needs --cluster NAME");
  return -1; /* go on */
}

/* ---- --create ---- */

/* Run every statement of `text` filled with `vars` on `c`. */
static bool run_ddl(ch_conn *c, const char *text, const schema_vars *vars) {
  const char *unknown;
  char *filled = schema_fill(text, vars, &unknown);
  if (!filled) {
    if (unknown)
      snprintf(c->error, sizeof c->error,
               "the built-in schema names an unknown placeholder at '%.20s'",
               unknown);
    else
      snprintf(c->error, sizeof c->error, "out of memory");
    return false;
  }
  char *cursor = filled;
  char *stmt;
  bool ok = true;
  while (ok && (stmt = schema_next_statement(&cursor)) != NULL)
    ok = ch_exec(c, stmt);
  free(filled);
  return ok;
}

/* The database and tables on one server: `on_cluster` "" or
 * " ON CLUSTER name". */
static bool create_on(ch_conn *c, const load_config *cfg,
                      const char *on_cluster) {
  char sql[256];
  snprintf(sql, sizeof sql, "CREATE DATABASE IF NOT EXISTS %s%s", cfg->names.db,
           on_cluster);
  if (!ch_exec(c, sql))
    return false;
  schema_vars vars = {cfg->names.db, cfg->names.prefix,
                      cfg->cluster ? "_local" : "", on_cluster, cfg->cluster};
  if (!run_ddl(c, load_schema_sql, &vars))
    return false;
  return !cfg->cluster || run_ddl(c, load_distributed_sql, &vars);
}

static bool create_tables(load_run *run) {
  const load_config *cfg = run->cfg;
  if (!cfg->cluster)
    return create_on(&run->conn, cfg, "");
  if (!cfg->nshards) {
    char on[160];
    snprintf(on, sizeof on, " ON CLUSTER %s", cfg->cluster);
    return create_on(&run->conn, cfg, on);
  }
  /* each server by itself: clusters without ZooKeeper or Keeper */
  bool main_listed = false;
  for (int i = 0; i < cfg->nshards; i++) {
    ch_conn shard;
    bool ok = ch_open(&shard, cfg->shards[i], cfg->user, cfg->password) &&
              create_on(&shard, cfg, "");
    if (!ok) {
      fprintf(stderr, "cclscope load: --create on %s: %s\n", cfg->shards[i],
              shard.error);
      ch_close(&shard);
      return false;
    }
    ch_close(&shard);
    main_listed = main_listed || strcmp(cfg->shards[i], cfg->url) == 0;
  }
  return main_listed || create_on(&run->conn, cfg, "");
}

/* ---- sending ---- */

static bool send_buffer(load_run *run, const char *table, const char *columns,
                        row_buf *b) {
  if (b->rows == 0)
    return true;
  if (b->failed) {
    snprintf(run->conn.error, sizeof run->conn.error,
             "out of memory building the rows of %s", table);
    return false;
  }
  char sql[1024];
  snprintf(sql, sizeof sql, "INSERT INTO %s.%s%s (%s) FORMAT TabSeparated",
           run->cfg->names.db, run->cfg->names.prefix, table, columns);
  if (!ch_insert(&run->conn, sql, b->data, b->len))
    return false;
  row_buf_clear(b);
  return true;
}

/* Every buffer, then the markers of the files they completed. */
static bool flush(load_run *run) {
  for (int t = 0; t < LT_COUNT; t++) {
    uint64_t rows = run->rows[t].rows;
    if (!send_buffer(run, load_table_name((load_table)t),
                     load_table_columns((load_table)t), &run->rows[t]))
      return false;
    run->sent[t] += rows;
  }
  return send_buffer(run, "loads",
                     "runId, file, tableName, rows, fileBytes, loader",
                     &run->markers);
}

static bool batch_full(const load_run *run) {
  uint64_t rows = 0;
  size_t bytes = 0;
  for (int t = 0; t < LT_COUNT; t++) {
    rows += run->rows[t].rows;
    bytes += run->rows[t].len;
  }
  return rows >= (uint64_t)run->cfg->batch_rows || bytes >= BATCH_BYTES_MAX;
}

/* ---- one file ---- */

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Adds the record's rows that the server does not hold yet. */
static void add_rows(load_run *run, const load_file *lf, const file_state *st,
                     const rec *r, rec_scratch *sc, uint64_t line,
                     uint64_t added[LT_COUNT]) {
  load_table also;
  load_table t = load_table_of(r, &also);
  load_table both[2] = {t, also};
  for (int k = 0; k < 2; k++) {
    load_table tt = both[k];
    if (tt == LT_COUNT || !run->cfg->wanted[tt] || st->done[tt] ||
        line_set_has(&st->stored[tt], line))
      continue;
    row_buf *b = &run->rows[tt];
    switch (tt) {
    case LT_TIMING:
      row_timing(b, lf, r, line);
      break;
    case LT_COMMS:
      row_comm(b, lf, r, line);
      break;
    case LT_EVENTS:
      row_event(b, lf, r, line);
      break;
    case LT_PROXY_STEPS:
      row_proxy_step(b, lf, r, sc, line);
      break;
    default:
      break;
    }
    added[tt]++;
  }
}

/* After the file's last record: its processes row and its markers. */
static void finish_file(load_run *run, const load_file *lf,
                        const file_state *st, uint64_t file_bytes,
                        const uint64_t added[LT_COUNT]) {
  uint64_t rows[LT_COUNT];
  memcpy(rows, added, sizeof rows);
  if (run->cfg->wanted[LT_PROCESSES] && !st->done[LT_PROCESSES] &&
      !line_set_has(&st->stored[LT_PROCESSES],
                    lf->process_line_no ? lf->process_line_no : 1)) {
    row_process(&run->rows[LT_PROCESSES], lf);
    rows[LT_PROCESSES]++;
  }
  for (int t = 0; t < LT_COUNT; t++) {
    if (!run->cfg->wanted[t] || st->done[t])
      continue;
    row_cstr(&run->markers, lf->run_id);
    row_cstr(&run->markers, lf->file);
    row_cstr(&run->markers, load_table_name((load_table)t));
    row_u64(&run->markers, rows[t] + st->stored[t].count);
    row_u64(&run->markers, file_bytes);
    row_cstr(&run->markers, run->loader);
    row_end(&run->markers);
  }
}

/* Whether every wanted table of the file is marked loaded. */
static bool all_done(const load_config *cfg, const file_state *st) {
  for (int t = 0; t < LT_COUNT; t++)
    if (cfg->wanted[t] && !st->done[t])
      return false;
  return true;
}

/* A failure of the server's about `path` on stderr, with a hint where the
 * tables are missing. */
static void say_failure(const char *path, const ch_conn *c) {
  bool missing = strstr(c->error, "doesn't exist") != NULL ||
                 strstr(c->error, "does not exist") != NULL;
  fprintf(stderr, "cclscope load: %s: %s%s\n", path, c->error,
          missing ? " (--create makes the database and tables)" : "");
}

/* Load one file; false on a failure (said on stderr). */
static bool load_file_rows(load_run *run, const char *path, progress *pg,
                           uint64_t done_bytes, rec_scratch *sc) {
  tr_file f;
  int err = tr_open(&f, path, 1 << 20);
  if (err) {
    fprintf(stderr, "cclscope load: %s: %s\n", path, tr_strerror(err));
    return false;
  }
  struct stat sb;
  uint64_t file_bytes = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
  load_file lf;
  load_file_begin(&lf, base_name(path));
  file_state st;
  memset(&st, 0, sizeof st);
  bool state_known = false, ok = true, skipped = false;
  uint64_t added[LT_COUNT] = {0};
  rec r;
  int got;
  while (ok && (got = tr_next(&f)) > 0) {
    if (!rec_decode(&r, sc, f.line, f.line_len)) {
      if (f.line_len > 0)
        run->invalid_lines++;
      continue;
    }
    if (r.rt == RT_PROCESS && !lf.process_line)
      lf.process_line_no = f.line_no;
    if (!load_file_note(&lf, &r)) {
      fprintf(stderr, "cclscope load: %s: out of memory\n", path);
      ok = false;
      break;
    }
    if (!state_known) {
      /* the first record names the run (the process record) */
      if (!load_state_read(&run->conn, &run->cfg->names, lf.run_id, lf.file,
                           run->cfg->wanted, &st)) {
        say_failure(path, &run->conn);
        ok = false;
        break;
      }
      state_known = true;
      if (all_done(run->cfg, &st)) {
        skipped = true;
        break;
      }
    }
    add_rows(run, &lf, &st, &r, sc, f.line_no, added);
    if (batch_full(run) && !flush(run)) {
      say_failure(path, &run->conn);
      ok = false;
    }
    progress_update(pg, done_bytes + f.bytes_read);
  }
  if (ok && got < 0) {
    fprintf(stderr, "cclscope load: %s: %s\n", path, tr_strerror(f.error));
    ok = false;
  }
  if (ok && !skipped && state_known) {
    finish_file(run, &lf, &st, file_bytes, added);
    run->files_loaded++;
  } else if (ok && skipped) {
    run->files_skipped++;
  }
  load_state_free(&st);
  load_file_end(&lf);
  tr_close(&f);
  return ok;
}

static void report(const load_run *run, const tr_inputs *in, double seconds) {
  if (cli_globals.quiet)
    return;
  uint64_t total = 0;
  for (int t = 0; t < LT_COUNT; t++)
    total += run->sent[t];
  printf("cclscope load: %llu file%s loaded, %llu already loaded; rows sent:",
         (unsigned long long)run->files_loaded,
         run->files_loaded == 1 ? "" : "s",
         (unsigned long long)run->files_skipped);
  for (int t = 0; t < LT_COUNT; t++)
    if (run->cfg->wanted[t])
      printf(" %s %llu", load_table_name((load_table)t),
             (unsigned long long)run->sent[t]);
  printf(" (into %s.%s* at %s)\n", run->cfg->names.db, run->cfg->names.prefix,
         run->conn.shown_url);
  if (seconds > 0)
    printf("cclscope load: %.2f s, %.0f rows/s, %.1f MB/s of trace\n", seconds,
           (double)total / seconds, (double)in->total_bytes / 1e6 / seconds);
  if (run->invalid_lines)
    printf("cclscope load: %llu line%s that are not JSON records skipped\n",
           (unsigned long long)run->invalid_lines,
           run->invalid_lines == 1 ? "" : "s");
}

int cmd_load(int argc, char **argv) {
  load_config cfg;
  cli_parser p;
  int status = parse_command_line(&cfg, argc, argv, &p);
  if (status >= 0) {
    free(cfg.env_url);
    return status;
  }
  tr_inputs in;
  if (!tr_inputs_collect(&in, p.ninputs, p.inputs)) {
    free(cfg.env_url);
    return EXIT_FINDINGS;
  }
  load_run run;
  memset(&run, 0, sizeof run);
  run.cfg = &cfg;
  snprintf(run.loader, sizeof run.loader, "cclscope %s", CCLSCOPE_VERSION);
  status = EXIT_OK;
  rec_scratch *sc = malloc(sizeof *sc);
  if (!sc) {
    fprintf(stderr, "cclscope load: out of memory\n");
    status = EXIT_FINDINGS;
  } else if (!ch_open(&run.conn, cfg.url, cfg.user, cfg.password)) {
    fprintf(stderr, "cclscope load: %s\n", run.conn.error);
    status = EXIT_FINDINGS;
  } else if (cfg.create && !create_tables(&run)) {
    if (run.conn.error[0])
      fprintf(stderr, "cclscope load: --create: %s\n", run.conn.error);
    status = EXIT_FINDINGS;
  }
  if (status == EXIT_OK) {
    rec_scratch_init(sc);
    progress pg;
    progress_start(&pg, "load", in.total_bytes);
    double started = progress_now();
    uint64_t done = 0;
    for (size_t i = 0; i < in.n && status == EXIT_OK; i++) {
      if (!load_file_rows(&run, in.paths[i], &pg, done, sc))
        status = EXIT_FINDINGS;
      struct stat sb;
      done += stat(in.paths[i], &sb) == 0 ? (uint64_t)sb.st_size : 0;
    }
    if (status == EXIT_OK && !flush(&run)) {
      say_failure("sending the last rows", &run.conn);
      status = EXIT_FINDINGS;
    }
    progress_finish(&pg);
    if (status == EXIT_OK)
      report(&run, &in, progress_now() - started);
    else
      fprintf(stderr, "cclscope load: stopped; what was stored stays, and "
                      "running the same command again completes the load "
                      "without doubling anything\n");
  }
  for (int t = 0; t < LT_COUNT; t++)
    row_buf_free(&run.rows[t]);
  row_buf_free(&run.markers);
  ch_close(&run.conn);
  free(sc);
  tr_inputs_free(&in);
  free(cfg.env_url);
  return status;
}

#endif
