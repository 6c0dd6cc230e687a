/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/zstd_frames.c — what libzstd's parameters do to a binary trace's
 * frames: the stored frames of plain `.cst` files (CCLSCOPE_FORMAT=binary,
 * no CCLSCOPE_COMPRESS) compressed again with the level, parameters,
 * piece size and checksum given, as the plugin's I/O thread would, and
 * the bytes in and out printed. Run under
 *   valgrind --tool=callgrind --toggle-collect=compress_frames
 * its instruction count is libzstd's cost for those frames alone.
 *
 *   zstd_frames [-l LEVEL] [-s STRATEGY] [-w WINDOWLOG] [-h HASHLOG]
 *               [-m MINMATCH] [-t TARGETLENGTH] [-c CHECKSUM 0|1]
 *               [-p PIECE] [-P PREFIX 0|1] FILE.cst...
 *
 * PIECE 0 (the default) gives each frame to ZSTD_compressStream2 whole
 * with ZSTD_e_end (the plugin's binary frames, trace_zstd.c
 * cs_tz_frame_whole); PIECE N feeds it in pieces of at most N bytes that
 * end after a '\n' byte, each flushed (cs_tz_frame, JSONL's way). The
 * parameters not given are the level's. Each file's first two frames
 * (the process and accounting records, never compressed by the plugin)
 * are left out. PREFIX 1 makes each frame against the container's prefix
 * text (codec 2 of version 3, src/common/cst_prefix.h), as the plugin
 * does since then. libzstd is dlopen'ed like the plugin's (src/common/
 * zstd_abi.h); the parameter numbers are zstd.h's stable ones.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cst_format.h"
#include "cst_prefix.h"
#include "zstd_abi.h"

/* ZSTD_cParameter values beyond zstd_abi.h's (zstd.h, stable API). */
enum {
  P_WINDOW_LOG = 101,
  P_HASH_LOG = 102,
  P_MIN_MATCH = 105,
  P_TARGET_LENGTH = 106,
  P_STRATEGY = 107,
};

typedef size_t (*set_param_fn)(cs_zstd_cctx *c, int param, int value);

static cs_zstd_compress_stream2_fn compress_stream2;
static cs_zstd_is_error_fn is_error;
static cs_zstd_cctx_ref_prefix_fn ref_prefix; /* NULL: frames made alone */

/* One frame's payloads, read from a file. */
typedef struct {
  const char *data; /* the records */
  size_t len;
} payload;

static char *out;      /* the compressed frame (not kept) */
static size_t out_cap; /* room: the bound of the largest payload */

/* Where the next piece of data[0, len) ends (trace_zstd.c's rule). */
static size_t piece_end(const char *data, size_t len, size_t max) {
  if (len <= max)
    return len;
  for (size_t i = max; i > 0; i--)
    if (data[i - 1] == '\n')
      return i;
  const char *nl = memchr(data + max, '\n', len - max);
  return nl ? (size_t)(nl - data) + 1 : len;
}

/* One zstd frame of p; its size, 0 on a library error. */
static size_t compress_one(cs_zstd_cctx *c, payload p, size_t piece) {
  cs_zstd_out o = {out, out_cap, 0};
  if (ref_prefix && is_error(ref_prefix(c, cst_prefix, cst_prefix_len)))
    return 0;
  size_t at = 0;
  do {
    size_t n =
        piece == 0 ? p.len - at : piece_end(p.data + at, p.len - at, piece);
    bool last = at + n == p.len;
    cs_zstd_in in = {p.data + at, n, 0};
    size_t left =
        compress_stream2(c, &o, &in, last ? CS_ZSTD_E_END : CS_ZSTD_E_FLUSH);
    if (is_error(left) || left != 0 || in.pos != n)
      return 0; /* out_cap is the bound: one call always finishes */
    at += n;
  } while (at < p.len);
  return o.pos;
}

/* What callgrind counts (--toggle-collect): every frame compressed; the
 * total compressed size, 0 on a library error. Not static, so that its
 * name stays as it is. */
size_t compress_frames(cs_zstd_cctx *c, const payload *p, size_t n,
                       size_t piece);
__attribute__((noinline)) size_t
compress_frames(cs_zstd_cctx *c, const payload *p, size_t n, size_t piece) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    size_t z = compress_one(c, p[i], piece);
    if (z == 0)
      return 0;
    total += z;
  }
  return total;
}

