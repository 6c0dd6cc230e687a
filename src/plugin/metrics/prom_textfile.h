/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/prom_textfile.h — the Prometheus textfile
 * (docs/metrics.md, "The textfile"): where it goes, and replacing it after each
 * window.
 *
 * Three placements, decided at start:
 *  - CCLSCOPE_PROM_FILE=<path>: that file;
 *  - CCLSCOPE_PROM_DIR=<dir>: <dir>/cclscope_<host>_pid<PID>.prom (config.c
 *    turns both into one path);
 *  - neither, and no other exporter (HTTP port, OTLP) either: the default,
 *    metrics_<run>_<host>_pid<PID>.prom in the output folder, next to the
 *    traces.
 * The first two get a folder of their own, created if needed and opened
 * once, under the same rules as the output folder (out_dir.h: a symbolic
 * link there is followed only when it is yours or root's); the default
 * shares the writer's output folder. Each window's text goes to a
 * temporary renamed over the file (node_exporter may read it at any time),
 * so a link planted at the file's name is replaced, never written through.
 *
 * Writer thread only (start and stop: while the writer thread is not
 * running).
 */
#ifndef CCLSCOPE_PROM_TEXTFILE_H
#define CCLSCOPE_PROM_TEXTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "out_dir.h"
#include "trace_jsonl.h"

typedef struct {
  cs_out_dir own_dir;      /* CCLSCOPE_PROM_FILE's or _DIR's folder */
  cs_out_dir *dir;         /* own_dir or the output folder; NULL: no file */
  char name[NAME_MAX + 1]; /* the file's name in `dir` */
  char path[PATH_MAX + NAME_MAX + 2]; /* folder/name: for messages */
} cs_prom_textfile;

/* Decide where the textfile goes and open its folder (which says once why,
 * when it cannot: then there is no textfile). `prom_file`: the configured
 * path ("" or NULL: none); `default_wanted`: no other exporter is
 * configured, so without `prom_file` the file goes into `out_dir`, named
 * after `env`'s run, host and pid. */
void cs_prom_textfile_start(cs_prom_textfile *p, const char *prom_file,
                            bool default_wanted, cs_out_dir *out_dir,
                            const cs_trace_env *env);

/* Replace the file by `text` (no-op without a textfile; a failure is said
 * once, and the next window tries again). */
void cs_prom_textfile_write(cs_prom_textfile *p, const char *text, size_t len);

/* At the end of recording: remove a CCLSCOPE_PROM_FILE/_DIR textfile, so
 * that node_exporter does not export its series forever (the default one,
 * next to the traces, is a result and stays). Then stop as below. */
void cs_prom_textfile_remove(cs_prom_textfile *p);

/* No textfile any more; closes its own folder. Also what a fork child
 * does with its parent's (close() only). */
void cs_prom_textfile_stop(cs_prom_textfile *p);

#endif
