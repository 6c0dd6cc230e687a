/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/cst_prefix.h — the text that a binary trace's compressed
 * frames are compressed against (codec CST_CODEC_ZSTD_PREFIX, container
 * version 3; docs/trace-format.md "Binary traces").
 *
 * zstd lets a frame refer back into a "prefix" the compressor and the
 * decompressor both hold (a raw-content dictionary, ZSTD_CCtx_refPrefix /
 * ZSTD_DCtx_refPrefix). The rare lines every file holds (process, thread,
 * lifecycle, processEnd) are mostly the same keys and words in every run,
 * and a small frame cannot learn them from itself: against this text the
 * process line's frame is ~80 bytes instead of ~470, a processEnd's ~110
 * instead of ~380 (docs/benchmarks.md "Binary traces, version 3").
 *
 * The text is part of the file format: a frame written against it reads
 * only against the very same bytes. NEVER change it; a different text
 * needs a new codec number (and the old text kept for reading).
 */
#ifndef CCLSCOPE_CST_PREFIX_H
#define CCLSCOPE_CST_PREFIX_H

#include <stddef.h>

extern const char cst_prefix[];
extern const size_t cst_prefix_len; /* bytes of cst_prefix, no NUL */

#endif
