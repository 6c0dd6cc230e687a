/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/zlib_abi.h — the few pieces of zlib's stable ABI that the
 * plugin (gzipping OTLP bodies) and the CLI (reading .jsonl.gz traces)
 * use, declared here so that neither needs zlib's development headers:
 * both dlopen() the runtime library (libz.so.1) and look the functions up
 * by name.
 *
 * z_stream is laid out field for field as zlib.h has had it since zlib
 * 1.0; the *Init2_ functions check the version string's major number and
 * sizeof(z_stream). The numbers are zlib.h's. Nothing is called here.
 */
#ifndef CCLSCOPE_COMMON_ZLIB_ABI_H
#define CCLSCOPE_COMMON_ZLIB_ABI_H

#define CS_ZLIB_SONAME "libz.so.1"
/* Handed to deflateInit2_/inflateInit2_, which compare its major only. */
#define CS_ZLIB_ABI_VERSION "1.2.11"

enum {
  CS_Z_OK = 0,
  CS_Z_STREAM_END = 1,
  CS_Z_BUF_ERROR = -5,
  CS_Z_NO_FLUSH = 0,
  CS_Z_FINISH = 4,
  CS_Z_DEFLATED = 8,
  CS_Z_DEFAULT_STRATEGY = 0
};

typedef struct { /* z_stream */
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
} cs_z_stream;

#endif
