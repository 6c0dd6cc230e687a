/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/check/emu_truth.h — the ground-truth file (--truth FILE): JSON Lines,
 * one flat object per plugin call, written from per-thread buffers (no lock
 * per record, no happens-before edge between emitting threads), sorted by
 * the per-process sequence number when the worker ends. Also the
 * normaliser used to diff two runs with the same --seed. emu_truth.c.
 */
#ifndef NCCLEMU_TRUTH_H
#define NCCLEMU_TRUTH_H

#include <stdio.h>

#include "emu_threads.h"

/* Opens (truncates) the worker's truth file. NULL path = truth off. */
void emu_truth_open(const char *path);
bool emu_truth_enabled(void);
/* Sorts the file by "seq" and closes it. Call after all threads ended. */
void emu_truth_close(void);

/* Per-thread buffer (created by emu_thread_attach when truth is on). */
struct emu_truth_buf *emu_truth_buf_new(void);
void emu_truth_buf_flush(struct emu_truth_buf *b);
void emu_truth_buf_free(struct emu_truth_buf *b);

/* A record under construction in the calling thread's buffer. */
typedef struct emu_rec {
  struct emu_truth_buf *buf;
  size_t start;
} emu_rec;

/* Starts {"seq":N,"t_ns":..,"pid":..,"tid":..,"thr":"..","call":"<call>" */
bool emu_rec_begin(emu_rec *r, emu_thread *t, const char *call);
void emu_rec_str(emu_rec *r, const char *key, const char *value); /* NULL ok */
void emu_rec_int(emu_rec *r, const char *key, int64_t value);
void emu_rec_uint(emu_rec *r, const char *key, uint64_t value);
void emu_rec_hex(emu_rec *r, const char *key, uint64_t value);
void emu_rec_ptr(emu_rec *r, const char *key, const void *value);
void emu_rec_id(emu_rec *r, const char *key, uint64_t id); /* 0 -> null */
void emu_rec_bool(emu_rec *r, const char *key, bool value);
void emu_rec_null(emu_rec *r, const char *key);
void emu_rec_end(emu_rec *r);

/* Normalises truth files for a seed-determinism diff: drops values that
 * legitimately differ between runs (seq, times, pids, tids, plugin handle
 * and context values, GPU timestamps), groups records by thread role and
 * prints "thr<TAB>record" lines. Returns 0, or 1 if a file can't be read. */
int emu_truth_normalize(int nfiles, char **files, FILE *out);

#endif
