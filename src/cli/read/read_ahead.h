/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/read_ahead.h — the lines of many trace files, read and
 * decoded ahead by a pool of threads.
 *
 * Owns: reading and decoding lines (tr_next + rec_decode, the expensive
 * part of every command) on `jobs - 1` worker threads and the command's
 * single thread, which consumes the records file by file or in any order
 * between files (lock step). A file is cut into chunks of whole lines:
 * one thread at a time copies a file's next lines into a chunk (files are
 * read in order), then decodes them (the record's fields and the
 * positions of its top-level members) while other threads fill and decode
 * the file's next chunks, so even a single file is decoded on every
 * thread. ra_next replays a decoded line into the caller's scratch, so the
 * caller gets exactly what tr_next + rec_decode would have given it: same
 * lines, same order, same records, same line numbers and errors. When the
 * chunk it needs is not decoded yet, the consumer makes the file's next
 * chunk itself, else one of another file, and sleeps only when there is
 * nothing to make. Commands therefore produce the same output whatever the
 * number of jobs. What reading a file says on stderr (tr_open_deferring)
 * is said when the consumer reaches that chunk.
 *
 * A binary file (.cst) is read by lines too: its codec makes the text of
 * its frames' records a piece at a time (trace_codec.h), and its event
 * lines come decoded (tr_file's decoded and marks): filling copies their
 * record and marks into the chunk, and decoding finds their members from
 * the marks (line_members.h) instead of parsing them.
 *
 * Memory is bounded: at most `depth` = jobs + 3 chunks per file exist at a
 * time (between RA_DEPTH and RA_DEPTH_MAX, and no more than RA_BUDGET holds
 * of RA_CHUNK_MIN: the one being consumed, the ones being decoded or
 * ready, the one being filled), each of about
 * `chunk_bytes` of text and decoded lines (a longer line makes a chunk of
 * one line) plus the positions of their top-level members (about a third
 * of the text on the plugin's lines, at most twice it), chunk_bytes =
 * RA_BUDGET / (depth x files), between RA_CHUNK_MIN and RA_CHUNK_MAX;
 * plus one read buffer per open file (that share, between 64 and 256 KiB;
 * a file is closed once read to its end). A file's last chunk goes back
 * once the consumer has reached its end.
 *
 * jobs == 1 starts no thread and makes no chunk: ra_next is tr_next +
 * rec_decode into the caller's scratch, as before there were threads. A
 * file that cannot be opened, and a read error, come out of ra_next at the
 * point where tr_open or tr_next would have said so.
 */
#ifndef CCLSCOPE_CLI_READ_AHEAD_H
#define CCLSCOPE_CLI_READ_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/trace_record.h"

enum {
  RA_DEPTH = 3,            /* chunks per file at most: at least this */
  RA_DEPTH_MAX = 16,       /* and at most this (jobs + 3 between, as the
                              budget allows) */
  RA_BUDGET = 48 << 20,    /* for all chunks of all files */
  RA_CHUNK_MIN = 32 << 10, /* bytes of one chunk, at least */
  RA_SPIN = 2000,          /* polls before a thread sleeps (~40 us) */
  RA_CHUNK_MAX = 64 << 10, /* and at most: small enough to stay in a
                              core's cache from decoding to use */
};

/* What ra_next returns. */
enum {
  RA_LINE = 1,        /* a line: see ra_line_info */
  RA_END = 0,         /* the file has no more lines */
  RA_READ_ERROR = -1, /* reading failed (ra_line_info's error) */
  RA_OPEN_ERROR = -2  /* the file could not be opened (error) */
};

/* The file's state after ra_next, as tr_file has it after tr_next. */
typedef struct {
  const char *line; /* without its '\n', valid until the next ra_next */
  size_t line_len;
  uint64_t line_no;       /* of this line (1-based); at the end: the last */
  bool line_unterminated; /* the file ended without a '\n' after it */
  uint64_t bytes_read;    /* from the file so far (progress; at the end:
                             its size) */
  uint64_t text_bytes;    /* of text so far: bytes_read, or what a
                             compressed file decompressed to */
  int error;              /* errno of RA_READ_ERROR / RA_OPEN_ERROR */
} ra_line_info;

typedef struct ra_reader ra_reader;

/* Reading threads when jobs is 0: one per online CPU. */
unsigned ra_default_jobs(void);

/* Start reading `paths[0..n)` (n > 0) with `jobs` threads in all, the
 * caller's included (0: one per online CPU; at most one worker per file).
 * NULL when out of memory; a worker that cannot be started leaves its work
 * to the others and the caller. */
ra_reader *ra_open(char *const *paths, size_t n, unsigned jobs);

/* ra_open with chunks of `chunk_bytes` (0: the size above); tests use
 * small chunks to make many. */
ra_reader *ra_open_sized(char *const *paths, size_t n, unsigned jobs,
                         size_t chunk_bytes);

/* How lines are decoded: rec_decode, or for a reader that only orders
 * lines, rec_decode_times (trace_record.h). */
typedef bool (*ra_decoder)(rec *r, rec_scratch *s, const char *line,
                           size_t len);

/* ra_open decoding each line with `decode` instead of rec_decode. A
 * binary trace's event lines come decoded whatever `decode` is: their
 * record is rec_decode's, all of whose fields the other decoders'
 * callers may read (rec_start_time, rec_write_time give the same). */
ra_reader *ra_open_decoding(char *const *paths, size_t n, unsigned jobs,
                            ra_decoder decode);

/* Next line of file `file`. With RA_LINE, `*parsed` tells whether it is a
 * JSON object: then `r` is its record (r->f is s->top, r->line the line),
 * else s->top.error and error_at say why, as after rec_decode (or the
 * reader's decoder). `info`
 * describes the line (or the end). */
int ra_next(ra_reader *ra, size_t file, rec_scratch *s, rec *r, bool *parsed,
            ra_line_info *info);

/* Stop the threads and free everything (files may be left unread). */
void ra_close(ra_reader *ra);

#endif
