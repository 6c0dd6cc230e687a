/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/trace_codec.c — compressed trace files read as text (see
 * trace_codec.h). The libraries are looked up once, on the first file that
 * needs them, by whichever reading thread gets there first.
 */
#include "read/trace_codec.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cst_format.h"
#include "cst_prefix.h"
#include "read/cst_records.h"
#include "zlib_abi.h"
#include "zstd_abi.h"

/* ---- zlib (its ABI: src/common/zlib_abi.h) ---- */

/* windowBits: 15 (the largest window) + 32: a gzip or zlib header. */
enum { GZIP_WINDOW_BITS = 15 + 32 };

typedef int (*inflate_init2_fn)(cs_z_stream *z, int window_bits,
                                const char *version, int stream_size);
typedef int (*inflate_fn)(cs_z_stream *z, int flush);
typedef int (*inflate_end_fn)(cs_z_stream *z);
typedef int (*inflate_reset_fn)(cs_z_stream *z);

/* ---- the libraries, loaded once ---- */

static struct {
  bool ok;
  cs_zstd_create_dctx_fn create;
  cs_zstd_free_dctx_fn free_dctx;
  cs_zstd_dctx_reset_fn reset;
  cs_zstd_decompress_stream_fn decompress;
  cs_zstd_is_error_fn is_error;
  cs_zstd_dctx_ref_prefix_fn ref_prefix; /* NULL: no binary v3 frames */
} zstd;

static struct {
  bool ok;
  inflate_init2_fn init2;
  inflate_fn inflate;
  inflate_end_fn end;
  inflate_reset_fn reset;
} zlib;

static pthread_once_t zstd_once = PTHREAD_ONCE_INIT;
static pthread_once_t zlib_once = PTHREAD_ONCE_INIT;