/* The stored frames of `path` after its first two, appended to *p. */
static bool read_frames(const char *path, payload **p, size_t *n, size_t *cap,
                        size_t *largest) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return false;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc(size > 0 ? (size_t)size : 1);
  bool ok = buf && size >= CST_FILE_HEADER &&
            fread(buf, 1, (size_t)size, f) == (size_t)size &&
            cst_is_binary(buf, (size_t)size);
  fclose(f);
  if (!ok) {
    fprintf(stderr, "zstd_frames: %s is not a binary trace\n", path);
    free(buf);
    return false;
  }
  size_t at = CST_FILE_HEADER;
  unsigned seen = 0;
  while (at + CST_FRAME_HEADER <= (size_t)size) {
    cst_frame_info info;
    if (!cst_frame_parse(buf + at, &info) || info.codec != CST_CODEC_STORED ||
        at + CST_FRAME_HEADER + info.bytes > (size_t)size) {
      fprintf(stderr, "zstd_frames: %s: no whole stored frame at %zu\n", path,
              at);
      return false; /* buf stays: earlier payloads point into it */
    }
    if (seen++ >= 2 && info.bytes > 0) {
      if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *p = realloc(*p, *cap * sizeof **p);
        if (!*p)
          return false;
      }
      (*p)[(*n)++] =
          (payload){(const char *)buf + at + CST_FRAME_HEADER, info.bytes};
      if (info.bytes > *largest)
        *largest = info.bytes;
    }
    at += CST_FRAME_HEADER + info.bytes;
  }
  return true;
}

int main(int argc, char **argv) {
  int level = 1, checksum = 1, against_prefix = 0;
  int params[][2] = {{P_STRATEGY, 0},
                     {P_WINDOW_LOG, 0},
                     {P_HASH_LOG, 0},
                     {P_MIN_MATCH, 0},
                     {P_TARGET_LENGTH, 0}};
  size_t piece = 0;
  int opt;
  while ((opt = getopt(argc, argv, "l:s:w:h:m:t:c:p:P:")) != -1) {
    switch (opt) {
    case 'l':
      level = atoi(optarg);
      break;
    case 's':
      params[0][1] = atoi(optarg);
      break;
    case 'w':
      params[1][1] = atoi(optarg);
      break;
    case 'h':
      params[2][1] = atoi(optarg);
      break;
    case 'm':
      params[3][1] = atoi(optarg);
      break;
    case 't':
      params[4][1] = atoi(optarg);
      break;
    case 'c':
      checksum = atoi(optarg);
      break;
    case 'p':
      piece = strtoul(optarg, NULL, 0);
      break;
    case 'P':
      against_prefix = atoi(optarg);
      break;
    default:
      return 2;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "usage: zstd_frames [-l LEVEL] [-s STRATEGY] [-w WLOG] "
                    "[-h HLOG] [-m MINMATCH] [-t TLEN] [-c 0|1] [-p PIECE] "
                    "[-P 0|1] FILE.cst...\n");
    return 2;
  }
  void *lib = dlopen(CS_ZSTD_SONAME, RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "zstd_frames: %s\n", dlerror());
    return 1;
  }
  cs_zstd_create_cctx_fn create;
  cs_zstd_bound_fn bound;
  set_param_fn set_param;
  *(void **)&create = dlsym(lib, "ZSTD_createCCtx");
  *(void **)&bound = dlsym(lib, "ZSTD_compressBound");
  *(void **)&set_param = dlsym(lib, "ZSTD_CCtx_setParameter");
  *(void **)&compress_stream2 = dlsym(lib, "ZSTD_compressStream2");
  *(void **)&is_error = dlsym(lib, "ZSTD_isError");
  if (against_prefix)
    *(void **)&ref_prefix = dlsym(lib, "ZSTD_CCtx_refPrefix");
  if (!create || !bound || !set_param || !compress_stream2 || !is_error ||
      (against_prefix && !ref_prefix)) {
    fprintf(stderr, "zstd_frames: libzstd lacks the stable API\n");
    return 1;
  }
  payload *p = NULL;
  size_t n = 0, cap = 0, largest = 0, in_bytes = 0;
  for (int a = optind; a < argc; a++)
    if (!read_frames(argv[a], &p, &n, &cap, &largest))
      return 1;
  for (size_t i = 0; i < n; i++)
    in_bytes += p[i].len;
  out_cap = bound(largest) + 4096;
  out = malloc(out_cap);
  cs_zstd_cctx *c = create();
  if (!out || !c)
    return 1;
  bool ok = !is_error(set_param(c, CS_ZSTD_C_LEVEL, level)) &&
            !is_error(set_param(c, CS_ZSTD_C_CHECKSUM, checksum));
  for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
    if (params[i][1] != 0)
      ok = ok && !is_error(set_param(c, params[i][0], params[i][1]));
  if (!ok) {
    fprintf(stderr, "zstd_frames: libzstd refused a parameter\n");
    return 1;
  }
  size_t out_bytes = compress_frames(c, p, n, piece);
  if (out_bytes == 0) {
    fprintf(stderr, "zstd_frames: libzstd failed\n");
    return 1;
  }
  printf("frames %zu in %zu out %zu ratio %.3f\n", n, in_bytes, out_bytes,
         (double)in_bytes / (double)out_bytes);
  return 0;
}
