/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/failing_zstd.c — a stand-in libzstd whose
 * compression always fails, for the tests of what a failing compressor
 * costs a compressed trace (CCLSCOPE_ZSTD_LIBRARY, tests/e2e/full_disk.sh).
 *
 * It exports the eight functions the plugin looks up (trace_zstd.c) with
 * libzstd's signatures and conventions: a recent enough version, contexts
 * that can be created, configured and reset, and ZSTD_compressStream2
 * returning an error code (a value ZSTD_isError recognises) on every call,
 * as libzstd does when it cannot go on (out of memory, a bad parameter).
 */
#include <stddef.h>
#include <stdlib.h>

#define VISIBLE __attribute__((visibility("default")))

/* libzstd's error codes are the last 120 values of size_t. */
#define ERROR_GENERIC ((size_t)-1)
#define ERROR_CODE_MAX 120

typedef struct {
  int level; /* what ZSTD_CCtx_setParameter was told, unused */
} failing_cctx;

typedef struct { /* ZSTD_inBuffer */
  const void *src;
  size_t size;
  size_t pos;
} in_buffer;

typedef struct { /* ZSTD_outBuffer */
  void *dst;
  size_t size;
  size_t pos;
} out_buffer;

VISIBLE unsigned ZSTD_versionNumber(void);
VISIBLE unsigned ZSTD_isError(size_t code);
VISIBLE size_t ZSTD_compressBound(size_t src_size);
VISIBLE failing_cctx *ZSTD_createCCtx(void);
VISIBLE size_t ZSTD_freeCCtx(failing_cctx *c);
VISIBLE size_t ZSTD_CCtx_setParameter(failing_cctx *c, int param, int value);
VISIBLE size_t ZSTD_CCtx_reset(failing_cctx *c, int directive);
VISIBLE size_t ZSTD_compressStream2(failing_cctx *c, out_buffer *out,
                                    in_buffer *in, int end_directive);

unsigned ZSTD_versionNumber(void) {
  return 10505; /* 1.5.5 */
}

unsigned ZSTD_isError(size_t code) {
  return code > (size_t)0 - ERROR_CODE_MAX;
}

size_t ZSTD_compressBound(size_t src_size) {
  return src_size + src_size / 255 + 64;
}

failing_cctx *ZSTD_createCCtx(void) {
  return calloc(1, sizeof(failing_cctx));
}

size_t ZSTD_freeCCtx(failing_cctx *c) {
  free(c);
  return 0;
}

size_t ZSTD_CCtx_setParameter(failing_cctx *c, int param, int value) {
  (void)param;
  c->level = value;
  return 0;
}

size_t ZSTD_CCtx_reset(failing_cctx *c, int directive) {
  (void)c;
  (void)directive;
  return 0;
}

size_t ZSTD_compressStream2(failing_cctx *c, out_buffer *out, in_buffer *in,
                            int end_directive) {
  (void)c;
  (void)out;
  (void)in;
  (void)end_directive;
  return ERROR_GENERIC;
}
