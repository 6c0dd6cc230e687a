/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/check/emu_truth.c — owns the ground-truth file: per-thread record
 * buffers, the process-wide sequence counter, the final sort by "seq", and the
 * normaliser behind `ncclemu --normalize`. Record contents are decided by
 * the callers (emu_profiler_core.c, emu_worker.c); this file only formats.
 */
#include "check/emu_truth.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRUTH_BUF_CAP (256 * 1024)
#define TRUTH_FLUSH_AT (TRUTH_BUF_CAP - 16 * 1024)

struct emu_truth_buf {
  char *data;
  size_t len;
};

static int truth_fd = -1;
static char truth_path[1024];
static uint64_t truth_seq; /* relaxed atomic: no synchronisation edge */
static pid_t truth_pid;    /* set in emu_truth_open (one per process) */

void emu_truth_open(const char *path) {
  if (path == NULL)
    return;
  snprintf(truth_path, sizeof truth_path, "%s", path);
  truth_pid = getpid();
  truth_fd =
      open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (truth_fd < 0)
    emu_die("cannot write truth file '%s': %m", path);
}

bool emu_truth_enabled(void) {
  return truth_fd >= 0;
}

struct emu_truth_buf *emu_truth_buf_new(void) {
  struct emu_truth_buf *b = calloc(1, sizeof *b);
  if (b == NULL || (b->data = malloc(TRUTH_BUF_CAP)) == NULL)
    emu_die("out of memory for the truth buffer");
  return b;
}

void emu_truth_buf_flush(struct emu_truth_buf *b) {
  size_t off = 0;
  while (off < b->len) {
    ssize_t n = write(truth_fd, b->data + off, b->len - off);
    if (n <= 0)
      emu_die("cannot write truth file '%s': %m", truth_path);
    off += (size_t)n;
  }
  b->len = 0;
}

void emu_truth_buf_free(struct emu_truth_buf *b) {
  if (b == NULL)
    return;
  emu_truth_buf_flush(b);
  free(b->data);
  free(b);
}

static void put(struct emu_truth_buf *b, const char *s, size_t n) {
  if (b->len + n >= TRUTH_BUF_CAP - 1)
    n = TRUTH_BUF_CAP - 1 - b->len; /* never overflow; record truncated */
  memcpy(b->data + b->len, s, n);
  b->len += n;
}

static void puts_(struct emu_truth_buf *b, const char *s) {
  put(b, s, strlen(s));
}

static void put_key(emu_rec *r, const char *key) {
  puts_(r->buf, ",\"");
  puts_(r->buf, key);
  puts_(r->buf, "\":");
}

static void put_escaped(struct emu_truth_buf *b, const char *s) {
  puts_(b, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    char tmp[8];
    if (c == '"' || c == '\\') {
      tmp[0] = '\\';
      tmp[1] = (char)c;
      put(b, tmp, 2);
    } else if (c < 0x20) {
      snprintf(tmp, sizeof tmp, "\\u%04x", c);
      puts_(b, tmp);
    } else {
      put(b, (const char *)&c, 1);
    }
  }
  puts_(b, "\"");
}

/* Decimal without snprintf (the truth writes millions of numbers). */
static size_t format_u64(char *out, uint64_t v) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (size_t i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  out[n] = '\0';
  return n;
}

static void put_u64(struct emu_truth_buf *b, uint64_t v) {
  char tmp[24];
  put(b, tmp, format_u64(tmp, v));
}

static void put_i64(struct emu_truth_buf *b, int64_t v) {
  if (v < 0) {
    put(b, "-", 1);
    put_u64(b, (uint64_t)0 - (uint64_t)v);
  } else {
    put_u64(b, (uint64_t)v);
  }
}

bool emu_rec_begin(emu_rec *r, emu_thread *t, const char *call) {
  if (t->truth == NULL)
    return false;
  r->buf = t->truth;
  r->start = r->buf->len;
  uint64_t seq = __atomic_add_fetch(&truth_seq, 1, __ATOMIC_RELAXED);
  puts_(r->buf, "{\"seq\":");
  put_u64(r->buf, seq);
  puts_(r->buf, ",\"t_ns\":");
  put_u64(r->buf, emu_realtime_ns());
  puts_(r->buf, ",\"pid\":");
  put_i64(r->buf, truth_pid);
  puts_(r->buf, ",\"tid\":");
  put_i64(r->buf, t->tid);
  puts_(r->buf, ",\"thr\":");
  put_escaped(r->buf, t->name);
  static const char *const roles[] = {"main",   "app",   "init", "async",
                                      "cudacb", "proxy", "sock", "profiler"};
  puts_(r->buf, ",\"role\":");
  put_escaped(r->buf, (unsigned)t->role < sizeof roles / sizeof *roles
                          ? roles[t->role]
                          : "unknown");
  puts_(r->buf, ",\"call\":");
  put_escaped(r->buf, call);
  return true;
}

