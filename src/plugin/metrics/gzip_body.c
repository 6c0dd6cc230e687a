/*
 * src/plugin/metrics/gzip_body.c — see gzip_body.h.
 *
 * zlib's ABI, declared here: z_stream as in zlib.h (stable since zlib
 * 1.0), deflateInit2_ with the library's own version string and
 * sizeof(z_stream) (zlib checks both), window bits 15 + 16 for a gzip
 * header and trailer instead of a zlib one.
 */
#include "gzip_body.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const unsigned char *next_in;
  unsigned avail_in;
  unsigned long total_in;
  unsigned char *next_out;
  unsigned avail_out;
  unsigned long total_out;
  const char *msg;
  void *state;
  void *zalloc, *zfree, *opaque; /* NULL: zlib's own malloc/free */
  int data_type;
  unsigned long adler;
  unsigned long reserved;
} z_stream_abi;

enum {
  Z_OK_ = 0,
  Z_STREAM_END_ = 1,
  Z_FINISH_ = 4,
  Z_DEFLATED_ = 8,
  Z_DEFAULT_STRATEGY_ = 0,
  GZIP_WINDOW_BITS = 15 + 16,
  MEM_LEVEL = 8,
  LEVEL = 6 /* zlib's default */
};

static struct {
  void *lib;
  const char *(*version)(void);
  int (*init2)(z_stream_abi *, int, int, int, int, int, const char *, int);
  int (*deflate)(z_stream_abi *, int);
  int (*end)(z_stream_abi *);
  unsigned long (*bound)(z_stream_abi *, unsigned long);
} zlib;

bool cs_gzip_load(void) {
  if (zlib.lib)
    return true;
  void *lib = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return false;
  zlib.version = (const char *(*)(void))dlsym(lib, "zlibVersion");
  zlib.init2 = (int (*)(z_stream_abi *, int, int, int, int, int, const char *,
                        int))dlsym(lib, "deflateInit2_");
  zlib.deflate = (int (*)(z_stream_abi *, int))dlsym(lib, "deflate");
  zlib.end = (int (*)(z_stream_abi *))dlsym(lib, "deflateEnd");
  zlib.bound = (unsigned long (*)(z_stream_abi *, unsigned long))dlsym(
      lib, "deflateBound");
  if (!zlib.version || !zlib.init2 || !zlib.deflate || !zlib.end ||
      !zlib.bound) {
    dlclose(lib);
    memset(&zlib, 0, sizeof zlib);
    return false;
  }
  zlib.lib = lib;
  return true;
}

void cs_gzip_unload(void) {
  if (zlib.lib)
    dlclose(zlib.lib);
  memset(&zlib, 0, sizeof zlib);
}

bool cs_gzip(const void *in, size_t len, cs_bytes *out) {
  out->len = 0;
  if (!zlib.lib || len > 0xFFFFFFFFu / 2)
    return false;
  z_stream_abi z;
  memset(&z, 0, sizeof z);
  if (zlib.init2(&z, LEVEL, Z_DEFLATED_, GZIP_WINDOW_BITS, MEM_LEVEL,
                 Z_DEFAULT_STRATEGY_, zlib.version(), (int)sizeof z) != Z_OK_)
    return false;
  /* deflateBound covers a zlib wrapper; a gzip one is 12 bytes longer. */
  size_t need = zlib.bound(&z, (unsigned long)len) + 32;
  if (need > out->cap) {
    unsigned char *p = realloc(out->data, need);
    if (!p) {
      zlib.end(&z);
      return false;
    }
    out->data = p;
    out->cap = need;
  }
  z.next_in = in;
  z.avail_in = (unsigned)len;
  z.next_out = out->data;
  z.avail_out = (unsigned)out->cap;
  int rc = zlib.deflate(&z, Z_FINISH_);
  out->len = z.total_out;
  zlib.end(&z);
  return rc == Z_STREAM_END_;
}
