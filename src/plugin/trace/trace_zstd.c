/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_zstd.c — compressed trace frames (see
 * trace_zstd.h). libzstd's functions are looked up by name; their
 * declarations are src/common/zstd_abi.h.
 */
#include "trace_zstd.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optional_lib.h"
#include "zstd_abi.h"

/* The library, loaded once per process. */
typedef struct {
  cs_zstd_version_fn version;
  cs_zstd_is_error_fn is_error;
  cs_zstd_bound_fn bound;
  cs_zstd_create_cctx_fn create;
  cs_zstd_free_cctx_fn free_cctx;
  cs_zstd_set_param_fn set_param;
  cs_zstd_cctx_reset_fn reset;
  cs_zstd_compress_stream2_fn compress;
  cs_zstd_cctx_ref_prefix_fn ref_prefix;
} zstd_fns;

static zstd_fns lib;
static bool lib_loaded;
static bool lib_too_old;
static unsigned lib_version;
static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;

struct cs_trace_zstd {
  cs_zstd_cctx *cctx;
  char *out; /* the last frame */
  size_t out_cap;
};

static bool resolve(void *handle, const char *name) {
  (void)name;
  zstd_fns f;
  *(void **)&f.version = dlsym(handle, "ZSTD_versionNumber");
  *(void **)&f.is_error = dlsym(handle, "ZSTD_isError");
  *(void **)&f.bound = dlsym(handle, "ZSTD_compressBound");
  *(void **)&f.create = dlsym(handle, "ZSTD_createCCtx");
  *(void **)&f.free_cctx = dlsym(handle, "ZSTD_freeCCtx");
  *(void **)&f.set_param = dlsym(handle, "ZSTD_CCtx_setParameter");
  *(void **)&f.reset = dlsym(handle, "ZSTD_CCtx_reset");
  *(void **)&f.compress = dlsym(handle, "ZSTD_compressStream2");
  /* Optional: without it binary frames are made alone (codec 1). */
  *(void **)&f.ref_prefix = dlsym(handle, "ZSTD_CCtx_refPrefix");
  if (!f.version || !f.is_error || !f.bound || !f.create || !f.free_cctx ||
      !f.set_param || !f.reset || !f.compress)
    return false;
  if (f.version() < CS_ZSTD_MIN_VERSION) {
    lib_too_old = true;
    lib_version = f.version();
    return false;
  }
  lib = f; /* the handle stays open for the life of the process */
  return true;
}

bool cs_tz_load(char *why, size_t why_len) {
  static const char *const names[] = {CS_ZSTD_SONAME};
  pthread_mutex_lock(&lib_lock);
  if (!lib_loaded) {
    char tried[512];
    lib_loaded = cs_optional_lib_find("CCLSCOPE_ZSTD_LIBRARY", names, 1,
                                      resolve, tried, sizeof tried);
    if (!lib_loaded && lib_too_old)
      snprintf(why, why_len, "%s is version %u, older than 1.4.0", tried,
               lib_version);
    else if (!lib_loaded)
      snprintf(why, why_len, "no usable libzstd (tried %s)", tried);
  }
  bool ok = lib_loaded;
  pthread_mutex_unlock(&lib_lock);
  return ok;
}

cs_trace_zstd *cs_tz_new(int level) {
  cs_trace_zstd *z = calloc(1, sizeof *z);
  if (!z)
    return NULL;
  z->cctx = lib.create();
  if (!z->cctx) {
    free(z);
    return NULL;
  }
  lib.set_param(z->cctx, CS_ZSTD_C_LEVEL, level);
  lib.set_param(z->cctx, CS_ZSTD_C_CHECKSUM, 1); /* zstd -t checks it */
  return z;
}

void cs_tz_free(cs_trace_zstd *z) {
  if (!z)
    return;
  lib.free_cctx(z->cctx);
  free(z->out);
  free(z);
}

bool cs_tz_has_prefix(void) {
  return lib.ref_prefix != NULL; /* set once, before any context exists */
}

size_t cs_tz_piece_end(const char *data, size_t len, size_t max) {
  if (len <= max)
    return len;
  for (size_t i = max; i > 0; i--)
    if (data[i - 1] == '\n')
      return i;
  const char *nl = memchr(data + max, '\n', len - max);
  return nl ? (size_t)(nl - data) + 1 : len;
}

/* Room for the frame: the library's bound plus block headers and the
 * frame's header and checksum; grown again if ever short. */
static bool reserve_out(cs_trace_zstd *z, size_t need) {
  if (need <= z->out_cap)
    return true;
  char *p = realloc(z->out, need);
  if (!p)
    return false;
  z->out = p;
  z->out_cap = need;
  return true;
}

/* Feed one piece with `directive` until the library has taken it all and
 * flushed what the directive asks for. */