void emu_rec_str(emu_rec *r, const char *key, const char *value) {
  put_key(r, key);
  if (value == NULL)
    puts_(r->buf, "null");
  else
    put_escaped(r->buf, value);
}

void emu_rec_int(emu_rec *r, const char *key, int64_t value) {
  put_key(r, key);
  put_i64(r->buf, value);
}

void emu_rec_uint(emu_rec *r, const char *key, uint64_t value) {
  put_key(r, key);
  put_u64(r->buf, value);
}

void emu_rec_hex(emu_rec *r, const char *key, uint64_t value) {
  char tmp[24];
  tmp[0] = '"';
  emu_hex64(tmp + 1, value);
  tmp[19] = '"';
  tmp[20] = '\0';
  put_key(r, key);
  puts_(r->buf, tmp);
}

void emu_rec_ptr(emu_rec *r, const char *key, const void *value) {
  emu_rec_hex(r, key, (uint64_t)(uintptr_t)value);
}

void emu_rec_id(emu_rec *r, const char *key, uint64_t id) {
  if (id == 0)
    emu_rec_null(r, key);
  else
    emu_rec_hex(r, key, id);
}

void emu_rec_bool(emu_rec *r, const char *key, bool value) {
  put_key(r, key);
  puts_(r->buf, value ? "true" : "false");
}

void emu_rec_null(emu_rec *r, const char *key) {
  put_key(r, key);
  puts_(r->buf, "null");
}

void emu_rec_end(emu_rec *r) {
  puts_(r->buf, "}\n");
  if (r->buf->len > TRUTH_FLUSH_AT)
    emu_truth_buf_flush(r->buf);
}

/* ---------- end of run: sort by seq ---------- */
typedef struct line_ref {
  uint64_t key;
  size_t order; /* original position: keeps the sort stable */
  char *text;
  size_t len;
} line_ref;

static int compare_lines(const void *a, const void *b) {
  const line_ref *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->order < y->order ? -1 : (x->order > y->order);
}

static char *read_file(const char *path, size_t *len_out) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  size_t cap = 1 << 16, len = 0;
  char *data = malloc(cap + 1);
  size_t n;
  while (data != NULL && (n = fread(data + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      cap *= 2;
      char *bigger = realloc(data, cap + 1);
      if (bigger == NULL) {
        free(data);
        data = NULL;
      } else {
        data = bigger;
      }
    }
  }
  fclose(f);
  if (data == NULL)
    return NULL;
  data[len] = '\0';
  *len_out = len;
  return data;
}

/* Splits `data` into lines (in place). Returns the count. */
static size_t split_lines(char *data, size_t len, line_ref **out) {
  size_t n = 0, cap = 1024;
  line_ref *lines = malloc(cap * sizeof *lines);
  char *p = data, *end = data + len;
  while (lines != NULL && p < end) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (l > 0) {
      if (n == cap) {
        cap *= 2;
        line_ref *bigger = realloc(lines, cap * sizeof *lines);
        if (bigger == NULL) {
          free(lines);
          return 0;
        }
        lines = bigger;
      }
      /* bounded search: strstr would scan the rest of the file each time */
      const char *s = memmem(p, l, "\"seq\":", 6);
      lines[n].key = s != NULL ? strtoull(s + 6, NULL, 10) : 0;
      lines[n].order = n;
      lines[n].text = p;
      lines[n].len = l;
      n++;
    }
    if (nl)
      *nl = '\0';
    p += l + 1;
  }
  *out = lines;
  return lines ? n : 0;
}

void emu_truth_close(void) {
  if (truth_fd < 0)
    return;
  close(truth_fd);
  truth_fd = -1;
  size_t len = 0;
  char *data = read_file(truth_path, &len);
  if (data == NULL)
    return;
  line_ref *lines = NULL;
  size_t n = split_lines(data, len, &lines);
  qsort(lines, n, sizeof *lines, compare_lines);
  FILE *f = fopen(truth_path, "wb");
  if (f != NULL) {
    for (size_t i = 0; i < n; i++) {
      fwrite(lines[i].text, 1, lines[i].len, f);
      fputc('\n', f);
    }
    fclose(f);
  }
  free(lines);
  free(data);
}

/* ---------- normaliser ---------- */
static const char *const volatile_keys[] = {
    "seq",        "t_ns",       "pid",        "tid",
    "ctx",        "origin_ctx", "parent_obj", "origin_parent_obj",
    "origin_pid", "pTimer",     "path",       "dur_ns",
    "data",       "op_pid",     "refcount",   NULL};
/* Keys whose value is a plugin handle: reduced to null/unwritten/set. */
static const char *const handle_keys[] = {"handle", "ctx_after", NULL};

