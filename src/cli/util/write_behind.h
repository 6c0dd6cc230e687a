/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/util/write_behind.h — an output file written by a thread of its
 * own, behind the command that fills it.
 *
 * Owns: a few large buffers that the command fills with wb_put and a
 * thread that write()s each full one while the command fills the next, so
 * that copying the output into the page cache (a large part of what
 * `merge` costs) runs beside the command's own work. Bytes reach the file
 * in the order they were put, whole. Without a thread (`threaded` false,
 * or one that cannot be started) wb_put writes each full buffer itself:
 * the same bytes.
 *
 * Memory: WB_BUFFERS buffers of WB_BUFFER_BYTES.
 */
#ifndef CCLSCOPE_CLI_WRITE_BEHIND_H
#define CCLSCOPE_CLI_WRITE_BEHIND_H

#include <stdbool.h>
#include <stddef.h>

enum {
  WB_BUFFERS = 3,             /* one being filled, the others written */
  WB_BUFFER_BYTES = 1u << 20, /* each */
};

typedef struct write_behind write_behind;

/* Write to `fd` (left open by wb_close); NULL when out of memory. */
write_behind *wb_open(int fd, bool threaded);

/* Append `len` bytes. */
void wb_put(write_behind *wb, const void *bytes, size_t len);

/* Wait until every full buffer handed over so far is written (the one
 * being filled stays): what the command says on stderr next comes after
 * them, as after a stdio stream's writes, whatever the thread's timing. */
void wb_wait(write_behind *wb);

/* Everything put so far is in the file (or failed): 0, or the errno of the
 * first write that failed (later puts are dropped once one failed). */
int wb_flush(write_behind *wb);

/* wb_flush, stop the thread, free; 0 or the first write's errno. */
int wb_close(write_behind *wb);

#endif
