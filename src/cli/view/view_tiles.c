/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/view/view_tiles.c — see view_tiles.h.
 */
#include "view/view_tiles.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

bool view_tiles_init(view_tiles *t, const char *page_path,
                     uint64_t tile_bytes) {
  memset(t, 0, sizeof *t);
  t->tile_bytes = tile_bytes;
  size_t n = strlen(page_path);
  for (const char *ext = ".html", *ext2 = ".htm"; ext; ext = ext2, ext2 = NULL)
    if (n > strlen(ext) && strcmp(page_path + n - strlen(ext), ext) == 0) {
      n -= strlen(ext);
      break;
    }
  t->dir = malloc(n + sizeof ".files");
  if (!t->dir)
    return false;
  memcpy(t->dir, page_path, n);
  strcpy(t->dir + n, ".files");
  const char *slash = strrchr(t->dir, '/');
  t->name = strdup(slash ? slash + 1 : t->dir);
  if (!t->name) {
    free(t->dir);
    t->dir = NULL;
    return false;
  }
  return true;
}

void view_tiles_free(view_tiles *t) {
  if (t->extra)
    fclose(t->extra);
  if (t->file)
    fclose(t->file);
  free(t->dir);
  free(t->name);
  free(t->ev);
  free(t->tm);
  free(t->mk);
  free(t->index);
  memset(t, 0, sizeof *t);
}

static void fail(view_tiles *t, int error) {
  if (!t->failed)
    t->error = error;
  t->failed = true;
}

/* The folder, made or emptied of the tiles of an earlier page (only files
 * named tile-*.js: nothing else of the user's is touched). */
static bool prepare_folder(view_tiles *t) {
  if (t->created)
    return true;
  if (mkdir(t->dir, 0777) != 0) {
    struct stat st;
    if (errno != EEXIST || stat(t->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      fail(t, errno == EEXIST ? ENOTDIR : errno);
      return false;
    }
    DIR *d = opendir(t->dir);
    if (!d) {
      fail(t, errno);
      return false;
    }
    struct dirent *de;
    char path[4096];
    while ((de = readdir(d)) != NULL) {
      size_t len = strlen(de->d_name);
      if (strncmp(de->d_name, "tile-", 5) != 0 || len < 8 ||
          strcmp(de->d_name + len - 3, ".js") != 0)
        continue;
      if (snprintf(path, sizeof path, "%s/%s", t->dir, de->d_name) <
          (int)sizeof path)
        remove(path);
    }
    closedir(d);
  }
  t->created = true;
  return true;
}

/* ---- the template-literal stream: \ ` $ escaped ---- */

/* Whether any of the 8 bytes of `w` is one that a template literal needs
 * escaped (\ ` $): a byte equal to c is a zero byte of w ^ (c * ONES). */
static bool word_needs_escape(uint64_t w) {
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  uint64_t a = w ^ (ones * (uint8_t)'\\'), b = w ^ (ones * (uint8_t)'`'),
           c = w ^ (ones * (uint8_t)'$');
  uint64_t zero = ((a - ones) & ~a) | ((b - ones) & ~b) | ((c - ones) & ~c);
  return (zero & highs) != 0;
}

static bool needs_escape(char c) {
  return c == '\\' || c == '`' || c == '$';
}

static ssize_t literal_write(void *cookie, const char *buf, size_t n) {
  FILE *under = cookie;
  size_t from = 0, i = 0;
  while (i < n) {
    /* runs without those bytes are passed 8 bytes a test */
    uint64_t w;
    if (i + 8 <= n) {
      memcpy(&w, buf + i, 8);
      if (!word_needs_escape(w)) {
        i += 8;
        continue;
      }
    }
    if (needs_escape(buf[i])) {
      if (fwrite(buf + from, 1, i - from, under) != i - from ||
          fputc('\\', under) == EOF)
        return -1;
      from = i; /* the character itself goes with the next run */
    }
    i++;
  }
  if (fwrite(buf + from, 1, n - from, under) != n - from)
    return -1;
  return (ssize_t)n;
}

static FILE *literal_stream(FILE *under) {
  cookie_io_functions_t io = {NULL, literal_write, NULL, NULL};
  FILE *f = fopencookie(under, "w", io);
  if (f)
    setvbuf(f, NULL, _IOFBF, 1 << 16);
  return f;
}

static void tile_path(const view_tiles *t, size_t k, char *out, size_t size) {
  snprintf(out, size, "%s/tile-%06zu.js", t->dir, k);
}

FILE *view_tiles_extra(view_tiles *t, uint64_t ev_next, uint64_t tm_next) {
  if (t->failed)
    return NULL;
  if (t->file)
    return t->extra;
  if (!prepare_folder(t))
    return NULL;
  size_t len = strlen(t->dir) + 32;
  char *path = malloc(len);
  if (!path) {
    fail(t, 0);
    return NULL;
  }
  tile_path(t, t->ntiles, path, len);
  t->file = fopen(path, "w");
  free(path);
  if (!t->file) {
    fail(t, errno);
    return NULL;
  }
  fprintf(t->file, "cclscopeTile(%zu,`\n", t->ntiles);
  t->extra = literal_stream(t->file);
  if (!t->extra) {
    fail(t, 0);
    return NULL;
  }
  t->lines = 0;
  t->extra_bytes = 0;
  t->nev = t->ntm = t->nmk = 0;
  memset(&t->open, 0, sizeof t->open);
  t->open.ev0 = ev_next;
  t->open.tm0 = tm_next;
  t->open.t0 = INT64_MAX;
  t->open.t1 = INT64_MIN;
  return t->extra;
}

static bool grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return true;
  size_t ncap = *cap ? *cap * 2 : 256;
  void *np = realloc(*p, ncap * size);
  if (!np)
    return false;
  *p = np;
  *cap = ncap;
  return true;
}

