/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/common/trace_read.c — see trace_read.h.
 */
#include "trace_read.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  for (;;) {
    if (n == cap) {
      cap *= 2;
      buf = realloc(buf, cap + 1);
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    if (got == 0)
      break;
    n += got;
  }
  fclose(f);
  buf[n] = '\0';
  *len = n;
  return buf;
}

bool trace_load(trace_t *t, const char *path) {
  size_t len;
  memset(t, 0, sizeof *t);
  snprintf(t->path, sizeof t->path, "%s", path);
  char *data = slurp(path, &len);
  if (!data)
    return false;
  t->ends_with_newline = len > 0 && data[len - 1] == '\n';
  size_t cap = 1024;
  t->lines = malloc(cap * sizeof *t->lines);
  size_t off = 0;
  while (off < len) {
    char *nl = memchr(data + off, '\n', len - off);
    size_t line_len = nl ? (size_t)(nl - (data + off)) : len - off;
    if (line_len + 1 <= 4096 && off / 4096 != (off + line_len) / 4096)
      t->crossing_lines++;
    data[off + line_len] = '\0';
    cJSON *obj = cJSON_Parse(data + off);
    if (!obj || !cJSON_IsObject(obj)) {
      t->bad_lines++;
      cJSON_Delete(obj);
    } else {
      const char *rt = json_str(obj, "recordType");
      if (rt && strcmp(rt, "pad") == 0) {
        cJSON_Delete(obj);
      } else {
        if (t->count == cap) {
          cap *= 2;
          t->lines = realloc(t->lines, cap * sizeof *t->lines);
        }
        t->lines[t->count++] = obj;
      }
    }
    off += line_len + 1;
  }
  free(data);
  return true;
}

void trace_free(trace_t *t) {
  for (size_t i = 0; i < t->count; i++)
    cJSON_Delete(t->lines[i]);
  free(t->lines);
  memset(t, 0, sizeof *t);
}

static int by_name(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

size_t trace_find_files(const char *dir, char paths[][4096], size_t max) {
  DIR *d = opendir(dir);
  size_t n = 0;
  if (!d)
    return 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (strncmp(e->d_name, "trace_", 6) != 0 || l < 6 ||
        strcmp(e->d_name + l - 6, ".jsonl") != 0)
      continue;
    if (n < max)
      snprintf(paths[n], 4096, "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  qsort(paths, n < max ? n : max, 4096, by_name);
  return n;
}

const char *json_str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

double json_num(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

uint64_t json_hex(const cJSON *o, const char *key) {
  const char *s = json_str(o, key);
  return s ? strtoull(s, NULL, 16) : 0;
}

bool json_is_null(const cJSON *o, const char *key) {
  return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, key));
}

const cJSON *json_obj(const cJSON *o, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(o, key);
}

size_t trace_count_record(const trace_t *t, const char *record_type) {
  size_t n = 0;
  for (size_t i = 0; i < t->count; i++) {
    const char *rt = json_str(t->lines[i], "recordType");
    if (rt && strcmp(rt, record_type) == 0)
      n++;
  }
  return n;
}

size_t trace_count_events(const trace_t *t, const char *type) {
  size_t n = 0;
  for (size_t i = 0; i < t->count; i++) {
    const char *rt = json_str(t->lines[i], "recordType");
    const char *ty = json_str(t->lines[i], "type");
    if (rt && ty && strcmp(rt, "event") == 0 && strcmp(ty, type) == 0)
      n++;
  }
  return n;
}

const cJSON *trace_find_event(const trace_t *t, uint64_t id) {
  for (size_t i = 0; i < t->count; i++) {
    const char *rt = json_str(t->lines[i], "recordType");
    if (rt && strcmp(rt, "event") == 0 && json_hex(t->lines[i], "id") == id)
      return t->lines[i];
  }
  return NULL;
}

const cJSON *trace_find_record(const trace_t *t, const char *record_type) {
  for (size_t i = 0; i < t->count; i++) {
    const char *rt = json_str(t->lines[i], "recordType");
    if (rt && strcmp(rt, record_type) == 0)
      return t->lines[i];
  }
  return NULL;
}

const cJSON *trace_find_lifecycle(const trace_t *t, const char *func, int ctx) {
  for (size_t i = 0; i < t->count; i++) {
    const char *ty = json_str(t->lines[i], "type");
    const char *fn = json_str(t->lines[i], "func");
    if (ty && fn && strcmp(ty, "ProfilerLifecycle") == 0 &&
        strcmp(fn, func) == 0 &&
        (ctx < 0 || (int)json_num(t->lines[i], "ctx") == ctx))
      return t->lines[i];
  }
  return NULL;
}

void test_make_tmpdir(char *out, size_t outlen) {
  const char *base = getenv("TMPDIR");
  snprintf(out, outlen, "%s/cclscope-test-XXXXXX",
           base && *base ? base : "/tmp");
  if (!mkdtemp(out)) {
    perror("mkdtemp");
    abort();
  }
}

bool test_dir_takes_direct_io(const char *dir) {
  struct statfs fs;
  if (statfs(dir, &fs) != 0 || fs.f_type == TMPFS_MAGIC)
    return false;
  char path[4200];
  snprintf(path, sizeof path, "%s/direct-probe", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_DIRECT, 0644);
  if (fd < 0)
    return false;
  char *page = aligned_alloc(4096, 4096);
  bool ok = false;
  if (page) {
    memset(page, 'x', 4096);
    ok = pwrite(fd, page, 4096, 0) == 4096;
  }
  free(page);
  close(fd);
  unlink(path);
  return ok;
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

void test_remove_tree(const char *dir) {
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
