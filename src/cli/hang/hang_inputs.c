/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_inputs.c — which files `cclscope hang` reads: in a folder,
 * its in-flight snapshots (inflight_*.json) and trace files (*.jsonl),
 * each list sorted by name; a file argument by its suffix (.json: a
 * snapshot, anything else: a trace). Unlike tr_inputs_collect, a folder
 * without traces is fine (the snapshots may be all there is).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hang/hang.h"

static bool push(tr_inputs *in, size_t *cap, const char *path, uint64_t size) {
  if (in->n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 16;
    char **p = realloc(in->paths, ncap * sizeof *p);
    if (!p)
      return false;
    in->paths = p;
    *cap = ncap;
  }
  if (!(in->paths[in->n] = strdup(path)))
    return false;
  in->n++;
  in->total_bytes += size;
  return true;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct {
  size_t snap_cap, trace_cap;
} caps;

static bool collect_dir(hang_inputs *in, caps *c, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cclscope: cannot open '%s': %s\n", dir, strerror(errno));
    return false;
  }
  size_t first_snap = in->snapshots.n, first_trace = in->traces.n;
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(d)) != NULL) {
    const char *name = e->d_name;
    bool snap = strncmp(name, "inflight_", 9) == 0 && ends_with(name, ".json");
    bool trace = tr_is_trace_name(name);
    if (!snap && !trace)
      continue;
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        stat(path, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    ok = snap ? push(&in->snapshots, &c->snap_cap, path, (uint64_t)st.st_size)
              : push(&in->traces, &c->trace_cap, path, (uint64_t)st.st_size);
  }
  closedir(d);
  if (!ok) {
    fprintf(stderr, "cclscope: out of memory listing '%s'\n", dir);
    return false;
  }
  if (in->snapshots.n > first_snap) /* (qsort wants a valid pointer) */
    qsort(in->snapshots.paths + first_snap, in->snapshots.n - first_snap,
          sizeof(char *), cmp_str);
  if (in->traces.n > first_trace)
    qsort(in->traces.paths + first_trace, in->traces.n - first_trace,
          sizeof(char *), cmp_str);
  return true;
}

bool hang_inputs_collect(hang_inputs *in, int argc, char **argv) {
  caps c = {0, 0};
  memset(in, 0, sizeof *in);
  for (int i = 0; i < argc; i++) {
    struct stat st;
    bool ok;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "cclscope: cannot open '%s': %s\n", argv[i],
              strerror(errno));
      ok = false;
    } else if (S_ISDIR(st.st_mode)) {
      ok = collect_dir(in, &c, argv[i]);
    } else if (ends_with(argv[i], ".json")) {
      ok = push(&in->snapshots, &c.snap_cap, argv[i], (uint64_t)st.st_size);
    } else {
      ok = push(&in->traces, &c.trace_cap, argv[i], (uint64_t)st.st_size);
    }
    if (!ok) {
      hang_inputs_free(in);
      return false;
    }
  }
  return true;
}

void hang_inputs_free(hang_inputs *in) {
  tr_inputs_free(&in->snapshots);
  tr_inputs_free(&in->traces);
}