static void load_zstd(void) {
  void *lib = dlopen(CS_ZSTD_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return;
  *(void **)&zstd.create = dlsym(lib, "ZSTD_createDCtx");
  *(void **)&zstd.free_dctx = dlsym(lib, "ZSTD_freeDCtx");
  *(void **)&zstd.reset = dlsym(lib, "ZSTD_DCtx_reset");
  *(void **)&zstd.decompress = dlsym(lib, "ZSTD_decompressStream");
  *(void **)&zstd.is_error = dlsym(lib, "ZSTD_isError");
  *(void **)&zstd.ref_prefix = dlsym(lib, "ZSTD_DCtx_refPrefix");
  zstd.ok = zstd.create && zstd.free_dctx && zstd.reset && zstd.decompress &&
            zstd.is_error;
}

static void load_zlib(void) {
  void *lib = dlopen(CS_ZLIB_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return;
  *(void **)&zlib.init2 = dlsym(lib, "inflateInit2_");
  *(void **)&zlib.inflate = dlsym(lib, "inflate");
  *(void **)&zlib.end = dlsym(lib, "inflateEnd");
  *(void **)&zlib.reset = dlsym(lib, "inflateReset");
  zlib.ok = zlib.init2 && zlib.inflate && zlib.end && zlib.reset;
}

/* ---- the stream ---- */

enum { IN_BYTES = 128 << 10 };

struct tc_stream {
  tc_kind kind;
  int fd;
  unsigned char *in; /* bytes read from the file, not yet decoded */
  size_t in_len, in_pos;
  bool file_end;
  uint64_t file_bytes; /* read from the file */
  uint64_t consumed;   /* of those, taken by the decoder */
  uint64_t unit_start; /* where the current frame / member began */
  uint64_t text_out;   /* text given out so far */
  uint64_t unit_text;  /* of it, before the current frame / member */
  bool unit_ended;     /* the last step ended a frame / member */
  cs_zstd_dctx *dctx;
  cs_z_stream z;
  bool z_open;
  /* TC_CST: the current frame's payload, its records decompressed, and
   * the text of the next of them (a piece: TC_CST_PIECE) */
  bool cst_started;     /* the file header was read */
  unsigned cst_version; /* ... and its version */
  unsigned char *frame; /* payload as read from the file */
  size_t frame_cap;
  unsigned char *dec; /* payload decompressed (zstd frames) */
  size_t dec_cap;
  cst_records *records;      /* the compact records' reader, or NULL */
  bool in_frame;             /* the frame has records not made text yet */
  const unsigned char *text; /* lines of the frame, not yet given out */
  size_t text_len, text_pos;
  /* the piece's event lines, decoded (cst_records_decoded), by their
   * offset in s->text */
  const cst_decoded_line *lines;
  size_t nlines, line_at;
  bool cst_end; /* no frame follows (the end, or a torn last frame) */
};

/* Text made of a binary frame's records at a time: a frame is never held
 * as text whole (the plugin's frames hold ~1 MiB of records, ~18 MB of
 * lines), so reading many binary files at once (summary's lock step)
 * costs each file its frame's records and a piece. */
enum { TC_CST_PIECE = 256 << 10 };

tc_kind tc_sniff(const unsigned char *head, size_t n) {
  if (cst_is_binary(head, n))
    return TC_CST;
  if (n >= 4 && head[0] == CS_ZSTD_MAGIC0 && head[1] == CS_ZSTD_MAGIC1 &&
      head[2] == CS_ZSTD_MAGIC2 && head[3] == CS_ZSTD_MAGIC3)
    return TC_ZSTD;
  if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
    return TC_GZIP;
  return TC_PLAIN;
}

const char *tc_name(tc_kind kind) {
  return kind == TC_ZSTD   ? "zstd"
         : kind == TC_GZIP ? "gzip"
         : kind == TC_CST  ? "binary"
                           : "plain";
}

/* The binary container needs libzstd only for compressed frames: it is
 * loaded when the first one comes (cst_frame_text). */
static int open_cst(tc_stream **out, int fd) {
  tc_stream *s = calloc(1, sizeof *s);
  if (!s)
    return ENOMEM;
  s->kind = TC_CST;
  s->fd = fd;
  s->in = malloc(IN_BYTES);
  if (!s->in) {
    tc_close(s);
    return ENOMEM;
  }
  *out = s;
  return 0;
}

int tc_open(tc_stream **out, tc_kind kind, int fd) {
  *out = NULL;
  if (kind == TC_CST)
    return open_cst(out, fd);
  pthread_once(kind == TC_ZSTD ? &zstd_once : &zlib_once,
               kind == TC_ZSTD ? load_zstd : load_zlib);
  if (kind == TC_ZSTD ? !zstd.ok : !zlib.ok)
    return TC_ERR_NO_LIBRARY;
  tc_stream *s = calloc(1, sizeof *s);
  if (!s)
    return ENOMEM;
  s->kind = kind;
  s->fd = fd;
  s->in = malloc(IN_BYTES);
  if (s->in && kind == TC_ZSTD) {
    s->dctx = zstd.create();
  } else if (s->in) {
    s->z_open = zlib.init2(&s->z, GZIP_WINDOW_BITS, CS_ZLIB_ABI_VERSION,
                           (int)sizeof s->z) == CS_Z_OK;
  }
  if (!s->in || (kind == TC_ZSTD ? !s->dctx : !s->z_open)) {
    tc_close(s);
    return ENOMEM;
  }
  *out = s;
  return 0;
}

/* More of the file into the input buffer (which is empty). */
static int fill(tc_stream *s) {
  for (;;) {
    ssize_t n = read(s->fd, s->in, IN_BYTES);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno;
    s->in_len = (size_t)n;
    s->in_pos = 0;
    s->file_bytes += (uint64_t)n;
    s->file_end = n == 0;
    return 0;
  }
}

/* One call of the library on what is buffered: bytes made into *made;
 * false when it rejects the data. */
static bool step_zstd(tc_stream *s, char *buf, size_t len, size_t *made) {
  cs_zstd_in in = {s->in + s->in_pos, s->in_len - s->in_pos, 0};
  cs_zstd_out out = {buf, len, 0};
  size_t r = zstd.decompress(s->dctx, &out, &in);
  s->in_pos += in.pos;
  s->consumed += in.pos;
  *made = out.pos;
  if (zstd.is_error(r))
    return false;
  if (r == 0) { /* a frame ended, all of it given out */
    s->unit_start = s->consumed;
    s->unit_ended = true;
  }
  return true;
}

static bool step_gzip(tc_stream *s, char *buf, size_t len, size_t *made) {
  size_t avail = s->in_len - s->in_pos;
  unsigned give = avail > (1u << 30) ? 1u << 30 : (unsigned)avail;
  unsigned room = len > (1u << 30) ? 1u << 30 : (unsigned)len;
  s->z.next_in = s->in + s->in_pos;
  s->z.avail_in = give;
  s->z.next_out = (unsigned char *)buf;
  s->z.avail_out = room;
  int r = zlib.inflate(&s->z, CS_Z_NO_FLUSH);
  size_t used = give - s->z.avail_in;
  s->in_pos += used;
  s->consumed += used;
  *made = room - s->z.avail_out;
  if (r == CS_Z_STREAM_END) { /* a member ended; another may follow */
    s->unit_start = s->consumed;
    s->unit_ended = true;
    return zlib.reset(&s->z) == CS_Z_OK;
  }
  return r == CS_Z_OK || r == CS_Z_BUF_ERROR;
}

/* ---- the binary container (cst_format.h) ---- */

/* Up to n bytes of the file into dst (fewer only at its end); *got says
 * how many. 0 or an errno value. */
static int cst_take(tc_stream *s, unsigned char *dst, size_t n, size_t *got) {
  *got = 0;
  while (*got < n) {
    if (s->in_pos == s->in_len) {
      if (s->file_end)
        return 0;
      int e = fill(s);
      if (e)
        return e;
      continue;
    }
    size_t k = s->in_len - s->in_pos;
    if (k > n - *got)
      k = n - *got;
    memcpy(dst + *got, s->in + s->in_pos, k);
    s->in_pos += k;
    s->consumed += k;
    *got += k;
  }
  return 0;
}

static bool cst_grow(unsigned char **buf, size_t *cap, size_t need) {
  if (need <= *cap)
    return true;
  size_t cap2 = *cap ? *cap : 256u << 10;
  while (cap2 < need)
    cap2 *= 2;
  unsigned char *p = realloc(*buf, cap2);
  if (!p)
    return false;
  *buf = p;
  *cap = cap2;
  return true;
}

/* A zstd payload of `n` bytes (`whole`: all of the frame) into s->dec;
 * *dec_len bytes made. 0, ENOMEM, TC_ERR_NO_LIBRARY or TC_ERR_CORRUPT (a
 * whole frame the library rejects or that does not end). */
static int cst_unzstd(tc_stream *s, size_t n, bool whole, bool prefixed,
                      size_t *dec_len) {
  pthread_once(&zstd_once, load_zstd);
  if (!zstd.ok || (prefixed && !zstd.ref_prefix))
    return TC_ERR_NO_LIBRARY;
  if (!s->dctx && !(s->dctx = zstd.create()))
    return ENOMEM;
  zstd.reset(s->dctx, CS_ZSTD_RESET_SESSION);
  /* For this frame only (the library forgets it when the frame ends). */
  if (prefixed &&
      zstd.is_error(zstd.ref_prefix(s->dctx, cst_prefix, cst_prefix_len)))
    return TC_ERR_CORRUPT;
  cs_zstd_in in = {s->frame, n, 0};
  *dec_len = 0;
  for (;;) {
    if (!cst_grow(&s->dec, &s->dec_cap, *dec_len + (256u << 10)))
      return ENOMEM;
    cs_zstd_out out = {s->dec + *dec_len, s->dec_cap - *dec_len, 0};
    size_t r = zstd.decompress(s->dctx, &out, &in);
    *dec_len += out.pos;
    if (zstd.is_error(r))
      return whole ? TC_ERR_CORRUPT : 0; /* torn: what came out is kept */
    if (r == 0)
      return in.pos == n || !whole ? 0 : TC_ERR_CORRUPT;
    if (in.pos == n && out.pos < out.size)
      return whole ? TC_ERR_CORRUPT : 0; /* wants more than there is */
  }
}

/* The records of p[0, n) to be made text a piece at a time by
 * cst_next_text (cst_records.h): whole records only; a cut record ends a
 * torn frame. 0 or ENOMEM. */
static int cst_begin_records(tc_stream *s, const unsigned char *p, size_t n,
                             bool whole, uint32_t records) {
  if (!s->records && !(s->records = cst_records_new(s->cst_version)))
    return ENOMEM;
  cst_records_begin(s->records, p, n, whole, records);
  s->in_frame = true;
  return 0;
}

/* The current frame's next piece of text into s->text (none: the frame
 * is done). 0 or an error. */
static int cst_next_text(tc_stream *s) {
  const char *text;
  size_t len;
  s->nlines = s->line_at = 0;
  int e = cst_records_more(s->records, TC_CST_PIECE, &text, &len);
  if (e || len == 0)
    s->in_frame = false;
  if (e)
    return e;
  s->text = (const unsigned char *)text;
  s->text_len = len;
  s->text_pos = 0;
  cst_records_decoded(s->records, &s->lines, &s->nlines);
  return 0;
}

/* The next frame read, its records decompressed and handed to
 * cst_begin_records; s->cst_end when no frame follows it. 0 or an error.
 * A frame cut by the file's end gives its whole records and is the last
 * (tc_torn says so). */
static int cst_next_frame(tc_stream *s) {
  size_t got;
  int e;
  if (!s->cst_started) {
    unsigned char head[CST_FILE_HEADER];
    if ((e = cst_take(s, head, sizeof head, &got)))
      return e;
    unsigned version = cst_file_version(head, got);
    if (got < sizeof head || version < CST_VERSION_MIN || version > CST_VERSION)
      return TC_ERR_CORRUPT;
    s->cst_started = true;
    s->cst_version = version;
  }
  s->unit_start = s->consumed;
  s->unit_text = s->text_out;
  unsigned char fh[CST_FRAME_HEADER];
  if ((e = cst_take(s, fh, sizeof fh, &got)))
    return e;
  if (got < sizeof fh) {
    s->cst_end = true; /* the end, or a header cut short (torn) */
    if (got == 0)
      s->unit_start = s->consumed;
    return 0;
  }
  cst_frame_info info;
  if (!cst_frame_parse(fh, &info))
    return TC_ERR_CORRUPT;
  if (!cst_grow(&s->frame, &s->frame_cap, info.bytes ? info.bytes : 1))
    return ENOMEM;
  if ((e = cst_take(s, s->frame, info.bytes, &got)))
    return e;
  bool whole = got == info.bytes;
  if (!whole)
    s->cst_end = true;
  if (info.codec == CST_CODEC_STORED)
    e = cst_begin_records(s, s->frame, got, whole, info.records);
  else {
    size_t dec_len = 0;
    e = cst_unzstd(s, got, whole, info.codec == CST_CODEC_ZSTD_PREFIX,
                   &dec_len);
    if (!e)
      e = cst_begin_records(s, s->dec, dec_len, whole, info.records);
  }
  if (!e && whole)
    s->unit_start = s->consumed;
  return e;
}

/* Up to `len` bytes of the current piece's text, made if none is left:
 * *text points at them (valid until the next piece is made); 0 at the
 * end, -1 on an error (*err). */
static ssize_t cst_take_text(tc_stream *s, size_t len, const char **text,
                             int *err) {
  while (s->text_pos == s->text_len) {
    if (!s->in_frame && s->cst_end)
      return 0;
    int e = s->in_frame ? cst_next_text(s) : cst_next_frame(s);
    if (e) {
      *err = e;
      return -1;
    }
  }
  size_t k = s->text_len - s->text_pos;
  if (k > len)
    k = len;
  *text = (const char *)s->text + s->text_pos;
  s->text_pos += k;
  s->text_out += k;
  return (ssize_t)k;
}

static ssize_t cst_read(tc_stream *s, char *buf, size_t len, int *err) {
  const char *text;
  ssize_t k = cst_take_text(s, len, &text, err);
  if (k > 0)
    memcpy(buf, text, (size_t)k);
  return k;
}

ssize_t tc_read_piece(tc_stream *s, const char **text, int *err) {
  return cst_take_text(s, SIZE_MAX, text, err);
}

ssize_t tc_read(tc_stream *s, char *buf, size_t len, int *err) {
  if (s->kind == TC_CST)
    return cst_read(s, buf, len, err);
  for (;;) {
    if (s->in_pos == s->in_len && !s->file_end) {
      int e = fill(s);
      if (e) {
        *err = e;
        return -1;
      }
    }
    bool last_call = s->in_pos == s->in_len; /* nothing more to give */
    size_t made = 0;
    s->unit_ended = false;
    bool ok = s->kind == TC_ZSTD ? step_zstd(s, buf, len, &made)
                                 : step_gzip(s, buf, len, &made);
    s->text_out += made;
    if (s->unit_ended) /* what this step made belongs to the ended one */
      s->unit_text = s->text_out;
    if (!ok) {
      *err = TC_ERR_CORRUPT;
      return -1;
    }
    if (made > 0)
      return (ssize_t)made;
    if (last_call)
      return 0;
  }
}

uint64_t tc_file_bytes(const tc_stream *s) {
  return s->file_bytes;
}

bool tc_torn(const tc_stream *s, tc_torn_info *t) {
  t->kind = s->kind;
  t->unit_start = s->unit_start;
  t->unit_bytes = s->file_bytes - s->unit_start;
  t->unit_text = s->text_out - s->unit_text;
  return t->unit_bytes > 0;
}

int tc_rewind(tc_stream *s) {
  if (lseek(s->fd, 0, SEEK_SET) < 0)
    return errno;
  s->in_len = s->in_pos = 0;
  s->file_end = false;
  s->file_bytes = s->consumed = s->unit_start = 0;
  s->text_out = s->unit_text = 0;
  s->cst_started = s->cst_end = s->in_frame = false;
  s->text_len = s->text_pos = 0;
  s->nlines = s->line_at = 0;
  if (s->kind == TC_CST)
    return 0;
  if (s->kind == TC_ZSTD)
    zstd.reset(s->dctx, CS_ZSTD_RESET_SESSION);
  else
    zlib.reset(&s->z);
  return 0;
}

bool tc_line_decoded(tc_stream *s, const char *line, const rec **r,
                     const line_marks **marks, size_t *len) {
  const char *text = (const char *)s->text;
  if (s->kind != TC_CST || !text || line < text || line >= text + s->text_len)
    return false;
  size_t off = (size_t)(line - text);
  while (s->line_at < s->nlines && s->lines[s->line_at].off < off)
    s->line_at++;
  if (s->line_at == s->nlines || s->lines[s->line_at].off != off)
    return false;
  const cst_decoded_line *l = &s->lines[s->line_at++];
  *r = &l->r;
  *marks = &l->marks;
  *len = l->len;
  return true;
}

void tc_close(tc_stream *s) {
  if (!s)
    return;
  if (s->dctx)
    zstd.free_dctx(s->dctx);
  if (s->z_open)
    zlib.end(&s->z);
  free(s->in);
  free(s->frame);
  free(s->dec);
  cst_records_free(s->records);
  free(s);
}