static bool feed(cs_trace_zstd *z, const char *piece, size_t len, int directive,
                 cs_zstd_out *out) {
  cs_zstd_in in = {.src = piece, .size = len, .pos = 0};
  for (;;) {
    size_t left = lib.compress(z->cctx, out, &in, directive);
    if (lib.is_error(left)) {
      errno = EIO;
      return false;
    }
    if (left == 0 && in.pos == in.size)
      return true;
    /* more to flush: the output is full */
    size_t grow = out->size + (left > 4096 ? left : 4096);
    if (!reserve_out(z, grow)) {
      errno = ENOMEM;
      return false;
    }
    out->dst = z->out;
    out->size = z->out_cap;
  }
}

bool cs_tz_frame(cs_trace_zstd *z, const char *data, size_t len,
                 const char **frame, size_t *frame_len) {
  size_t pieces = len / CS_ZSTD_BLOCK_MAX + 2;
  if (!reserve_out(z, lib.bound(len) + 64 + 8 * pieces)) {
    errno = ENOMEM;
    return false;
  }
  cs_zstd_out out = {.dst = z->out, .size = z->out_cap, .pos = 0};
  size_t at = 0;
  do {
    size_t n = cs_tz_piece_end(data + at, len - at, CS_ZSTD_BLOCK_MAX);
    bool last = at + n == len;
    if (!feed(z, data + at, n, last ? CS_ZSTD_E_END : CS_ZSTD_E_FLUSH, &out)) {
      int err = errno;
      lib.reset(z->cctx, CS_ZSTD_RESET_SESSION); /* next frame starts clean */
      errno = err;
      return false;
    }
    at += n;
  } while (at < len);
  *frame = z->out;
  *frame_len = out.pos;
  return true;
}

bool cs_tz_frame_whole(cs_trace_zstd *z, const char *prefix, size_t prefix_len,
                       const char *data, size_t len, const char **frame,
                       size_t *frame_len) {
  /* With room for the library's bound, one ZSTD_e_end call compresses
   * straight from data into out (no copy into the context's own input
   * buffer, no flush per piece). */
  if (!reserve_out(z, lib.bound(len) + 64)) {
    errno = ENOMEM;
    return false;
  }
  /* For this frame only: the library forgets it when the frame ends. */
  if (prefix && (!lib.ref_prefix ||
                 lib.is_error(lib.ref_prefix(z->cctx, prefix, prefix_len)))) {
    errno = EIO;
    return false;
  }
  cs_zstd_out out = {.dst = z->out, .size = z->out_cap, .pos = 0};
  if (!feed(z, data, len, CS_ZSTD_E_END, &out)) {
    int err = errno;
    lib.reset(z->cctx, CS_ZSTD_RESET_SESSION); /* next frame starts clean */
    errno = err;
    return false;
  }
  *frame = z->out;
  *frame_len = out.pos;
  return true;
}

/* ---- raw frames (the zstd format's own layout, no library) ---- */

/* The frame header: magic number, a descriptor saying "single segment,
 * content size in N bytes, no checksum", and the content size. */
static size_t raw_frame_header(size_t len, unsigned char *out) {
  static const unsigned char magic[4] = {CS_ZSTD_MAGIC0, CS_ZSTD_MAGIC1,
                                         CS_ZSTD_MAGIC2, CS_ZSTD_MAGIC3};
  memcpy(out, magic, 4);
  const unsigned single_segment = 1u << 5;
  uint64_t size = len;
  unsigned size_flag, size_bytes;
  if (len < 256) {
    size_flag = 0;
    size_bytes = 1;
  } else if (len < 256 + 65536) {
    size_flag = 1;
    size_bytes = 2;
    size -= 256; /* the 2-byte form counts from 256 */
  } else if (len <= UINT32_MAX) {
    size_flag = 2;
    size_bytes = 4;
  } else {
    size_flag = 3;
    size_bytes = 8;
  }
  out[4] = (unsigned char)(size_flag << 6 | single_segment);
  for (unsigned i = 0; i < size_bytes; i++)
    out[5 + i] = (unsigned char)(size >> (8 * i));
  return 5 + size_bytes;
}

size_t cs_tz_raw_frame_size(size_t len) {
  unsigned char header[16];
  size_t blocks =
      len == 0 ? 1 : (len + CS_ZSTD_BLOCK_MAX - 1) / CS_ZSTD_BLOCK_MAX;
  return raw_frame_header(len, header) + 3 * blocks + len;
}

size_t cs_tz_raw_frame(const char *data, size_t len, char *out) {
  unsigned char *p = (unsigned char *)out;
  p += raw_frame_header(len, p);
  size_t at = 0;
  do {
    size_t n = len - at < CS_ZSTD_BLOCK_MAX ? len - at : CS_ZSTD_BLOCK_MAX;
    bool last = at + n == len;
    /* Block header, little endian: last-block bit, type 0 (raw), size. */
    uint32_t block = (uint32_t)(n << 3) | (last ? 1u : 0u);
    p[0] = (unsigned char)block;
    p[1] = (unsigned char)(block >> 8);
    p[2] = (unsigned char)(block >> 16);
    memcpy(p + 3, data + at, n);
    p += 3 + n;
    at += n;
  } while (at < len);
  return (size_t)(p - (unsigned char *)out);
}