static void note_start(view_tiles *t, int64_t start) {
  if (start < t->open.t0)
    t->open.t0 = start;
  if (start > t->open.t1)
    t->open.t1 = start;
}

static void cut_when_full(view_tiles *t) {
  uint64_t used = t->extra_bytes +
                  (t->nev + t->ntm + t->nmk) * (uint64_t)VIEW_TILE_COLUMN_BYTES;
  if (used >= t->tile_bytes)
    view_tiles_cut(t);
}

bool view_tiles_add_event(view_tiles *t, const view_tile_event *e) {
  if (!t->file)
    return true; /* failed: reported once at the end */
  if (!grow((void **)&t->ev, &t->cap_ev, t->nev, sizeof *t->ev)) {
    fail(t, 0);
    return false;
  }
  t->ev[t->nev++] = *e;
  note_start(t, e->start);
  cut_when_full(t);
  return true;
}

bool view_tiles_add_timing(view_tiles *t, const view_tile_timing *e) {
  if (!t->file)
    return true;
  if (!grow((void **)&t->tm, &t->cap_tm, t->ntm, sizeof *t->tm)) {
    fail(t, 0);
    return false;
  }
  t->tm[t->ntm++] = *e;
  note_start(t, e->start);
  cut_when_full(t);
  return true;
}

bool view_tiles_add_mark(view_tiles *t, const view_tile_mark *m) {
  if (!t->file)
    return true;
  if (!grow((void **)&t->mk, &t->cap_mk, t->nmk, sizeof *t->mk)) {
    fail(t, 0);
    return false;
  }
  t->mk[t->nmk++] = *m;
  note_start(t, m->ts);
  cut_when_full(t);
  return true;
}

/* ---- writing the columns ---- */

#define TILE_COLUMN(w, key, n, expr)                                           \
  do {                                                                         \
    jw_key(w, key);                                                            \
    jw_arr_begin(w);                                                           \
    for (size_t i = 0; i < (n); i++)                                           \
      jw_i64(w, (int64_t)(expr));                                              \
    jw_arr_end(w);                                                             \
  } while (0)

