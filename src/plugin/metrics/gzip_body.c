/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/gzip_body.c — see gzip_body.h.
 *
 * zlib's ABI is declared in src/common/zlib_abi.h; deflateInit2_ gets the
 * library's own version string and sizeof(z_stream) (zlib checks both),
 * window bits 15 + 16 for a gzip header and trailer instead of a zlib one.
 */
#include "gzip_body.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "zlib_abi.h"

enum {
  GZIP_WINDOW_BITS = 15 + 16,
  MEM_LEVEL = 8,
  LEVEL = 6 /* zlib's default */
};

static struct {
  void *lib;
  const char *(*version)(void);
  int (*init2)(cs_z_stream *, int, int, int, int, int, const char *, int);
  int (*deflate)(cs_z_stream *, int);
  int (*end)(cs_z_stream *);
  unsigned long (*bound)(cs_z_stream *, unsigned long);
} zlib;

bool cs_gzip_load(void) {
  if (zlib.lib)
    return true;
  void *lib = dlopen(CS_ZLIB_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return false;
  zlib.version = (const char *(*)(void))dlsym(lib, "zlibVersion");
  zlib.init2 = (int (*)(cs_z_stream *, int, int, int, int, int, const char *,
                        int))dlsym(lib, "deflateInit2_");
  zlib.deflate = (int (*)(cs_z_stream *, int))dlsym(lib, "deflate");
  zlib.end = (int (*)(cs_z_stream *))dlsym(lib, "deflateEnd");
  zlib.bound = (unsigned long (*)(cs_z_stream *, unsigned long))dlsym(
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
  cs_z_stream z;
  memset(&z, 0, sizeof z);
  if (zlib.init2(&z, LEVEL, CS_Z_DEFLATED, GZIP_WINDOW_BITS, MEM_LEVEL,
                 CS_Z_DEFAULT_STRATEGY, zlib.version(),
                 (int)sizeof z) != CS_Z_OK)
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
  int rc = zlib.deflate(&z, CS_Z_FINISH);
  out->len = z.total_out;
  zlib.end(&z);
  return rc == CS_Z_STREAM_END;
}
