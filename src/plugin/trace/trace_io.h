/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_io.h — the trace file's I/O thread: writes the chunks
 * of whole lines that trace_file.c hands it, in order, so that the writer
 * thread formats while the disk works and never waits for it.
 *
 * A chunk is written with O_DIRECT (page-aligned offset, length and memory)
 * or through the page cache. If the file system refuses a direct write, it
 * is written the ordinary way and every later chunk too. If a write fails
 * (disk full, file size limit, I/O error), the file is truncated back to
 * its last complete line, the chunks queued behind it are discarded with
 * their lines counted as lost, and the failure is reported to the writer
 * thread the next time it queues or waits (cs_io_queue, cs_io_sync), which
 * then carries on from the new end of the file.
 *
 * Compressed files (CCLSCOPE_COMPRESS=zstd, trace_zstd.h): each chunk is
 * compressed here, on this thread (or by the queueing thread when the
 * queue is full, cs_io_set_helper), into one zstd frame written with a
 * single write at the end of the file (the chunk's own offset counts the
 * uncompressed text and is not used); a failed write cuts the file back
 * to the end of the last whole frame, and a chunk the compressor fails on
 * is lost whole (counted apart). Never O_DIRECT.
 *
 * The accounting record (trace_accounting.h): the file's first bytes,
 * written by cs_io_write_head, hold it at a known offset. From then on
 * this thread rewrites it in place, before its next chunk, whenever lines
 * are lost (a failed write, a failed compression, chunks discarded after
 * them) or the writer's side of it changes (cs_io_account), and last when
 * it stops: its counts reach the file even when nothing else can.
 *
 * Memory in flight is bounded (CS_IO_MAX_QUEUED of chunks, twice that
 * with finished frames): past it, cs_io_queue waits for the disk (the writer
 * thread waits, never NCCL's threads; their rings absorb it or drop and count).
 * Without a thread (pthread_create failed) every chunk is written at once by
 * the caller.
 */
#ifndef CCLSCOPE_TRACE_IO_H
#define CCLSCOPE_TRACE_IO_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace_accounting.h"

#define CS_IO_MAX_QUEUED ((size_t)32 << 20) /* bytes waiting for the disk */
#define CS_IO_SPARES 4                      /* buffers kept for reuse */
#define CS_IO_SPARE_MIN ((size_t)64 << 10)  /* ... if at least this big */

typedef struct cs_io_job cs_io_job;
typedef struct cs_trace_zstd cs_trace_zstd;
typedef struct cs_trace_bin cs_trace_bin;

/* What became of the file after a failed write. */
typedef struct {
  uint64_t end; /* the file's size now: it ends with a complete line */
  int error;    /* errno of the failed write (ENOSPC for "no progress") */
} cs_io_failure;

/* How a chunk (and the file's head) reaches the file: pwrite(2). Tests
 * put a slow or failing one in its place before queueing anything. The
 * accounting record's rewrites use pwrite itself: they need no new space,
 * so a disk that refuses chunks still takes them. */
typedef ssize_t (*cs_io_write_fn)(int fd, const void *data, size_t len,
                                  off_t offset);

typedef struct {
  int fd;               /* ordinary writes */
  int direct_fd;        /* O_DIRECT on the same file, or -1 */
  cs_io_write_fn write; /* pwrite */
  cs_trace_zstd *zstd;  /* compress each chunk into a frame, or NULL */
  cs_trace_bin *bin;    /* binary: each chunk a container frame, or NULL */
  /* The queueing thread's own context (cs_io_set_helper), or NULL: with
   * the queue full, it compresses its chunk itself instead of waiting. */
  cs_trace_zstd *helper;
  cs_trace_bin *helper_bin; /* ... binary: its frames, or NULL */
  uint64_t helped;          /* chunks it compressed that way */
  uint64_t file_end;        /* compressed: where the next frame goes */
  bool running;             /* the thread exists */
  bool started;             /* ... and runs io_main */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_mutex_t zstd_lock; /* held by the thread while it compresses */
  pthread_cond_t work;       /* to the thread: a job, or stop */
  pthread_cond_t idle;       /* to the writer: a job finished */
  cs_io_job *head, *tail;
  cs_io_job *writing;  /* taken off the queue, being written (busy) */
  size_t queued_bytes; /* in jobs not yet finished */
  bool busy;           /* the thread is writing a job */
  bool stop;
  bool discarding; /* a write failed: drop jobs until acknowledged */
  bool failure_pending;
  cs_io_failure failure;
  bool direct_refused; /* ordinary writes for every later job */
  int refused_error;
  uint64_t lines_lost; /* in failed and discarded jobs */
  uint64_t bytes_lost; /* ... their text */
  uint64_t write_errors;
  int write_errno;                 /* of the last failed write */
  uint64_t compress_errors;        /* chunks the compressor failed on */
  uint64_t lines_lost_compressing; /* of lines_lost: in those chunks */
  bool acct_kept;                  /* the file has an accounting record */
  uint64_t acct_at;                /* ... whose text starts here */
  bool acct_dirty;                 /* ... and says less than is known */
  cs_acct acct_writer;             /* the writer's side (cs_io_account) */
  uint64_t direct_bytes;
  uint64_t disk_wait_ns; /* cs_io_queue waiting for room (a slow disk) */
  uint64_t disk_waits;
  char *spare[CS_IO_SPARES]; /* finished buffers, for reuse */
  size_t spare_cap[CS_IO_SPARES];
  int nspare;
} cs_trace_io;

/* Start the thread for a file open on `fd` (and `direct_fd`, or -1).
 * With `zstd` (then direct_fd is -1), chunks become zstd frames; the
 * context stays the caller's (free it after cs_io_stop). */
void cs_io_start(cs_trace_io *io, int fd, int direct_fd, cs_trace_zstd *zstd);

/* CCLSCOPE_FORMAT=binary: every chunk becomes a frame of the binary
 * container (trace_binary.h; compressed there when it was made with the
 * zstd context). Right after cs_io_start, before anything is queued; the
 * context stays the caller's. */
void cs_io_set_binary(cs_trace_io *io, cs_trace_bin *bin);

/* Compressed files: a second context, used by the thread that queues
 * (the writer) and never by the I/O thread. When the queue is full, that
 * thread compresses the chunk itself, in its own memory, and queues the
 * frame (the I/O thread writes it in its turn) rather than wait while the
 * rings fill: the two threads compress side by side. Frames so made may
 * take the queue up to twice CS_IO_MAX_QUEUED. The context stays the
 * caller's (free it after cs_io_stop). Binary files: `helper_bin`, made
 * with `helper`, makes those frames (NULL for JSONL). */
void cs_io_set_helper(cs_trace_io *io, cs_trace_zstd *helper,
                      cs_trace_bin *helper_bin);

/* Queue `len` bytes of whole lines at file offset `offset`, `lines` of
 * them. `data` (allocated with malloc or aligned_alloc, capacity `cap`)
 * now belongs to the I/O side. `direct`: offset, length and memory are
 * page-aligned. False, queueing nothing and freeing `data`, when an
 * earlier write failed: *failure says where the file now ends, and the
 * caller counts `lines` (and whatever else it held) as lost. */
bool cs_io_queue(cs_trace_io *io, char *data, size_t cap, size_t len,
                 uint64_t offset, uint64_t lines, bool direct,
                 cs_io_failure *failure);

/* The file's first `len` bytes, before any chunk: whole lines (plain) or
 * raw zstd frames of them (compressed), whose accounting record's text
 * starts at offset `acct_at`; `data` (malloc'd, capacity `cap`) now
 * belongs to the I/O side. Written at offset 0 the ordinary way, and
 * waited for. False when it could not be written (*failure; the file is
 * cut back to empty and the `lines` counted as lost). */
bool cs_io_write_head(cs_trace_io *io, char *data, size_t cap, size_t len,
                      uint64_t lines, uint64_t acct_at, cs_io_failure *failure);

/* The writer's side of the accounting record: the lines and bytes lost
 * before they reached this thread (`w->lines_lost`, `w->bytes_lost`) and
 * the closing fields; the other fields are this thread's and ignored. The
 * record is rewritten soon if that changed it. */
void cs_io_account(cs_trace_io *io, const cs_acct *w);

/* A finished buffer to fill again (capacity in *cap), or NULL. */
char *cs_io_take_spare(cs_trace_io *io, size_t *cap);

/* Wait until everything queued is in the file (and the accounting record
 * up to date). False when a write failed (reported in *failure, as by
 * cs_io_queue). */
bool cs_io_sync(cs_trace_io *io, cs_io_failure *failure);

/* Counters and the direct-I/O verdict, as of now. */
typedef struct {
  uint64_t lines_lost;
  uint64_t bytes_lost;
  uint64_t write_errors;
  uint64_t compress_errors;
  uint64_t lines_lost_compressing;
  uint64_t direct_bytes;
  uint64_t disk_wait_ns; /* the writer thread waited for the disk */
  uint64_t disk_waits;
  bool direct_refused;
  int refused_error;
} cs_io_counters;
void cs_io_get_counters(cs_trace_io *io, cs_io_counters *c);

/* Write what is queued and the accounting record, stop the thread and
 * free the spares (the file descriptors stay open: they are the
 * caller's). */
void cs_io_stop(cs_trace_io *io);

/* fork(): the prepare/parent pair keeps the queue and the compression
 * context consistent across fork (a fork waits for a chunk being
 * compressed); in the child (no thread) everything is freed, nothing
 * written: the queued chunks, the one the parent's thread is writing, the
 * spares. */
void cs_io_atfork_prepare(cs_trace_io *io);
void cs_io_atfork_parent(cs_trace_io *io);
void cs_io_abandon_in_child(cs_trace_io *io);

/* Newlines in p[0, n): the lines a chunk holds. */
uint64_t cs_io_count_lines(const char *p, size_t n);

#endif
