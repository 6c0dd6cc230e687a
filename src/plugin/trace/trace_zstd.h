/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_zstd.h — compressing the trace file's chunks with
 * libzstd, found at run time (CCLSCOPE_COMPRESS=zstd[:level]).
 *
 * Owns: loading libzstd.so.1 (dlopen through optional_lib.h, never a link
 * dependency; CCLSCOPE_ZSTD_LIBRARY may name another), and turning a chunk
 * of whole lines into one zstd frame whose blocks each end on a line
 * boundary: the chunk is fed in pieces of at most one block's worth
 * (CS_ZSTD_BLOCK_MAX) that end with a '\n', each flushed (ZSTD_e_flush
 * closes the block), the last one ending the frame. A frame therefore
 * decompresses to whole lines, and so does any prefix of it that ends
 * after a block: a frame cut short (a kill inside its write) gives whole
 * lines and an error, never half a line. History is kept across the
 * blocks of a frame, not across frames (each frame stands alone).
 *
 * Also a frame that stores text as it is (raw blocks), made without the
 * library: the file's first lines and its accounting record are written
 * that way (trace_accounting.h), so that they need no compressor and the
 * record's text sits at a known place in the file.
 *
 * Used by the I/O thread only (one context per file); the library is
 * loaded once per process. The raw frames need neither.
 */
#ifndef CCLSCOPE_TRACE_ZSTD_H
#define CCLSCOPE_TRACE_ZSTD_H

#include <stdbool.h>
#include <stddef.h>

/* Level 1: faster and smaller than 3 on traces (docs/benchmarks.md). */
#define CS_TZ_LEVEL_DEFAULT 1
#define CS_TZ_LEVEL_MIN 1
#define CS_TZ_LEVEL_MAX 19
/* zstd's fast levels (negative: less search, larger output), -1 to this. */
#define CS_TZ_LEVEL_FAST_MIN (-5)

typedef struct cs_trace_zstd cs_trace_zstd;

/* Load libzstd once per process. False when it is missing or too old;
 * `why` then says what was tried. */
bool cs_tz_load(char *why, size_t why_len);

/* A compression context at `level` (the library must be loaded), NULL
 * when out of memory. */
cs_trace_zstd *cs_tz_new(int level);
void cs_tz_free(cs_trace_zstd *z);

/* Compress data[0, len) (whole lines) into one frame, kept in z until the
 * next call. False (errno set: ENOMEM, or EIO for a library error) when
 * it could not be made. */
bool cs_tz_frame(cs_trace_zstd *z, const char *data, size_t len,
                 const char **frame, size_t *frame_len);

/* The same for data that is not lines (the binary container's records,
 * trace_binary.h): the chunk is given to the library whole, which cuts
 * its blocks where it likes (every 128 KiB of input), straight from
 * data: on binary records 14 % fewer of libzstd's instructions than
 * cs_tz_frame's flushed pieces, for the same size (docs/benchmarks.md
 * "Binary traces, version 2: zstd settings"). A prefix of the frame still
 * decompresses to a prefix of the data, cut anywhere. With `prefix` (not
 * NULL) the frame is made against prefix[0, prefix_len) as raw content
 * (ZSTD_CCtx_refPrefix; the binary container's cst_prefix.h): it then
 * reads only with the same bytes handed to the decompressor. */
bool cs_tz_frame_whole(cs_trace_zstd *z, const char *prefix, size_t prefix_len,
                       const char *data, size_t len, const char **frame,
                       size_t *frame_len);

/* Does the loaded library make frames against a prefix (a stand-in
 * without ZSTD_CCtx_refPrefix does not: cs_tz_frame_whole then fails
 * when given one)? */
bool cs_tz_has_prefix(void);

/* A frame holding data[0, len) uncompressed, in raw blocks of at most
 * CS_ZSTD_BLOCK_MAX (no checksum: zstd -t and every decoder accept it).
 * cs_tz_raw_frame_size: its size; cs_tz_raw_frame writes it to `out`
 * (that much room) and returns it. With len <= CS_ZSTD_BLOCK_MAX there is
 * one block and the data is the frame's last `len` bytes. */
size_t cs_tz_raw_frame_size(size_t len);
size_t cs_tz_raw_frame(const char *data, size_t len, char *out);

/* Where the next piece of data[0, len) ends: after the last '\n' within
 * the first `max` bytes, or after the first '\n' if a line is longer, or
 * at len. Exposed for the unit test. */
size_t cs_tz_piece_end(const char *data, size_t len, size_t max);

#endif