static bool key_in(const char *key, size_t klen, const char *const *list) {
  for (int i = 0; list[i]; i++)
    if (strlen(list[i]) == klen && strncmp(list[i], key, klen) == 0)
      return true;
  return false;
}

/* Parses one flat JSON object, writes the normalised form to `out`, and
 * returns the "thr" value in thr (NUL-terminated, truncated). */
static void normalize_line(const char *s, char *out, size_t outcap, char *thr,
                           size_t thrcap) {
  size_t o = 0;
  thr[0] = '\0';
  const char *p = strchr(s, '{');
  if (p == NULL) {
    out[0] = '\0';
    return;
  }
  p++;
  while (*p) {
    while (*p == ',' || *p == ' ')
      p++;
    if (*p != '"')
      break;
    const char *key = ++p;
    while (*p && *p != '"')
      p++;
    size_t klen = (size_t)(p - key);
    if (*p)
      p++;
    if (*p == ':')
      p++;
    const char *val = p;
    if (*p == '"') {
      p++;
      while (*p && *p != '"') {
        if (*p == '\\' && p[1])
          p++;
        p++;
      }
      if (*p)
        p++;
    } else {
      while (*p && *p != ',' && *p != '}')
        p++;
    }
    size_t vlen = (size_t)(p - val);
    if (klen == 3 && strncmp(key, "thr", 3) == 0) {
      size_t n = vlen >= 2 ? vlen - 2 : 0;
      if (n >= thrcap)
        n = thrcap - 1;
      memcpy(thr, val + 1, n);
      thr[n] = '\0';
      continue;
    }
    if (key_in(key, klen, volatile_keys))
      continue;
    char shown[64];
    const char *v = val;
    size_t vl = vlen;
    if (key_in(key, klen, handle_keys)) {
      if (strncmp(val, "null", 4) == 0 ||
          strncmp(val, "\"0x0000000000000000\"", 20) == 0)
        snprintf(shown, sizeof shown, "null");
      else if (strncmp(val, "\"unwritten\"", 11) == 0)
        snprintf(shown, sizeof shown, "unwritten");
      else
        snprintf(shown, sizeof shown, "set");
      v = shown;
      vl = strlen(shown);
    }
    int w = snprintf(out + o, outcap - o, "%s%.*s=%.*s", o ? " " : "",
                     (int)klen, key, (int)vl, v);
    if (w < 0 || (size_t)w >= outcap - o)
      break;
    o += (size_t)w;
  }
  out[o < outcap ? o : outcap - 1] = '\0';
}

typedef struct norm_line {
  char thr[48];
  size_t file, order;
  char *text;
} norm_line;

static int compare_norm(const void *a, const void *b) {
  const norm_line *x = a, *y = b;
  int c = strcmp(x->thr, y->thr);
  if (c)
    return c;
  if (x->file != y->file)
    return x->file < y->file ? -1 : 1;
  return x->order < y->order ? -1 : (x->order > y->order);
}

int emu_truth_normalize(int nfiles, char **files, FILE *out) {
  size_t total = 0, cap = 4096;
  norm_line *all = malloc(cap * sizeof *all);
  int rc = 0;
  for (int f = 0; f < nfiles && all != NULL; f++) {
    size_t len = 0;
    char *data = read_file(files[f], &len);
    if (data == NULL) {
      fprintf(stderr, "ncclemu: cannot read truth file '%s'\n", files[f]);
      rc = 1;
      continue;
    }
    line_ref *lines = NULL;
    size_t n = split_lines(data, len, &lines);
    qsort(lines, n, sizeof *lines, compare_lines);
    for (size_t i = 0; i < n; i++) {
      if (total == cap) {
        cap *= 2;
        norm_line *bigger = realloc(all, cap * sizeof *all);
        if (bigger == NULL)
          emu_die("out of memory while normalising");
        all = bigger;
      }
      char text[4096];
      normalize_line(lines[i].text, text, sizeof text, all[total].thr,
                     sizeof all[total].thr);
      /* Under concurrent inits any init thread may be the one that loads:
       * file the load record under the process, not the thread. */
      if (strstr(text, "call=\"load\"") != NULL) {
        char *slash = strchr(all[total].thr, '/');
        if (slash != NULL)
          snprintf(slash,
                   sizeof all[total].thr - (size_t)(slash - all[total].thr),
                   "/loader");
      }
      all[total].file = (size_t)f;
      all[total].order = i;
      all[total].text = strdup(text);
      total++;
    }
    free(lines);
    free(data);
  }
  if (all == NULL)
    return 1;
  qsort(all, total, sizeof *all, compare_norm);
  for (size_t i = 0; i < total; i++) {
    fprintf(out, "%s\t%s\n", all[i].thr, all[i].text);
    free(all[i].text);
  }
  free(all);
  return rc;
}
