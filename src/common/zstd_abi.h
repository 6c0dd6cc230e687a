/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/zstd_abi.h — the few pieces of libzstd's stable ABI that the
 * plugin (compressing traces) and the CLI (reading them) use, declared here
 * so that neither needs libzstd's development headers: both dlopen() the
 * runtime library (libzstd.so.1) and look these functions up by name.
 *
 * Everything here is libzstd's documented stable API (zstd.h, "stable
 * API", present since v1.4.0): the streaming buffers, the parameter and
 * directive numbers, and the function signatures. Nothing is called here.
 */
#ifndef CCLSCOPE_COMMON_ZSTD_ABI_H
#define CCLSCOPE_COMMON_ZSTD_ABI_H

#include <stddef.h>

/* The library's soname on every Linux distribution since 2016. */
#define CS_ZSTD_SONAME "libzstd.so.1"

/* ZSTD_compressStream2 first appeared as stable API in v1.4.0. */
#define CS_ZSTD_MIN_VERSION 10400u

/* The first four bytes of every zstd frame (0xFD2FB528, little endian). */
#define CS_ZSTD_MAGIC0 0x28
#define CS_ZSTD_MAGIC1 0xB5
#define CS_ZSTD_MAGIC2 0x2F
#define CS_ZSTD_MAGIC3 0xFD

/* Uncompressed bytes one block holds at most (ZSTD_BLOCKSIZE_MAX). */
#define CS_ZSTD_BLOCK_MAX ((size_t)128 << 10)

typedef struct cs_zstd_cctx cs_zstd_cctx; /* ZSTD_CCtx, opaque */
typedef struct cs_zstd_dctx cs_zstd_dctx; /* ZSTD_DCtx, opaque */

typedef struct { /* ZSTD_inBuffer */
  const void *src;
  size_t size;
  size_t pos;
} cs_zstd_in;

typedef struct { /* ZSTD_outBuffer */
  void *dst;
  size_t size;
  size_t pos;
} cs_zstd_out;

/* ZSTD_cParameter values. */
enum { CS_ZSTD_C_LEVEL = 100, CS_ZSTD_C_CHECKSUM = 201 };
/* ZSTD_EndDirective values. */
enum { CS_ZSTD_E_CONTINUE = 0, CS_ZSTD_E_FLUSH = 1, CS_ZSTD_E_END = 2 };
/* ZSTD_ResetDirective: ZSTD_reset_session_only. */
enum { CS_ZSTD_RESET_SESSION = 1 };

typedef unsigned (*cs_zstd_version_fn)(void);
typedef unsigned (*cs_zstd_is_error_fn)(size_t code);
typedef const char *(*cs_zstd_error_name_fn)(size_t code);
typedef size_t (*cs_zstd_bound_fn)(size_t src_size);
typedef cs_zstd_cctx *(*cs_zstd_create_cctx_fn)(void);
typedef size_t (*cs_zstd_free_cctx_fn)(cs_zstd_cctx *c);
typedef size_t (*cs_zstd_set_param_fn)(cs_zstd_cctx *c, int param, int value);
typedef size_t (*cs_zstd_cctx_reset_fn)(cs_zstd_cctx *c, int directive);
typedef size_t (*cs_zstd_compress_stream2_fn)(cs_zstd_cctx *c, cs_zstd_out *out,
                                              cs_zstd_in *in,
                                              int end_directive);
/* ZSTD_CCtx_refPrefix / ZSTD_DCtx_refPrefix (stable since v1.4.0): the
 * next frame only is made, or read, against prefix[0, size) as raw
 * content (the binary trace's frames, src/common/cst_prefix.h). */
typedef size_t (*cs_zstd_cctx_ref_prefix_fn)(cs_zstd_cctx *c,
                                             const void *prefix, size_t size);
typedef size_t (*cs_zstd_dctx_ref_prefix_fn)(cs_zstd_dctx *d,
                                             const void *prefix, size_t size);
typedef cs_zstd_dctx *(*cs_zstd_create_dctx_fn)(void);
typedef size_t (*cs_zstd_free_dctx_fn)(cs_zstd_dctx *d);
typedef size_t (*cs_zstd_dctx_reset_fn)(cs_zstd_dctx *d, int directive);
typedef size_t (*cs_zstd_decompress_stream_fn)(cs_zstd_dctx *d,
                                               cs_zstd_out *out,
                                               cs_zstd_in *in);

#endif