static void write_columns(const view_tiles *t, jsonw *w) {
  const view_tile_event *e = t->ev;
  const view_tile_timing *m = t->tm;
  size_t n = t->nev;
  jw_obj_begin(w);
  jw_key(w, "events");
  jw_obj_begin(w);
  TILE_COLUMN(w, "track", n, e[i].track);
  TILE_COLUMN(w, "start", n, e[i].start);
  TILE_COLUMN(w, "dur", n, e[i].dur);
  TILE_COLUMN(w, "type", n, e[i].type);
  TILE_COLUMN(w, "name", n, e[i].name);
  TILE_COLUMN(w, "func", n, e[i].func);
  TILE_COLUMN(w, "end", n, e[i].end);
  TILE_COLUMN(w, "id", n, e[i].id);
  TILE_COLUMN(w, "parent", n, e[i].parent);
  TILE_COLUMN(w, "pk", n, e[i].pk);
  TILE_COLUMN(w, "rank", n, e[i].rank);
  TILE_COLUMN(w, "seq", n, e[i].seq);
  TILE_COLUMN(w, "line", n, e[i].line);
  jw_obj_end(w);
  n = t->ntm;
  jw_key(w, "timing");
  jw_obj_begin(w);
  TILE_COLUMN(w, "track", n, m[i].track);
  TILE_COLUMN(w, "start", n, m[i].start);
  TILE_COLUMN(w, "dur", n, m[i].dur);
  TILE_COLUMN(w, "ev", n, m[i].ev);
  TILE_COLUMN(w, "name", n, m[i].name);
  TILE_COLUMN(w, "source", n, m[i].source);
  TILE_COLUMN(w, "line", n, m[i].line);
  jw_obj_end(w);
  const view_tile_mark *k = t->mk;
  n = t->nmk;
  jw_key(w, "marks");
  jw_obj_begin(w);
  TILE_COLUMN(w, "file", n, k[i].file);
  TILE_COLUMN(w, "ts", n, k[i].ts);
  TILE_COLUMN(w, "kind", n, k[i].kind);
  TILE_COLUMN(w, "label", n, k[i].label);
  jw_key(w, "step");
  jw_arr_begin(w);
  for (size_t i = 0; i < n; i++)
    if (k[i].step == INT64_MIN)
      jw_null(w);
    else
      jw_i64(w, k[i].step);
  jw_arr_end(w);
  jw_obj_end(w);
  jw_obj_end(w);
}

void view_tiles_cut(view_tiles *t) {
  if (!t->file)
    return;
  bool ok = fclose(t->extra) == 0;
  t->extra = NULL;
  fputs("`,", t->file);
  jsonw w;
  jw_init(&w, t->file);
  write_columns(t, &w);
  jw_flush(&w);
  fputs(");\n", t->file);
  long size = ftell(t->file);
  if (ferror(t->file))
    ok = false;
  if (fclose(t->file) != 0)
    ok = false;
  t->file = NULL;
  if (!ok) {
    fail(t, errno);
    return;
  }
  if (!grow((void **)&t->index, &t->cap_index, t->ntiles, sizeof *t->index)) {
    fail(t, 0);
    return;
  }
  t->open.nev = t->nev;
  t->open.ntm = t->ntm;
  t->open.nmk = t->nmk;
  t->open.bytes = size > 0 ? (uint64_t)size : 0;
  t->index[t->ntiles++] = t->open;
}

void view_tiles_write_index(const view_tiles *t, uint64_t load_bytes,
                            jsonw *w) {
  jw_key(w, "tiles");
  if (!t || !t->ntiles) {
    jw_null(w);
    return;
  }
  const view_tile_info *x = t->index;
  size_t n = t->ntiles;
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += x[i].bytes;
  jw_obj_begin(w);
  jw_key(w, "dir");
  jw_str(w, t->name);
  jw_key(w, "count");
  jw_u64(w, n);
  jw_key(w, "bytes");
  jw_u64(w, total);
  jw_key(w, "loadBytes");
  jw_u64(w, load_bytes);
  jw_key(w, "complete");
  jw_bool(w, !t->failed);
  jw_newline(w);
  TILE_COLUMN(w, "t0", n, x[i].t0);
  TILE_COLUMN(w, "t1", n, x[i].t1);
  TILE_COLUMN(w, "ev0", n, x[i].ev0);
  TILE_COLUMN(w, "nev", n, x[i].nev);
  TILE_COLUMN(w, "tm0", n, x[i].tm0);
  TILE_COLUMN(w, "ntm", n, x[i].ntm);
  TILE_COLUMN(w, "nmk", n, x[i].nmk);
  TILE_COLUMN(w, "size", n, x[i].bytes);
  jw_obj_end(w);
  jw_newline(w);
}
