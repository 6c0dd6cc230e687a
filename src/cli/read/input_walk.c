/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/input_walk.c — folder arguments walked recursively in name
 * order, each file and folder taken once (see input_walk.h).
 */
#include "read/input_walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void iw_init(input_walk *w, tr_inputs *lists, int nlists,
             int (*kind_of)(const char *name)) {
  memset(w, 0, sizeof *w);
  w->kind_of = kind_of;
  w->lists = lists;
  w->nlists = nlists < IW_MAX_LISTS ? nlists : IW_MAX_LISTS;
  pair_map_init(&w->seen);
  w->notes = tr_format_notices;
}

void iw_free(input_walk *w) {
  for (size_t i = 0; i < w->nfirst; i++)
    free(w->first[i]);
  free(w->first);
  pair_map_free(&w->seen);
  memset(w, 0, sizeof *w);
}

static bool out_of_memory(void) {
  fprintf(stderr, "cclscope: out of memory listing the inputs\n");
  return false;
}

bool iw_push(input_walk *w, int kind, const char *path, uint64_t size) {
  tr_inputs *in = &w->lists[kind];
  size_t *cap = &w->caps[kind];
  if (in->n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 16;
    char **p = realloc(in->paths, ncap * sizeof *p);
    if (!p)
      return out_of_memory();
    in->paths = p;
    *cap = ncap;
  }
  if (!(in->paths[in->n] = strdup(path)))
    return out_of_memory();
  in->n++;
  in->total_bytes += size;
  return true;
}

/* Remember that `path` (of `st`) is taken. 1: new; 0: taken before (said
 * on stderr); -1: out of memory. */
static int take_once(input_walk *w, const char *path, const struct stat *st) {
  bool inserted;
  uint64_t *slot = pair_map_put(&w->seen, (uint64_t)st->st_dev,
                                (uint64_t)st->st_ino, 0, &inserted);
  if (!slot)
    return -1;
  if (!inserted) {
    const char *before = w->first[*slot - 1];
    const char *what = S_ISDIR(st->st_mode) ? "folder" : "file";
    if (!w->notes)
      return 0;
    if (strcmp(before, path) == 0)
      fprintf(stderr, "cclscope: the %s '%s' is reached twice: read once\n",
              what, path);
    else
      fprintf(stderr,
              "cclscope: the %s '%s' is the %s '%s' again (the same device "
              "and inode: a link, or named twice): read once\n",
              what, path, what, before);
    return 0;
  }
  if (w->nfirst == w->cap_first) {
    size_t ncap = w->cap_first ? w->cap_first * 2 : 16;
    char **p = realloc(w->first, ncap * sizeof *p);
    if (!p)
      return -1;
    w->first = p;
    w->cap_first = ncap;
  }
  if (!(w->first[w->nfirst] = strdup(path)))
    return -1;
  *slot = ++w->nfirst;
  return 1;
}

bool iw_file(input_walk *w, const char *path, const struct stat *st, int kind) {
  int fresh = take_once(w, path, st);
  if (fresh < 0)
    return out_of_memory();
  return fresh == 0 || iw_push(w, kind, path, (uint64_t)st->st_size);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The visible entries of `dir`, sorted by name (caller frees each and the
 * array). NULL with errno set when the folder cannot be read. */
static char **sorted_entries(const char *dir, size_t *n) {
  DIR *d = opendir(dir);
  *n = 0;
  if (!d)
    return NULL;
  char **names = NULL;
  size_t cap = 0;
  struct dirent *e;
  bool ok = true;
  while (ok && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') /* ".", "..", hidden files and folders */
      continue;
    if (*n == cap) {
      size_t ncap = cap ? cap * 2 : 32;
      char **p = realloc(names, ncap * sizeof *p);
      ok = p != NULL;
      if (!ok)
        break;
      names = p;
      cap = ncap;
    }
    ok = (names[*n] = strdup(e->d_name)) != NULL;
    *n += ok;
  }
  closedir(d);
  if (!ok) {
    for (size_t i = 0; i < *n; i++)
      free(names[i]);
    free(names);
    errno = ENOMEM;
    return NULL;
  }
  if (*n > 1)
    qsort(names, *n, sizeof *names, cmp_str);
  if (!names) /* an empty folder: an empty list, not a failure */
    names = malloc(sizeof *names);
  if (!names)
    errno = ENOMEM;
  return names;
}

/* The folder `dir` (already taken): its files, then walk on. */
static bool walk(input_walk *w, const char *dir, size_t *matched) {
  size_t n;
  char **names = sorted_entries(dir, &n);
  if (!names) {
    fprintf(stderr, "cclscope: cannot open '%s': %s\n", dir, strerror(errno));
    return false;
  }
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++) {
    char path[4096];
    struct stat st;
    size_t len = strlen(dir);
    const char *sep = len > 0 && dir[len - 1] == '/' ? "" : "/";
    if (snprintf(path, sizeof path, "%s%s%s", dir, sep, names[i]) >=
        (int)sizeof path) {
      fprintf(stderr, "cclscope: a path under '%s' is too long\n", dir);
      ok = false;
    } else if (stat(path, &st) != 0) {
      continue; /* a link to nothing, or gone since it was listed */
    } else if (S_ISDIR(st.st_mode)) {
      int fresh = take_once(w, path, &st);
      ok = fresh >= 0 ? fresh == 0 || walk(w, path, matched) : out_of_memory();
    } else if (S_ISREG(st.st_mode)) {
      int kind = w->kind_of(names[i]);
      if (kind >= 0 && kind < w->nlists) {
        (*matched)++;
        ok = iw_file(w, path, &st, kind);
      }
    }
  }
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
  return ok;
}

bool iw_folder(input_walk *w, const char *dir, size_t *matched) {
  struct stat st;
  *matched = 0;
  if (stat(dir, &st) != 0) {
    fprintf(stderr, "cclscope: cannot open '%s': %s\n", dir, strerror(errno));
    return false;
  }
  int fresh = take_once(w, dir, &st);
  if (fresh < 0)
    return out_of_memory();
  if (fresh == 0) {
    *matched = 1; /* its files are in already: not a folder without any */
    return true;
  }
  return walk(w, dir, matched);
}
